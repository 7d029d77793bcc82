// The serving rule: a phase is scored at its reference's point. Tokens/s per GPU must be above
// the threshold (95%) of the reference's; TTFT and TPOT, at the reference's statistic, below the
// reference's / threshold (a latency passes when reference / measured > 0.95: +5.26%, not +5%).
// A phase passes only when every metric it has a reference for passes; one failing metric fails
// it; a metric that cannot be compared (the file lacks the statistic, an offline TTFT against a
// serving one) leaves it INCONCLUSIVE. Before any score, the point must be a measure of serving
// capacity (validate/serving_validity.h, with the phase's TTFT limit), of this phase's lengths,
// over the reference's GPU denominator; otherwise the phase is INCONCLUSIVE and says why.
// Where the run is a concurrency sweep and the reference states its interactivity (output tokens/s
// per user), throughput is compared at that interactivity, interpolated linearly between the two
// measured points around it, and marked so.
#ifndef YARDSTICK_VALIDATE_SERVING_SCORE_H_
#define YARDSTICK_VALIDATE_SERVING_SCORE_H_

#include <optional>
#include <string>
#include <vector>

#include "predict/serve_phase_prediction.h"
#include "validate/inference_result.h"
#include "validate/serving_phase.h"
#include "validate/serving_reference.h"

namespace ys::validate {

enum class PhaseOutcome { kPass, kFail, kInconclusive };
// "pass", "fail", "inconclusive".
const char* PhaseOutcomeName(PhaseOutcome o);

struct ScoredMetric {
  std::string key;   // the reference's key: "output_tokens_per_s_per_gpu", "ttft_ms", "tpot_ms"
  std::string stat;  // a latency's statistic ("mean", "p50"); empty for throughput
  std::string name;  // "output throughput", "TTFT mean", "TPOT p50"
  std::string unit;  // "tok/s/GPU", "ms"
  bool larger_is_better = false;
  std::optional<double> measured, reference;
  std::optional<double> score;  // measured/reference (throughput), reference/measured (latency)
  PhaseOutcome outcome = PhaseOutcome::kInconclusive;
  std::string note;  // why not compared, or how the figure was made (interpolated)
};

// One measured point of a phase as the rule saw it: its figures over the reference's denominator
// and at the reference's statistics, and whether it was the one compared (or on the curve
// interpolated) and why not.
struct PhasePointSummary {
  std::string point;  // "concurrency 64"
  std::optional<double> output_tokens_per_s_per_gpu, tokens_per_s_per_user, ttft_ms, tpot_ms;
  bool used = false;
  std::string why;  // why it was not used; empty when used
};

struct ScoredPhase {
  ServingPhase phase;
  PhaseOutcome outcome = PhaseOutcome::kFail;
  std::string reason;  // one line: why it failed or is inconclusive; what passed
  std::optional<ServingReference> reference;
  std::vector<ScoredMetric> metrics;
  std::string dir;                 // the phase's folder under the runs directory
  std::vector<std::string> files;  // the serving files read there
  std::string format;
  std::optional<ServingPoint> point;  // the measured point compared
  // The interactivity at which the figures were compared (the point's, or the reference's when
  // interpolated on a sweep).
  std::optional<double> point_tokens_per_s_per_user;
  std::vector<std::string> refused;       // other points and why they were not used
  std::vector<PhasePointSummary> points;  // every measured point (the curve)
  // validate --predict: what the serving model predicted for the phase before its run.
  std::optional<predict::PhasePrediction> prediction;
};

// What the runs folder gave for a phase: the points of every serving file in it, or why none.
struct PhaseRun {
  std::string dir;                 // <runs>/<phase id>
  std::vector<std::string> files;  // the serving files read, sorted
  std::string format;              // their formats, comma-separated
  std::vector<ServingPoint> points;
  std::string problem;  // non-empty: no usable file ("no serving output in RUNS/ID", a read error)
};

ScoredPhase ScoreServingPhase(const ServingPhase& phase, const ServingReference* reference,
                              const PhaseRun& run, double threshold);

}  // namespace ys::validate

#endif  // YARDSTICK_VALIDATE_SERVING_SCORE_H_
