#include "core/report_json.h"

#include <map>
#include <nlohmann/json.hpp>
#include <type_traits>
#include <vector>

#include "core/burnin_json.h"

namespace ys {

using ojson = nlohmann::ordered_json;

std::string DumpJson(const ojson& j) {
  return j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

ojson ToJson(const Evidence& e) {
  ojson j = ojson::object();
  for (const auto& [k, v] : e) j[k] = v;
  return j;
}

ojson ToJson(const Finding& f) {
  ojson j;
  j["code"] = f.code;
  j["severity"] = SeverityName(f.severity);
  j["entity"] = f.entity;
  j["message"] = f.message;
  j["evidence"] = ToJson(f.evidence);
  j["fix"] = f.fix;
  if (!f.expected_recovery.empty()) j["expected_recovery"] = f.expected_recovery;
  if (!f.reference.empty()) j["reference"] = f.reference;
  return j;
}

ojson ToJson(const CheckResult& r) {
  ojson j;
  j["id"] = r.unit_id;
  j["outcome"] = OutcomeName(r.outcome);
  j["summary"] = r.summary;
  j["duration_ms"] = r.duration_ms;
  j["evidence"] = ToJson(r.evidence);
  j["findings"] = ojson::array();
  for (const auto& f : r.findings) j["findings"].push_back(ToJson(f));
  return j;
}

ojson ToJson(const Measurement& m) {
  ojson j;
  j["name"] = m.name;
  j["value"] = m.value;
  j["unit"] = m.unit;
  j["better"] = m.better == Better::kHigher ? "higher" : "lower";
  j["params"] = m.params;
  j["stats"] = {{"n", m.stats.n},     {"min", m.stats.min},   {"median", m.stats.median},
                {"max", m.stats.max}, {"mean", m.stats.mean}, {"stdev", m.stats.stdev}};
  j["samples"] = m.samples;
  return j;
}

ojson ToJson(const ResultTable& t) {
  ojson j;
  j["title"] = t.title;
  j["columns"] = t.columns;
  j["rows"] = t.rows;
  j["footer"] = t.footer;
  return j;
}

ojson ToJson(const BenchmarkResult& r) {
  ojson j = ToJson(static_cast<const CheckResult&>(r));
  j["measurements"] = ojson::array();
  for (const auto& m : r.measurements) j["measurements"].push_back(ToJson(m));
  j["tables"] = ojson::array();
  for (const auto& t : r.tables) j["tables"].push_back(ToJson(t));
  return j;
}

ojson ToJson(const RunDocument& d) {
  ojson j;
  j["schema_version"] = d.schema_version;
  j["command"] = d.command;
  j["started_at"] = d.started_at;
  j["duration_ms"] = d.duration_ms;
  j["incomplete"] = d.incomplete;
  if (!d.incomplete_reason.empty()) j["incomplete_reason"] = d.incomplete_reason;
  j["verdict"] = OutcomeName(d.Verdict());
  j["tool"] = {{"name", d.tool.name},
               {"version", d.tool.version},
               {"build_type", d.tool.build_type},
               {"compiler", d.tool.compiler}};
  j["host"] = {{"hostname", d.host.hostname},   {"kernel", d.host.kernel},
               {"arch", d.host.arch},           {"root", d.host.root},
               {"cpu_model", d.host.cpu_model}, {"logical_cpus", d.host.logical_cpus}};
  if (!d.host.gpu_source.empty()) j["host"]["gpu_source"] = d.host.gpu_source;
  if (!d.host.gpu_driver.empty()) j["host"]["gpu_driver"] = d.host.gpu_driver;
  j["warnings"] = d.warnings;
  ojson counts = ojson::object();
  auto c = d.Counts();
  for (Outcome o :
       {Outcome::kPass, Outcome::kWarn, Outcome::kFail, Outcome::kSkip, Outcome::kError}) {
    counts[OutcomeName(o)] = c.count(o) ? c.at(o) : 0;
  }
  j["counts"] = counts;
  j["checks"] = ojson::array();
  for (const auto& r : d.checks) j["checks"].push_back(ToJson(r));
  j["measurements"] = ojson::array();
  for (const auto& m : d.measurements) j["measurements"].push_back(ToJson(m));
  j["benchmarks"] = ojson::array();
  for (const auto& b : d.benchmarks) j["benchmarks"].push_back(ToJson(b));
  if (!d.ranks.empty()) {
    j["ranks"] = ojson::array();
    for (const auto& r : d.ranks) {
      ojson rj = {{"rank", r.rank},
                  {"hostname", r.hostname},
                  {"local_rank", r.local_rank},
                  {"state", r.state}};
      if (!r.detail.empty()) rj["detail"] = r.detail;
      j["ranks"].push_back(rj);
    }
  }
  if (!d.nodes.empty()) {
    j["nodes"] = ojson::array();
    for (const auto& n : d.nodes) {
      ojson nj = {{"hostname", n.hostname}, {"ranks", n.ranks}};
      nj["checks"] = ojson::array();
      for (const auto& c : n.checks) nj["checks"].push_back(ToJson(c));
      nj["benchmarks"] = ojson::array();
      for (const auto& b : n.benchmarks) nj["benchmarks"].push_back(ToJson(b));
      j["nodes"].push_back(nj);
    }
  }
  if (d.diagnosis_ran) {
    j["diagnosis"] = ojson::array();
    for (const auto& g : d.diagnosis) j["diagnosis"].push_back(ToJson(g));
  }
  if (d.burnin) j["burnin"] = ToJson(*d.burnin);
  return j;
}

ojson ToJson(const Diagnosis& g) {
  ojson j;
  j["rule"] = g.rule;
  j["layer"] = g.layer;
  j["cause"] = g.cause;
  j["entity"] = g.entity;
  j["confidence"] = ConfidenceName(g.confidence);
  j["recovery"] = {{"low", g.recovery.low}, {"high", g.recovery.high}, {"basis", g.recovery.basis}};
  j["fix"] = g.fix;
  j["evidence"] = ToJson(g.evidence);
  j["finding_codes"] = g.finding_codes;
  if (!g.reference.empty()) j["reference"] = g.reference;
  return j;
}

namespace {

template <typename T>
const char* ExpectedPhrase() {
  if constexpr (std::is_same_v<T, std::string>) return "a string";
  if constexpr (std::is_same_v<T, bool>) return "true or false";
  if constexpr (std::is_arithmetic_v<T>) return "a number";
  if constexpr (std::is_same_v<T, std::vector<double>>) return "an array of numbers";
  if constexpr (std::is_same_v<T, std::map<std::string, std::string>>)
    return "an object of strings";
  return "a value of another type";
}

template <typename T>
Status Get(const nlohmann::json& j, const char* key, T* out, const std::string& where) {
  if (!j.contains(key)) return Status::Invalid(where + "." + key + ": missing");
  try {
    *out = j.at(key).get<T>();
  } catch (const nlohmann::json::exception&) {
    return Status::Invalid(where + "." + key + ": expected " + ExpectedPhrase<T>() + ", found " +
                           JsonTypePhrase(j.at(key)));
  }
  return Status::Ok();
}

Status GetEvidence(const nlohmann::json& j, Evidence* out, const std::string& where) {
  if (!j.is_object()) return Status::Invalid(where + ": expected an object");
  for (const auto& [k, v] : j.items()) {
    if (!v.is_string()) return Status::Invalid(where + "." + k + ": expected a string");
    out->emplace_back(k, v.get<std::string>());
  }
  return Status::Ok();
}

Status ParseCheckResult(const nlohmann::json& c, const std::string& where, CheckResult* r) {
  if (!c.is_object()) return Status::Invalid(where + ": expected an object");
  std::string outcome;
  YS_RETURN_IF_ERROR(Get(c, "id", &r->unit_id, where));
  YS_RETURN_IF_ERROR(Get(c, "outcome", &outcome, where));
  auto o = ParseOutcome(outcome);
  if (!o) return Status::Invalid(where + ".outcome: expected pass, warn, fail, skip or error");
  r->outcome = *o;
  YS_RETURN_IF_ERROR(Get(c, "summary", &r->summary, where));
  YS_RETURN_IF_ERROR(Get(c, "duration_ms", &r->duration_ms, where));
  if (c.contains("evidence"))
    YS_RETURN_IF_ERROR(GetEvidence(c["evidence"], &r->evidence, where + ".evidence"));
  if (c.contains("findings")) {
    int k = 0;
    for (const auto& fj : c["findings"]) {
      std::string fw = where + ".findings[" + std::to_string(k++) + "]";
      Finding f;
      std::string sev;
      YS_RETURN_IF_ERROR(Get(fj, "code", &f.code, fw));
      YS_RETURN_IF_ERROR(Get(fj, "severity", &sev, fw));
      if (sev != "warn" && sev != "fail")
        return Status::Invalid(fw + ".severity: expected warn or fail");
      f.severity = sev == "fail" ? Severity::kFail : Severity::kWarn;
      YS_RETURN_IF_ERROR(Get(fj, "entity", &f.entity, fw));
      YS_RETURN_IF_ERROR(Get(fj, "message", &f.message, fw));
      YS_RETURN_IF_ERROR(Get(fj, "fix", &f.fix, fw));
      if (fj.contains("evidence"))
        YS_RETURN_IF_ERROR(GetEvidence(fj["evidence"], &f.evidence, fw + ".evidence"));
      if (fj.contains("expected_recovery"))
        YS_RETURN_IF_ERROR(Get(fj, "expected_recovery", &f.expected_recovery, fw));
      if (fj.contains("reference")) YS_RETURN_IF_ERROR(Get(fj, "reference", &f.reference, fw));
      r->findings.push_back(std::move(f));
    }
  }
  return Status::Ok();
}

Status ParseMeasurements(const nlohmann::json& j, const std::string& where,
                         std::vector<Measurement>* out) {
  if (!j.is_array()) return Status::Invalid(where + ": expected an array");
  int i = 0;
  for (const auto& mj : j) {
    std::string mw = where + "[" + std::to_string(i++) + "]";
    Measurement m;
    std::string better;
    YS_RETURN_IF_ERROR(Get(mj, "name", &m.name, mw));
    YS_RETURN_IF_ERROR(Get(mj, "value", &m.value, mw));
    YS_RETURN_IF_ERROR(Get(mj, "unit", &m.unit, mw));
    YS_RETURN_IF_ERROR(Get(mj, "better", &better, mw));
    if (better != "higher" && better != "lower")
      return Status::Invalid(mw + ".better: expected higher or lower");
    m.better = better == "higher" ? Better::kHigher : Better::kLower;
    if (mj.contains("params")) YS_RETURN_IF_ERROR(Get(mj, "params", &m.params, mw));
    if (mj.contains("samples")) YS_RETURN_IF_ERROR(Get(mj, "samples", &m.samples, mw));
    if (mj.contains("stats")) {
      const auto& sj = mj["stats"];
      std::string sw = mw + ".stats";
      YS_RETURN_IF_ERROR(Get(sj, "n", &m.stats.n, sw));
      YS_RETURN_IF_ERROR(Get(sj, "min", &m.stats.min, sw));
      YS_RETURN_IF_ERROR(Get(sj, "median", &m.stats.median, sw));
      YS_RETURN_IF_ERROR(Get(sj, "max", &m.stats.max, sw));
      YS_RETURN_IF_ERROR(Get(sj, "mean", &m.stats.mean, sw));
      YS_RETURN_IF_ERROR(Get(sj, "stdev", &m.stats.stdev, sw));
    }
    out->push_back(std::move(m));
  }
  return Status::Ok();
}

Status ParseBenchmarks(const nlohmann::json& j, const std::string& at,
                       std::vector<BenchmarkResult>* out) {
  if (!j.is_array()) return Status::Invalid(at + ": expected an array");
  int i = 0;
  for (const auto& b : j) {
    std::string where = at + "[" + std::to_string(i++) + "]";
    BenchmarkResult r;
    YS_RETURN_IF_ERROR(ParseCheckResult(b, where, &r));
    if (b.contains("measurements")) {
      YS_RETURN_IF_ERROR(
          ParseMeasurements(b["measurements"], where + ".measurements", &r.measurements));
    }
    if (b.contains("tables")) {
      if (!b["tables"].is_array()) return Status::Invalid(where + ".tables: expected an array");
      int k = 0;
      for (const auto& tj : b["tables"]) {
        std::string tw = where + ".tables[" + std::to_string(k++) + "]";
        ResultTable t;
        YS_RETURN_IF_ERROR(Get(tj, "title", &t.title, tw));
        YS_RETURN_IF_ERROR(Get(tj, "columns", &t.columns, tw));
        YS_RETURN_IF_ERROR(Get(tj, "rows", &t.rows, tw));
        if (tj.contains("footer")) YS_RETURN_IF_ERROR(Get(tj, "footer", &t.footer, tw));
        r.tables.push_back(std::move(t));
      }
    }
    out->push_back(std::move(r));
  }
  return Status::Ok();
}

}  // namespace

Result<RunDocument> RunDocumentFromJson(const nlohmann::json& j) {
  RunDocument d;
  if (!j.is_object()) return Status::Invalid("run document: expected a JSON object");
  YS_RETURN_IF_ERROR(Get(j, "schema_version", &d.schema_version, "run"));
  if (d.schema_version != kRunSchemaVersion) {
    return Status::Invalid("run.schema_version: expected " + std::to_string(kRunSchemaVersion) +
                           ", got " + std::to_string(d.schema_version));
  }
  YS_RETURN_IF_ERROR(Get(j, "command", &d.command, "run"));
  YS_RETURN_IF_ERROR(Get(j, "started_at", &d.started_at, "run"));
  YS_RETURN_IF_ERROR(Get(j, "duration_ms", &d.duration_ms, "run"));
  YS_RETURN_IF_ERROR(Get(j, "incomplete", &d.incomplete, "run"));
  YS_RETURN_IF_ERROR(Get(j, "warnings", &d.warnings, "run"));
  if (!j.contains("host") || !j["host"].is_object()) return Status::Invalid("run.host: missing");
  const auto& h = j["host"];
  YS_RETURN_IF_ERROR(Get(h, "hostname", &d.host.hostname, "run.host"));
  YS_RETURN_IF_ERROR(Get(h, "kernel", &d.host.kernel, "run.host"));
  YS_RETURN_IF_ERROR(Get(h, "arch", &d.host.arch, "run.host"));
  YS_RETURN_IF_ERROR(Get(h, "root", &d.host.root, "run.host"));
  if (h.contains("gpu_source"))
    YS_RETURN_IF_ERROR(Get(h, "gpu_source", &d.host.gpu_source, "run.host"));
  if (h.contains("gpu_driver"))
    YS_RETURN_IF_ERROR(Get(h, "gpu_driver", &d.host.gpu_driver, "run.host"));
  if (!j.contains("tool") || !j["tool"].is_object()) return Status::Invalid("run.tool: missing");
  YS_RETURN_IF_ERROR(Get(j["tool"], "version", &d.tool.version, "run.tool"));
  // Written by ToJson; optional on reading so that older and hand-made documents still read
  // (the HTML report shows them).
  if (h.contains("cpu_model"))
    YS_RETURN_IF_ERROR(Get(h, "cpu_model", &d.host.cpu_model, "run.host"));
  if (h.contains("logical_cpus"))
    YS_RETURN_IF_ERROR(Get(h, "logical_cpus", &d.host.logical_cpus, "run.host"));
  for (auto [key, field] :
       {std::pair{"name", &d.tool.name}, std::pair{"build_type", &d.tool.build_type},
        std::pair{"compiler", &d.tool.compiler}}) {
    if (j["tool"].contains(key)) YS_RETURN_IF_ERROR(Get(j["tool"], key, field, "run.tool"));
  }
  if (!j.contains("checks") || !j["checks"].is_array())
    return Status::Invalid("run.checks: expected an array");
  int i = 0;
  for (const auto& c : j["checks"]) {
    CheckResult r;
    YS_RETURN_IF_ERROR(ParseCheckResult(c, "run.checks[" + std::to_string(i++) + "]", &r));
    d.checks.push_back(std::move(r));
  }
  if (j.contains("measurements")) {
    YS_RETURN_IF_ERROR(ParseMeasurements(j["measurements"], "run.measurements", &d.measurements));
  }
  if (j.contains("benchmarks"))
    YS_RETURN_IF_ERROR(ParseBenchmarks(j["benchmarks"], "run.benchmarks", &d.benchmarks));
  if (j.contains("incomplete_reason"))
    YS_RETURN_IF_ERROR(Get(j, "incomplete_reason", &d.incomplete_reason, "run"));
  if (j.contains("ranks")) {
    if (!j["ranks"].is_array()) return Status::Invalid("run.ranks: expected an array");
    i = 0;
    for (const auto& rj : j["ranks"]) {
      std::string where = "run.ranks[" + std::to_string(i++) + "]";
      RankStatus r;
      YS_RETURN_IF_ERROR(Get(rj, "rank", &r.rank, where));
      YS_RETURN_IF_ERROR(Get(rj, "hostname", &r.hostname, where));
      YS_RETURN_IF_ERROR(Get(rj, "local_rank", &r.local_rank, where));
      YS_RETURN_IF_ERROR(Get(rj, "state", &r.state, where));
      if (rj.contains("detail")) YS_RETURN_IF_ERROR(Get(rj, "detail", &r.detail, where));
      d.ranks.push_back(std::move(r));
    }
  }
  if (j.contains("nodes")) {
    if (!j["nodes"].is_array()) return Status::Invalid("run.nodes: expected an array");
    i = 0;
    for (const auto& nj : j["nodes"]) {
      std::string where = "run.nodes[" + std::to_string(i++) + "]";
      NodeReport n;
      YS_RETURN_IF_ERROR(Get(nj, "hostname", &n.hostname, where));
      YS_RETURN_IF_ERROR(Get(nj, "ranks", &n.ranks, where));
      if (nj.contains("checks")) {
        if (!nj["checks"].is_array()) return Status::Invalid(where + ".checks: expected an array");
        int k = 0;
        for (const auto& c : nj["checks"]) {
          CheckResult r;
          YS_RETURN_IF_ERROR(
              ParseCheckResult(c, where + ".checks[" + std::to_string(k++) + "]", &r));
          n.checks.push_back(std::move(r));
        }
      }
      if (nj.contains("benchmarks")) {
        YS_RETURN_IF_ERROR(ParseBenchmarks(nj["benchmarks"], where + ".benchmarks", &n.benchmarks));
      }
      d.nodes.push_back(std::move(n));
    }
  }
  if (j.contains("diagnosis")) {
    if (!j["diagnosis"].is_array()) return Status::Invalid("run.diagnosis: expected an array");
    d.diagnosis_ran = true;
    i = 0;
    for (const auto& gj : j["diagnosis"]) {
      auto g = DiagnosisFromJson(gj, "run.diagnosis[" + std::to_string(i++) + "]");
      if (!g.ok()) return g.status();
      d.diagnosis.push_back(std::move(*g));
    }
  }
  if (j.contains("burnin")) {
    auto b = BurninReportFromJson(j["burnin"], "run.burnin");
    if (!b.ok()) return b.status();
    d.burnin = std::make_shared<const BurninReport>(std::move(*b));
  }
  return d;
}

Result<Diagnosis> DiagnosisFromJson(const nlohmann::json& j, const std::string& where) {
  if (!j.is_object()) return Status::Invalid(where + ": expected an object");
  Diagnosis g;
  std::string confidence;
  YS_RETURN_IF_ERROR(Get(j, "rule", &g.rule, where));
  YS_RETURN_IF_ERROR(Get(j, "layer", &g.layer, where));
  YS_RETURN_IF_ERROR(Get(j, "cause", &g.cause, where));
  YS_RETURN_IF_ERROR(Get(j, "entity", &g.entity, where));
  YS_RETURN_IF_ERROR(Get(j, "confidence", &confidence, where));
  auto c = ParseConfidence(confidence);
  if (!c) return Status::Invalid(where + ".confidence: expected low, medium or high");
  g.confidence = *c;
  if (!j.contains("recovery") || !j["recovery"].is_object()) {
    return Status::Invalid(where + ".recovery: expected an object {low, high, basis}");
  }
  YS_RETURN_IF_ERROR(Get(j["recovery"], "low", &g.recovery.low, where + ".recovery"));
  YS_RETURN_IF_ERROR(Get(j["recovery"], "high", &g.recovery.high, where + ".recovery"));
  YS_RETURN_IF_ERROR(Get(j["recovery"], "basis", &g.recovery.basis, where + ".recovery"));
  if (g.recovery.low < 0 || g.recovery.high < g.recovery.low) {
    return Status::Invalid(where + ".recovery: expected 0 <= low <= high");
  }
  YS_RETURN_IF_ERROR(Get(j, "fix", &g.fix, where));
  if (j.contains("evidence"))
    YS_RETURN_IF_ERROR(GetEvidence(j["evidence"], &g.evidence, where + ".evidence"));
  if (j.contains("finding_codes"))
    YS_RETURN_IF_ERROR(Get(j, "finding_codes", &g.finding_codes, where));
  if (j.contains("reference")) YS_RETURN_IF_ERROR(Get(j, "reference", &g.reference, where));
  return g;
}

Result<CheckResult> CheckResultFromJson(const nlohmann::json& j, const std::string& where) {
  CheckResult r;
  YS_RETURN_IF_ERROR(ParseCheckResult(j, where, &r));
  return r;
}

Result<BenchmarkResult> BenchmarkResultFromJson(const nlohmann::json& j, const std::string& where) {
  std::vector<BenchmarkResult> one;
  YS_RETURN_IF_ERROR(ParseBenchmarks(nlohmann::json::array({j}), where, &one));
  return std::move(one.front());
}

}  // namespace ys
