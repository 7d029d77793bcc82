// The validation document (validation.json, "kind": "yardstick-validation") as its readers see
// it: written by validate/scorecard_json.cc, read here once for history, the exporter, the
// diagnosis, the HTML report and cost. Both sides are field lists (core/json_fields.h), and every
// key that both name is spelt once, in validation_keys below. Every field that is present is
// checked for its type and range; keys the reader does not know are ignored; which fields a
// reader cannot do without is that reader's business (the report needs the suite and the verdict
// text, history needs only the verdict).
//
// Messages name the document and the field from the root, with what was expected and found:
//   "run/validation.json: workloads[2].score: expected a number or null, found a string".
//
// Thread safety: pure functions.
#ifndef YARDSTICK_CORE_VALIDATION_DOCUMENT_H_
#define YARDSTICK_CORE_VALIDATION_DOCUMENT_H_

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace ys {

inline constexpr char kValidationDocumentKind[] = "yardstick-validation";
// The suites' pass rule (a score above 95% of the reference), for a document that states none.
inline constexpr double kDefaultScoreThreshold = 0.95;

// The keys of validation.json that its writer (validate/scorecard_json.cc) and its reader
// (core/validation_document.cc) both name, each spelt only here, so that renaming one renames it
// on both sides. A key that one side alone knows is spelt in that side's field list.
namespace validation_keys {
inline constexpr char kKind[] = "kind";
inline constexpr char kTool[] = "tool";
inline constexpr char kToolVersion[] = "version";  // tool.version
inline constexpr char kSuite[] = "suite";
inline constexpr char kChip[] = "chip";  // suite.chip
inline constexpr char kRecipeRelease[] = "recipe_release";
inline constexpr char kThreshold[] = "threshold";
inline constexpr char kWorkloads[] = "workloads";
inline constexpr char kId[] = "id";  // workloads[i].id
inline constexpr char kOutcome[] = "outcome";
inline constexpr char kReason[] = "reason";
inline constexpr char kScore[] = "score";
inline constexpr char kMfu[] = "mfu";
inline constexpr char kTokensPerSPerGpu[] = "tokens_per_s_per_gpu";
inline constexpr char kGpus[] = "gpus";
inline constexpr char kStepTimesS[] = "step_times_s";
inline constexpr char kMeasured[] = "measured";
inline constexpr char kReference[] = "reference";
inline constexpr char kTflopsPerGpu[] = "tflops_per_gpu";  // measured.*, reference.*
inline constexpr char kLog[] = "log";                      // measured.log
inline constexpr char kVerdict[] = "verdict";
inline constexpr char kPass[] = "pass";  // verdict.pass
inline constexpr char kText[] = "text";
inline constexpr char kState[] = "state";
// Serving phases (phases[i]); the writer spells these in validate/scorecard_json.cc
// Fields(ScoredPhase) and its parts.
inline constexpr char kPhases[] = "phases";
inline constexpr char kMetrics[] = "metrics";  // phases[i].metrics
}  // namespace validation_keys

// One workload row (workloads[i]).
struct ValidationWorkload {
  std::string id;
  std::string outcome;  // "pass" | "fail" | "inconclusive"; empty when the row has none
  std::string reason;
  std::optional<double> score;  // measured / reference; absent when no reference or no run
  std::optional<double> mfu;
  std::optional<double> tokens_per_s_per_gpu;  // absent when the workload was not measured
  std::optional<int> gpus;
  std::vector<double> step_times_s;                // after warm-up; each > 0 and finite
  std::optional<double> measured_tflops_per_gpu;   // measured.tflops_per_gpu
  std::optional<double> reference_tflops_per_gpu;  // reference.tflops_per_gpu
  std::string log;                                 // measured.log, the ingested log's path
};

// One metric of a serving phase (phases[i].metrics[k]).
struct ValidationPhaseMetric {
  std::string name;  // "output throughput", "TTFT mean", "TPOT p50"
  std::string unit;  // "tok/s/GPU", "ms"
  // What the metric is: the document's "key" and "stat", else told from its unit and name (a
  // document written before they were):
  // "output_tokens_per_s_per_gpu" (unit tok/s/GPU), "ttft_ms" or "tpot_ms" (unit ms, the name
  // "TTFT <stat>" or "TPOT <stat>"), the reference's keys; empty for a metric this reader does
  // not know. `stat` is a latency's statistic ("mean", "p50").
  std::string key, stat;
  bool larger_is_better = false;
  std::optional<double> measured, reference;  // each >= 0
  std::optional<double> score;  // measured/reference (throughput), reference/measured (latency)
  std::string outcome;          // "pass" | "fail" | "inconclusive"
  std::string note;
};

// The reference a phase was compared with (phases[i].reference).
struct ValidationPhaseReference {
  int concurrency = 0;  // the reference's point; 0: an offline point
  std::string mode, gpu_denominator;
  std::optional<double> output_tokens_per_s_per_gpu, ttft_ms, tpot_ms, tokens_per_s_per_user;
  std::string ttft_stat, tpot_stat;
  std::string kind, source, release, date, hardware, file;  // provenance
};

// One serving phase row (phases[i]): the phase as the suite defines it (phases[i].phase.*), its
// outcome and each metric.
struct ValidationPhase {
  std::string id;
  std::string outcome;  // "pass" | "fail" | "inconclusive"; required
  std::string reason;
  // phases[i].phase
  std::string phase, model, precision, stack, stack_version, mode, gpu_denominator;
  int gpus = 0, tp = 0, ep = 0, dp = 0;
  int prefill_workers = 0, prefill_tp = 0, decode_workers = 0, decode_tp = 0;
  int isl = 0, osl = 0, requests = 0;
  std::vector<int> concurrency;  // each > 0
  std::vector<ValidationPhaseMetric> metrics;
  std::optional<ValidationPhaseReference> reference;  // absent: no reference was found
  std::vector<std::string> files;                     // the serving files read
  std::string format;
  std::string point;  // the measured point compared ("concurrency 8"); empty when none
  std::vector<std::string> refused;  // other points and why they were not used
  // The metric with this key, or null.
  const ValidationPhaseMetric* Metric(std::string_view key) const;
};

struct ValidationDocument {
  std::string kind;        // "yardstick-validation" when the writer said so
  std::string created_at;  // UTC, ISO 8601; empty when absent
  std::string tool;        // tool.version
  bool has_suite = false;
  std::string chip, recipe_release;  // suite.chip, suite.recipe_release
  std::optional<double> threshold;   // suite.threshold, in (0, 2]
  std::optional<bool> pass;          // verdict.pass
  std::string verdict;               // verdict.text
  // verdict.state: "pass", "fail" or "inconclusive"; older documents have none (then `pass`
  // decides).
  std::string state;
  std::vector<ValidationWorkload> workloads;
  std::vector<ValidationPhase> phases;  // serving phases; empty for a training suite
};

// Whether `j` says it is a validation document ("kind": "yardstick-validation").
bool IsValidationDocument(const nlohmann::json& j);

// Reads `j`; `where` names it in messages ("run/validation.json"). Invalid when it is not an
// object, has no "workloads" array, a row has no string id, or any present field has the wrong
// type or range; a serving phase (phases[i]) without a string id or a known outcome, or a metric
// without a name, is invalid too.
Result<ValidationDocument> ValidationDocumentFromJson(const nlohmann::json& j,
                                                      const std::string& where);

}  // namespace ys

#endif  // YARDSTICK_CORE_VALIDATION_DOCUMENT_H_
