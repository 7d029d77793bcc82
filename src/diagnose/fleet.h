// Fleet analysis: every figure (one measurement on one node or device) compared with its peers —
// every figure of the same comparison key (fleet_key.h) across the fleet — by the peer median and
// the median absolute deviation (MAD), in two streaming passes and bounded memory:
//   pass 1  FleetAccumulator::Add: per key, a sparse logarithmic histogram of the values
//           (sparse_histogram.h); Finalize() gives each key's median and MAD.
//   pass 2  FleetJudge::AddDocument: scores each figure, judges each node and each device on it,
//           keeps only what it flags.
// Memory: keys x occupied bins (the spread of the values, not their number) plus what is flagged.
//
// The rule (FleetOptions): a figure is an outlier when BOTH its robust z, (x - median) / scale with
// scale = max(1.4826 MAD, noise_floor * |median|), is beyond z_threshold in the worse direction
// AND it is worse than the median by at least min_deficit (relative). "Worse" follows the
// measurement's `better`: lower for higher-is-better figures, higher for lower-is-better ones.
// The noise floor handles MAD = 0 (identical values, quantised figures): the rule then reduces to
// the relative deficit. Keys with fewer than min_peers figures, or a median of 0, are not judged.
//
// Aggregation (report once, not 40 times): the figures of one node in one document form the node's
// group; those of one GPU, NIC or other device form the device's group. A group of k >= 2 figures
// is slow when the median of its figures' deficits reaches min_deficit and the median of their
// robust z, divided by the standard deviation of a median of k standard normals (sqrt(pi / 2k), an
// over-estimate for small k, so the test errs towards not flagging), reaches z_threshold. A device
// on a slow node is reported as well only when its median deficit exceeds its node's by min_deficit.
//
// A lone figure — low while the other figures of its device and node are not, or the only figure
// of its device — has no corroboration, and single measurements have long tails (a transient dip
// of a few percent): it is reported only when its deficit reaches isolated_deficit as well.
//
// Error bound of the histogram (w = bin_relative_width): |median - exact| <= w |median|;
// |MAD - exact| <= w (3 |median| + MAD) (1 + 3w). See MedianErrorBound, MadErrorBound.
#ifndef YARDSTICK_DIAGNOSE_FLEET_H_
#define YARDSTICK_DIAGNOSE_FLEET_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/report.h"
#include "core/status.h"
#include "diagnose/fleet_key.h"
#include "diagnose/sparse_histogram.h"

namespace ys::diagnose {

struct FleetOptions {
  double z_threshold = 5.0;    // robust z a figure (or a group's scaled median z) must reach
  double min_deficit = 0.05;   // relative shortfall from the median it must reach as well
  double isolated_deficit = 0.10;  // the shortfall a lone figure must reach (see above)
  double noise_floor = 0.005;  // the scale is at least this fraction of |median|
  int64_t min_peers = 3;       // keys with fewer figures are reported, not judged
  double bin_relative_width = 5e-4;
};

double MedianErrorBound(const FleetOptions& o, double median);
double MadErrorBound(const FleetOptions& o, double median, double mad);
// Standard deviation of the median of k standard normal values (approximation, see above).
double MedianStdev(size_t k);

struct KeyStats {
  std::string key;  // ComparisonKey
  std::string name, unit;
  Better better = Better::kHigher;
  std::map<std::string, std::string> params;  // KeyParams
  uint64_t n = 0;
  double median = 0, mad = 0;
  double scale = 0;  // max(1.4826 MAD, noise_floor |median|)
  double median_error_bound = 0, mad_error_bound = 0;
  size_t bins = 0;  // occupied histogram bins (memory)
  bool judged = false;
  uint64_t outliers = 0;  // figures reported (FleetJudge)
};

struct FigureScore {
  bool judged = false;
  double z = 0;        // (x - median) / scale, as defined: negative = below the median
  double badness = 0;  // z turned so that positive = worse (-z for higher-is-better)
  double deficit = 0;  // how much worse than the median, relative: 0.12 = 12% worse
};
FigureScore ScoreFigure(const KeyStats& stats, double value);
// Beyond z_threshold and at least `deficit` worse.
bool IsOutlier(const FigureScore& s, const FleetOptions& o, double deficit);

// Pass 1.
class FleetAccumulator {
 public:
  explicit FleetAccumulator(FleetOptions options) : options_(options) {}
  // A measurement whose `better` contradicts the first of its key is added and counted in
  // conflicts(). Values must be finite (JSON cannot carry anything else).
  void Add(const Measurement& m);
  std::map<std::string, KeyStats> Finalize() const;
  uint64_t figures() const { return figures_; }
  const std::vector<std::string>& conflicts() const { return conflicts_; }

 private:
  struct Accumulated {
    KeyStats proto;
    SparseHistogram values;
  };
  FleetOptions options_;
  std::map<std::string, Accumulated> keys_;
  uint64_t figures_ = 0;
  std::vector<std::string> conflicts_;  // one line per key
};

// A figure that is an outlier or evidence of a slow node or device.
struct FlaggedFigure {
  std::string node;
  Entity entity;
  std::string key;  // into FleetReport::keys
  double value = 0, median = 0;
  FigureScore score;
  bool outlier = false;           // beyond z_threshold and min_deficit on its own
  std::string attributed_to;      // "node", "gpu", "nic", "device"; empty for a lone outlier
  std::string source;             // the document it came from
};

struct SlowGroup {
  std::string node;
  Entity entity;          // kind kNode for a slow node
  size_t figures = 0;     // judged figures in the group
  size_t low_figures = 0; // of which at least min_deficit worse than their median
  double median_deficit = 0;
  double z = 0;           // the group's scaled median z, negative = worse
  std::vector<std::string> sources;
};

struct SkippedDocument {
  std::string path, error;
};

struct FleetReport {
  FleetOptions options;
  uint64_t documents = 0, figures = 0;
  std::map<std::string, KeyStats> keys;
  std::vector<SlowGroup> slow;       // slow nodes, then devices; by node, entity
  std::vector<FlaggedFigure> flagged;
  std::vector<SkippedDocument> skipped;
  std::vector<std::string> warnings;
  bool Healthy() const { return slow.empty() && flagged.empty(); }
};

// Pass 2.
class FleetJudge {
 public:
  FleetJudge(std::map<std::string, KeyStats> stats, FleetOptions options)
      : stats_(std::move(stats)), options_(options) {}
  FleetJudge(const FleetJudge&) = delete;
  FleetJudge& operator=(const FleetJudge&) = delete;

  void AddDocument(const RunDocument& doc, const std::string& source);
  // Sorted, with the same node/device from several documents reported once.
  FleetReport Finish();

 private:
  struct Scored;
  struct Verdict;
  void JudgeNode(const std::string& node, const std::vector<Scored>& figures, const std::string& source);
  Verdict JudgeGroup(const std::vector<const Scored*>& group) const;
  void RecordSlow(const std::string& node, const Entity& entity, const Verdict& v, const std::string& source);

  std::map<std::string, KeyStats> stats_;
  FleetOptions options_;
  uint64_t documents_ = 0, figures_ = 0;
  std::map<std::pair<std::string, std::string>, SlowGroup> slow_;  // (node, entity label)
  std::vector<FlaggedFigure> flagged_;
};

// Every per-node measurement of a run document with the node it belongs to: a one-node
// document's own (top-level, then each benchmark's) under its host name; a multi-rank
// document's per-node benchmarks under each node's name. A multi-rank document's top-level
// benchmarks are job-wide figures (a collective across nodes), not any one node's: they are
// left out.
template <typename F>
void ForEachMeasurement(const RunDocument& doc, F&& f) {
  if (doc.nodes.empty()) {
    for (const auto& m : doc.measurements) f(m, doc.host.hostname);
    for (const auto& b : doc.benchmarks) {
      for (const auto& m : b.measurements) f(m, doc.host.hostname);
    }
    return;
  }
  for (const auto& n : doc.nodes) {
    for (const auto& b : n.benchmarks) {
      for (const auto& m : b.measurements) f(m, n.hostname);
    }
  }
}

}  // namespace ys::diagnose

#endif  // YARDSTICK_DIAGNOSE_FLEET_H_
