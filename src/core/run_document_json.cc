// JSON of the run document: the field lists of core/run_document_fields.h (and the run document's
// own below), walked by the writer and the strict reader of core/json_fields.h.
#include "core/run_document_json.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "core/document_schemas.h"
#include "core/json_fields.h"
#include "core/json_schema.h"
#include "core/run_document_fields.h"
#include "core/run_section.h"
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

// The slot of a section another layer defines (core/run_section.h): written by the section,
// read and described by the codec registered for its key.
struct SectionSlot {
  std::shared_ptr<const RunSection>& section;
  const char* key;
  bool empty() const { return !section; }
};
template <typename W>
typename W::ojson JsonWrite(W*, const SectionSlot& slot, json_fields::Style) {
  return slot.section->ToJson();
}
template <typename R>
Status JsonRead(R*, const typename R::json& j, const json_fields::Path& at, json_fields::Style s,
                SectionSlot& slot) {
  const RunSectionCodec* codec = FindRunSection(slot.key);
  if (!codec) return Status::Invalid(at.ToString() + ": this program reads no such section");
  auto section = codec->read(j, at, s);
  if (!section.ok()) return section.status();
  slot.section = std::move(*section);
  return Status::Ok();
}
template <typename S>
typename S::ojson JsonSchema(S& walker, const SectionSlot& slot) {
  const RunSectionCodec* codec = FindRunSection(slot.key);
  return codec ? codec->schema(walker) : S::ojson::object();
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
  v.optional("burnin", SectionSlot{d.burnin, "burnin"});
}

// What the schema says beyond the field list: the version, the time's form, the verdict's names.
void JsonSchemaRefine(const RunDocument*, nlohmann::ordered_json& schema) {
  auto& p = schema["properties"];
  p["schema_version"] = {{"const", kRunSchemaVersion}};
  p["started_at"]["pattern"] = "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$";
  p["verdict"] = {{"enum", nlohmann::ordered_json::array()}};
  for (VerdictState v :
       {VerdictState::kPass, VerdictState::kWarn, VerdictState::kFail, VerdictState::kInconclusive})
    p["verdict"]["enum"].push_back(VerdictStateName(v));
  p["verdict"]["description"] =
      "the one verdict (docs/verdict.md): the exit code is 0 for pass and warn, 1 for fail, 2 "
      "for inconclusive";
  // Written by every run; absent from documents older than it, which the reader still takes.
  p["verdict_reason"]["description"] =
      "one line: what decided the verdict (written by every run; absent from documents older "
      "than it)";
  auto& required = schema["required"];
  required.erase(std::remove(required.begin(), required.end(), "verdict_reason"), required.end());
}

YS_DOCUMENT_SCHEMA("run", RunDocument, "yardstick run document",
                   "One invocation of yardstick: host facts, check outcomes with findings, "
                   "measurements, benchmark results, the diagnosis and the verdict "
                   "(core/run_document.h). schema_version changes when a field changes "
                   "meaning or is removed.");

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
