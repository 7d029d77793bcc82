// The burn-in analyser: turns the stream of cycle observations (observation.h) into faults with
// their times, per-entity windows and stability, MTBF and availability
// (burnin_report/burnin_report.h). It holds the burn-in's whole state, and saves and restores it
// (the checkpoint), so a resumed burn-in judges its samples exactly as if it had never stopped.
//
// Rules (load time is the burn-in's own clock, see burnin_report.h):
//   temperature  warm-up [0, warmup_s) is not judged; the steady reference is the median of the
//                samples of [warmup_s, warmup_s + temp_ref_s); after that a sample further than
//                temp_threshold_c from the reference opens a fault, which clears when a later
//                sample is back within the band. The largest deviation is kept.
//   perf drift   the baseline is the median cycle rate of [0, baseline_s) (the first hour, or a
//                quarter of a shorter run), its spread 1.4826 MAD / median of those cycles; a
//                later window whose median is below it by more than drift_threshold and more
//                than 4 standard errors of the difference of the two medians (from that spread
//                and both cycle counts) is low, and 2 low windows in a row open a fault (from
//                the first), cleared by a window back above. A low window whose cores gave 5% or
//                more of their time to other processes (EntitySample::foreign_share), enough to
//                explain its drop, is "disturbed by other processes", noted, not a fault. Fewer
//                than 8 baseline cycles: drift is not judged, and the entity's note says the
//                baseline is too short (analyser_drift.cc).
//   miscompare   a cycle with miscompares > 0, or a reference digest that differs from the first
//                digest of the same load (per node for CPUs, whose BLAS kernels may differ
//                between nodes; across the job for GPUs and the network), across resumes too.
//   throttle     GPU: HW slowdown, SW or HW thermal slowdown or power brake among the clocks
//                event reasons (an onset per episode; SW power cap is not a fault: a GPU at its
//                power limit under full load is working as designed). CPU: the thermal_throttle
//                counter rising.
//   counters     any rise of a cumulative counter over its previous reading (the first reading is
//                the base; a reading lower than the previous is a reset and becomes the new
//                base), judged by fault_kinds.h.
//   load error   a cycle whose load failed opens a fault, cleared by a later good cycle.
// Availability: an entity is unavailable in a cycle when a fail-severity condition is present
// (sticky faults from their onset to the end); warn-severity faults (a temperature excursion, a
// corrected error, drift) do not make it unavailable. A node reboot between two processes counts
// its wall-time gap as unavailable for every entity of the node. MTBF = entity-hours of load
// per fault, every fault counting.
#ifndef YARDSTICK_BURNIN_ANALYSER_H_
#define YARDSTICK_BURNIN_ANALYSER_H_

#include <map>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "burnin/observation.h"
#include "burnin_report/burnin_report.h"
#include "core/run_document.h"
#include "core/status.h"

namespace ys::burnin {

struct AnalyserOptions {
  std::string profile;
  double duration_s = 0;
  double cycle_s = 1;
  double window_s = 5;
  double warmup_s = 0;
  double temp_ref_s = 0;
  double baseline_s = 0;
  double temp_threshold_c = 2;
  double drift_threshold = 0.05;
  double checkpoint_interval_s = 60;
  std::string started_at;
  std::string telemetry_source;
  std::vector<std::string> planted;
};

// Timing from the duration: window = duration/240 within [5 s, 15 min]; warm-up and the steady
// reference min(10 min, duration/10) each; baseline min(1 h, duration/4).
AnalyserOptions DefaultTiming(double duration_s, double cycle_s);

class Analyser {
 public:
  explicit Analyser(AnalyserOptions options);
  ~Analyser();
  Analyser(Analyser&&) noexcept;
  Analyser& operator=(Analyser&&) noexcept;

  const AnalyserOptions& options() const;
  double elapsed_s() const;
  int64_t cycles() const;

  // Where the telemetry comes from and what a recorded timeline planted (set once the sampler
  // is open; a resumed burn-in sets them again).
  void SetSource(std::string telemetry_source, std::vector<std::string> planted);

  void Add(const CycleObservation& cycle);
  // A stop between two processes; a "reboot" adds a fault on every node seen so far.
  void AddInterruption(const BurninInterruption& interruption);

  // The summary so far: every window, the partial last one included.
  BurninReport Report() const;

  nlohmann::json SaveState() const;
  // Invalid names `where` and the field.
  static Result<Analyser> LoadState(const nlohmann::json& j, const std::string& where);

 private:
  struct State;
  std::unique_ptr<State> s_;
};

// The run document's result for a burn-in: unit "burnin.<profile>", one finding per fault (the
// code of its kind, its severity), pass with a summary when there is none.
CheckResult BurninCheckResult(const BurninReport& report);

}  // namespace ys::burnin

#endif  // YARDSTICK_BURNIN_ANALYSER_H_
