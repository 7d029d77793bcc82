#include "report/html/validation_view.h"

#include <nlohmann/json.hpp>

namespace ys::report::html {
namespace {

Status Missing(const std::string& where, const std::string& field, const char* expected) {
  return Status::Invalid(where + ": " + field + ": missing, expected " + expected);
}

}  // namespace

Result<ValidationView> ValidationViewFromJson(const nlohmann::json& j, const std::string& where) {
  if (!IsValidationDocument(j)) {
    return Status::Invalid(where + ": kind: expected \"" + std::string(kValidationDocumentKind) +
                           "\"");
  }
  if (!j.contains("suite")) return Missing(where, "suite", "an object");
  auto v = ValidationDocumentFromJson(j, where);
  if (!v.ok()) return v.status();
  if (!v->has_suite) return Missing(where, "suite", "an object");
  if (!j["suite"].contains("chip")) return Missing(where, "suite.chip", "a string");
  if (!v->threshold) return Missing(where, "suite.threshold", "a number in (0, 2]");
  if (!v->pass) return Missing(where, "verdict.pass", "true or false");
  if (!j["verdict"].contains("text")) return Missing(where, "verdict.text", "a string");
  for (size_t i = 0; i < v->workloads.size(); ++i) {
    if (v->workloads[i].outcome.empty()) {
      return Missing(where, "workloads[" + std::to_string(i) + "].outcome",
                     "\"pass\", \"fail\" or \"inconclusive\"");
    }
  }
  return v;
}

std::vector<cost::WorkloadThroughput> ValidationThroughputs(const ValidationView& v,
                                                            const std::string& where) {
  std::vector<cost::WorkloadThroughput> out;
  for (const ValidationWorkload& w : v.workloads) {
    if (!w.tokens_per_s_per_gpu) continue;
    out.push_back(
        cost::ValidatedWorkloadThroughput(w.id, *w.tokens_per_s_per_gpu, w.score, w.gpus, where));
  }
  return out;
}

}  // namespace ys::report::html
