#include "validate/scorecard_json.h"

#include <cmath>
#include <nlohmann/json.hpp>
#include <set>

#include "core/build_info.h"
#include "core/json_document.h"
#include "workloads/step_time_json.h"

namespace ys::validate {

using ojson = nlohmann::ordered_json;

namespace {

template <typename T>
ojson OptJson(const std::optional<T>& v) {
  return v ? ojson(*v) : ojson(nullptr);
}

ojson ReferenceJson(const Reference& r) {
  return {{"step_time_s", r.step_time_s},      {"tflops_per_gpu", OptJson(r.tflops_per_gpu)},
          {"release", r.provenance.release},   {"kind", r.provenance.kind},
          {"source", r.provenance.source},     {"date", r.provenance.date},
          {"hardware", r.provenance.hardware}, {"software", r.provenance.software},
          {"made_by", r.provenance.made_by},   {"file", r.file},
          {"inconsistent", r.inconsistent},    {"path", r.provenance.path}};
}

ojson MeasuredJson(const Measured& m) {
  return {{"status", m.status},
          {"reason", m.reason},
          {"log", m.log_path},
          {"window_samples", m.window_samples},
          {"step_time_mean_s", m.step_time_mean_s},
          {"step_time_stdev_s", m.step_time_stdev_s},
          {"tflops_per_gpu", OptJson(m.tflops_per_gpu)}};
}

}  // namespace

ojson ToJson(const Suite& suite, const Scorecard& card) {
  ojson j;
  j["schema_version"] = kValidationSchemaVersion;
  j["kind"] = "yardstick-validation";
  j["tool"] = {{"name", "yardstick"},
               {"version", std::string(kVersion) + " (" + kGitDescribe + ")"}};
  j["suite"] = {{"chip", suite.chip},
                {"recipe_release", suite.recipe_release},
                {"threshold", suite.threshold},
                {"rule", suite.rule},
                {"window", {suite.window_first, suite.window_last}},
                {"source", suite.source}};
  j["workloads"] = ojson::array();
  for (const auto& row : card.rows) {
    const auto& w = row.workload;
    ojson r = {
        {"id", w.id},          {"model", w.model},
        {"size", w.size},      {"dtype", w.dtype},
        {"gpus", w.gpus},      {"seq_len", w.seq_len},
        {"gbs", w.gbs},        {"outcome", row.outcome == RowOutcome::kPass ? "pass" : "fail"},
        {"reason", row.reason}};
    r["measured"] = row.measured ? MeasuredJson(*row.measured) : ojson(nullptr);
    r["reference"] = row.reference ? ReferenceJson(*row.reference) : ojson(nullptr);
    r["score"] = OptJson(row.score);
    r["tokens_per_s_per_gpu"] = OptJson(row.tokens_per_s_per_gpu);
    r["mfu"] = OptJson(row.mfu);
    // Step times after warm-up and what they say (workloads/step_time.h); null when the log has
    // fewer than the analysis needs.
    r["step_times_first_step"] =
        row.measured ? ojson(row.measured->step_times_first_step) : ojson(nullptr);
    r["step_times_s"] = row.measured ? ojson(row.measured->step_times_s) : ojson::array();
    r["step_time_analysis"] = nullptr;
    if (row.measured) {
      if (auto a = workloads::AnalyzeStepTimes(row.measured->step_times_s); a.ok()) {
        r["step_time_analysis"] = workloads::ToJson(*a);
      }
    }
    j["workloads"].push_back(std::move(r));
  }
  j["verdict"] = {{"pass", card.pass}, {"text", card.verdict}};
  return j;
}

namespace {

void Diff(const nlohmann::json& a, const nlohmann::json& b, const std::string& where,
          std::vector<std::string>& out) {
  static const std::set<std::string> kIgnored = {"tool", "created_at", "log", "path"};
  if (a.is_number() && b.is_number()) {
    double x = a.get<double>(), y = b.get<double>();
    double scale = std::max({std::fabs(x), std::fabs(y), 1e-300});
    if (std::fabs(x - y) / scale > 1e-9)
      out.push_back(where + ": claimed " + JsonForMessage(a) + ", recomputed " + JsonForMessage(b));
    return;
  }
  if (a.type() != b.type()) {
    out.push_back(where + ": claimed " + JsonForMessage(a) + ", recomputed " + JsonForMessage(b));
    return;
  }
  if (a.is_object()) {
    std::set<std::string> keys;
    for (const auto& [k, v] : a.items()) keys.insert(k);
    for (const auto& [k, v] : b.items()) keys.insert(k);
    for (const auto& k : keys) {
      if (kIgnored.count(k)) continue;
      std::string w = where.empty() ? k : where + "." + k;
      if (!a.contains(k)) {
        out.push_back(w + ": missing from the claimed document");
      } else if (!b.contains(k)) {
        out.push_back(w + ": not in the recomputed document");
      } else {
        Diff(a[k], b[k], w, out);
      }
    }
    return;
  }
  if (a.is_array()) {
    if (a.size() != b.size()) {
      out.push_back(where + ": claimed " + std::to_string(a.size()) + " entries, recomputed " +
                    std::to_string(b.size()));
      return;
    }
    for (size_t i = 0; i < a.size(); ++i) {
      std::string w = where + "[" + std::to_string(i) + "]";
      if (a[i].is_object() && a[i].contains("id"))
        w = where + "[" + JsonForMessage(a[i]["id"]) + "]";
      Diff(a[i], b[i], w, out);
    }
    return;
  }
  if (a != b)
    out.push_back(where + ": claimed " + JsonForMessage(a) + ", recomputed " + JsonForMessage(b));
}

}  // namespace

std::vector<std::string> CompareValidation(const nlohmann::json& claimed,
                                           const nlohmann::json& recomputed) {
  std::vector<std::string> out;
  Diff(claimed, recomputed, "", out);
  return out;
}

}  // namespace ys::validate
