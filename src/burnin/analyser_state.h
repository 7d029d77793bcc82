// The analyser's state (analyser.h), shared by the rules (analyser.cc) and the checkpoint
// (analyser_state.cc). Internal to the burnin layer.
#ifndef YARDSTICK_BURNIN_ANALYSER_STATE_H_
#define YARDSTICK_BURNIN_ANALYSER_STATE_H_

#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "burnin/analyser.h"

namespace ys::burnin {

struct OpenWindow {
  bool open = false;
  double start_s = 0;
  int cycles = 0;
  std::vector<double> perf;
  std::vector<double> foreign;  // foreign CPU shares of the window's cycles
  std::string foreign_who;      // the processes charged the most in its busiest cycle
  double foreign_max = 0;       // that cycle's share
  std::optional<double> temp_min, temp_max;
  int faults = 0;
};

struct EntityState {
  BurninEntity info;
  std::vector<double> baseline_perf;
  bool baseline_done = false;
  // Drift (analyser.h): the baseline cycles' relative spread (1.4826 MAD / median; -1: the
  // baseline was too short to judge drift), and the run of windows below the threshold.
  double baseline_spread = 0;
  int baseline_cycles = 0;  // the cycles the baseline median was taken over
  int low_windows = 0;
  double low_since_s = 0;
  // Windows whose drop coincided with foreign CPU time, and the largest share seen in them.
  int disturbed_windows = 0;
  double disturbed_share = 0;
  // Windows in which other processes took the cores (at least kForeignShare of their time),
  // whether or not the figures dropped, and the largest share seen.
  int shared_windows = 0;
  double shared_share = 0;
  // Shared windows whose drop was larger than the foreign share explains (judged as drift).
  int unexplained_windows = 0;
  int shared_judged = 0;    // shared windows the drift judge saw (past a baseline long enough)
  std::string foreign_who;  // the processes of the busiest shared window (DisturbanceNote)
  std::vector<double> temp_ref_samples;
  bool temp_ref_done = false;
  std::map<std::string, uint64_t> counters;
  std::map<std::string, int> open;  // condition -> index into faults
  bool sticky = false;              // a sticky fail fault happened
  std::set<std::string> notes;
  OpenWindow win;
};

struct NodeState {
  double observed_s = 0;
  double unavailable_s = 0;
};

struct Analyser::State {
  AnalyserOptions o;
  double elapsed_s = 0;
  int64_t cycles = 0;
  std::map<std::string, EntityState> entities;  // "node/entity"
  std::map<std::string, NodeState> nodes;
  std::map<std::string, std::pair<std::string, std::string>> digests;  // key -> (digest, entity)
  std::map<std::string, std::string> last_metric;  // "node/entity" -> its last load metric
  std::vector<BurninFault> faults;
  std::vector<BurninInterruption> interruptions;

  int MinWindowCycles() const;

  int Open(EntityState& e, const std::string& key, double at_s, const std::string& at,
           std::string kind, Severity sev, std::string message, Evidence ev);
  // Opens `key` unless it is open already; returns the fault's index.
  int OpenOnce(EntityState& e, const std::string& key, double at_s, const std::string& at,
               std::string kind, Severity sev, std::string message, Evidence ev);
  void Close(EntityState& e, const std::string& key, double at_s);
  bool FailOpen(const EntityState& e) const;

  void CloseWindow(EntityState& e);
  void JudgeDrift(EntityState& e, const BurninWindow& w, int window_cycles, double foreign);
  // Records a window's foreign CPU share (analyser_drift.cc); the entity's note on other
  // processes, empty when none took its cores.
  static void NoteForeign(EntityState& e, double foreign, const std::string& who);
  static std::string DisturbanceNote(const EntityState& e);
  void EndBaseline(EntityState& e);
  double DriftThreshold(const EntityState& e, int window_cycles) const;

  std::string last_at;  // UTC of the cycle being added

  void AddSample(const EntitySample& s, double start_s, double end_s, const std::string& at,
                 std::map<std::string, bool>& node_unavailable);
  // The parts of AddSample, one per kind of figure in the sample.
  void JudgeLoad(EntityState& e, const EntitySample& s, double start_s, const std::string& at);
  void JudgeTemperature(EntityState& e, const EntitySample& s, double end_s, const std::string& at);
  void JudgeClocks(EntityState& e, const EntitySample& s, double end_s, const std::string& at);
  bool JudgeCounters(EntityState& e, const EntitySample& s, double end_s, const std::string& at);
};

}  // namespace ys::burnin

#endif  // YARDSTICK_BURNIN_ANALYSER_STATE_H_
