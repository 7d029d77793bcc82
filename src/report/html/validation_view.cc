#include "report/html/validation_view.h"

namespace ys::report::html {
namespace {

using json = nlohmann::json;

Status Wrong(const std::string& where, const std::string& field, const char* expected) {
  return Status::Invalid(where + ": " + field + ": expected " + expected);
}

Result<const json*> Member(const json& obj, const char* key, const std::string& where,
                           const std::string& field) {
  if (!obj.is_object() || !obj.contains(key))
    return Status::Invalid(where + ": " + field + ": missing");
  return &obj[key];
}

Status GetString(const json& obj, const char* key, const std::string& where,
                 const std::string& prefix, std::string& out) {
  auto v = Member(obj, key, where, prefix + key);
  if (!v.ok()) return v.status();
  if (!(*v)->is_string()) return Wrong(where, prefix + key, "a string");
  out = (*v)->get<std::string>();
  return Status::Ok();
}

// A number or null (absent also reads as null: older documents lack mfu).
Status GetOptionalNumber(const json& obj, const char* key, const std::string& where,
                         const std::string& prefix, std::optional<double>& out) {
  if (!obj.contains(key) || obj[key].is_null()) return Status::Ok();
  if (!obj[key].is_number()) return Wrong(where, prefix + key, "a number or null");
  out = obj[key].get<double>();
  return Status::Ok();
}

}  // namespace

bool IsValidationDocument(const nlohmann::json& j) {
  return j.is_object() && j.contains("kind") && j["kind"] == "yardstick-validation";
}

Result<ValidationView> ValidationViewFromJson(const nlohmann::json& j, const std::string& where) {
  if (!IsValidationDocument(j)) {
    return Status::Invalid(where + ": kind: expected \"yardstick-validation\"");
  }
  ValidationView v;
  auto suite = Member(j, "suite", where, "suite");
  if (!suite.ok()) return suite.status();
  if (!(*suite)->is_object()) return Wrong(where, "suite", "an object");
  YS_RETURN_IF_ERROR(GetString(**suite, "chip", where, "suite.", v.chip));
  if ((*suite)->contains("recipe_release") && (**suite)["recipe_release"].is_string()) {
    v.recipe_release = (**suite)["recipe_release"].get<std::string>();
  }
  auto threshold = Member(**suite, "threshold", where, "suite.threshold");
  if (!threshold.ok()) return threshold.status();
  if (!(*threshold)->is_number() || (*threshold)->get<double>() <= 0 ||
      (*threshold)->get<double>() > 2) {
    return Wrong(where, "suite.threshold", "a number in (0, 2]");
  }
  v.threshold = (*threshold)->get<double>();
  if (j.contains("tool") && j["tool"].is_object() && j["tool"].contains("version") &&
      j["tool"]["version"].is_string()) {
    v.tool = j["tool"]["version"].get<std::string>();
  }
  auto verdict = Member(j, "verdict", where, "verdict");
  if (!verdict.ok()) return verdict.status();
  if (!(*verdict)->is_object() || !(*verdict)->contains("pass") ||
      !(**verdict)["pass"].is_boolean()) {
    return Wrong(where, "verdict.pass", "true or false");
  }
  v.pass = (**verdict)["pass"].get<bool>();
  YS_RETURN_IF_ERROR(GetString(**verdict, "text", where, "verdict.", v.verdict));

  auto workloads = Member(j, "workloads", where, "workloads");
  if (!workloads.ok()) return workloads.status();
  if (!(*workloads)->is_array()) return Wrong(where, "workloads", "an array");
  for (size_t i = 0; i < (*workloads)->size(); ++i) {
    const json& w = (**workloads)[i];
    std::string at = "workloads[" + std::to_string(i) + "].";
    if (!w.is_object()) return Wrong(where, "workloads[" + std::to_string(i) + "]", "an object");
    ValidationWorkload row;
    YS_RETURN_IF_ERROR(GetString(w, "id", where, at, row.id));
    YS_RETURN_IF_ERROR(GetString(w, "outcome", where, at, row.outcome));
    if (row.outcome != "pass" && row.outcome != "fail") {
      return Wrong(where, at + "outcome", "\"pass\" or \"fail\"");
    }
    if (w.contains("reason") && w["reason"].is_string())
      row.reason = w["reason"].get<std::string>();
    YS_RETURN_IF_ERROR(GetOptionalNumber(w, "score", where, at, row.score));
    YS_RETURN_IF_ERROR(GetOptionalNumber(w, "mfu", where, at, row.mfu));
    YS_RETURN_IF_ERROR(
        GetOptionalNumber(w, "tokens_per_s_per_gpu", where, at, row.tokens_per_s_per_gpu));
    if (w.contains("gpus") && !w["gpus"].is_null()) {
      if (!w["gpus"].is_number_integer() || w["gpus"].get<int64_t>() <= 0 ||
          w["gpus"].get<int64_t>() > 1000000000) {
        return Wrong(where, at + "gpus", "a whole number > 0 or null");
      }
      row.gpus = static_cast<int>(w["gpus"].get<int64_t>());
    }
    if (w.contains("step_times_s") && !w["step_times_s"].is_null()) {
      if (!w["step_times_s"].is_array())
        return Wrong(where, at + "step_times_s", "an array of seconds");
      for (size_t k = 0; k < w["step_times_s"].size(); ++k) {
        const json& s = w["step_times_s"][k];
        if (!s.is_number()) {
          return Wrong(where, at + "step_times_s[" + std::to_string(k) + "]",
                       "a number of seconds");
        }
        row.step_times_s.push_back(s.get<double>());
      }
    }
    v.workloads.push_back(std::move(row));
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
