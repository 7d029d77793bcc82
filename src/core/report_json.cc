// JSON of the run document: the field lists of core/report_fields.h (and the run document's
// own below), walked by the writer and the strict reader of core/json_fields.h.
#include "core/report_json.h"

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "core/burnin_fields.h"
#include "core/json_fields.h"
#include "core/report_fields.h"
#include "core/verdict.h"

namespace ys {

// Units per outcome, every outcome named (the document's "counts").
std::vector<std::pair<std::string, int>> OutcomeCounts(const RunDocument& d) {
  std::vector<std::pair<std::string, int>> out;
  auto counts = d.Counts();
  for (const auto& [o, name] : JsonNames(Outcome{})) {
    out.emplace_back(name, counts.count(o) ? counts.at(o) : 0);
  }
  return out;
}

template <typename V>
void Fields(V& v, RunDocument& d) {
  v("schema_version", d.schema_version);
  v.check("schema_version", d.schema_version == kRunSchemaVersion,
          std::to_string(kRunSchemaVersion) + ", got " + std::to_string(d.schema_version));
  v("command", d.command);
  v("started_at", d.started_at);
  v("duration_ms", d.duration_ms);
  v("incomplete", d.incomplete);
  v.optional("incomplete_reason", d.incomplete_reason);
  v.computed("verdict", [&] { return std::string(VerdictStateName(JudgeRun(d).state)); });
  v.computed("verdict_reason", [&] { return JudgeRun(d).reason; });
  v("tool", d.tool);
  v("host", d.host);
  v("warnings", d.warnings);
  v.computed("counts", [&] { return OutcomeCounts(d); });
  v("checks", d.checks);
  v.defaulted("measurements", d.measurements);
  v.defaulted("benchmarks", d.benchmarks);
  v.optional("ranks", d.ranks);
  v.optional("nodes", d.nodes);
  v.optional("diagnosis", d.diagnosis, d.diagnosis_ran);  // present when diagnosis ran
  v.optional("burnin", d.burnin);
}

using ojson = nlohmann::ordered_json;

std::string DumpJson(const ojson& j) {
  return j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

ojson ToJson(const Evidence& e) { return json_fields::Write(e); }
ojson ToJson(const Finding& f) { return json_fields::Write(f); }
ojson ToJson(const CheckResult& r) { return json_fields::Write(r); }
ojson ToJson(const Measurement& m) { return json_fields::Write(m); }
ojson ToJson(const ResultTable& t) { return json_fields::Write(t); }
ojson ToJson(const BenchmarkResult& r) { return json_fields::Write(r); }
ojson ToJson(const RunDocument& d) { return json_fields::Write(d); }
ojson ToJson(const Diagnosis& g) { return json_fields::Write(g); }

Result<RunDocument> RunDocumentFromJson(const nlohmann::json& j) {
  if (!j.is_object()) return Status::Invalid("run document: expected a JSON object");
  return json_fields::Parse<RunDocument>(j, "run");
}

Result<Diagnosis> DiagnosisFromJson(const nlohmann::json& j, const std::string& where) {
  return json_fields::Parse<Diagnosis>(j, where);
}

Result<CheckResult> CheckResultFromJson(const nlohmann::json& j, const std::string& where) {
  return json_fields::Parse<CheckResult>(j, where);
}

Result<BenchmarkResult> BenchmarkResultFromJson(const nlohmann::json& j, const std::string& where) {
  return json_fields::Parse<BenchmarkResult>(j, where);
}

}  // namespace ys
