// What the HTML report reads from a validation document (validation.json, "kind":
// "yardstick-validation", written by validate/scorecard_json.cc), checked field by field so that
// a malformed document gets an error naming the field and what was expected.
#ifndef YARDSTICK_REPORT_HTML_VALIDATION_VIEW_H_
#define YARDSTICK_REPORT_HTML_VALIDATION_VIEW_H_

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "cost/throughput.h"

namespace ys::report::html {

struct ValidationWorkload {
  std::string id;
  std::string outcome;  // "pass" | "fail"
  std::string reason;
  std::optional<double> score;  // measured / reference; absent when no reference or no run
  std::optional<double> mfu;
  std::optional<double> tokens_per_s_per_gpu;  // absent when the workload was not measured
  std::optional<int> gpus;
  std::vector<double> step_times_s;
};

struct ValidationView {
  std::string chip, recipe_release, tool;
  double threshold = 0.95;
  bool pass = false;
  std::string verdict;
  std::vector<ValidationWorkload> workloads;
};

bool IsValidationDocument(const nlohmann::json& j);

// `where` names the document in errors ("run/validation.json").
Result<ValidationView> ValidationViewFromJson(const nlohmann::json& j, const std::string& where);

// The measured workloads' throughput, GPUs and score, in document order, for the cost arithmetic
// (`yardstick cost --validation` and the report's Cost section). `where` names the document.
std::vector<cost::WorkloadThroughput> ValidationThroughputs(const ValidationView& v,
                                                            const std::string& where);

}  // namespace ys::report::html

#endif  // YARDSTICK_REPORT_HTML_VALIDATION_VIEW_H_
