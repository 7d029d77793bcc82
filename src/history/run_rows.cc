#include "history/run_rows.h"

#include <unistd.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

#include "core/figure_spec.h"
#include "core/run_document_json.h"
#include "core/validation_document.h"
#include "core/verdict.h"

namespace ys::history {
namespace {

bool IsDerivedParam(const std::string& k) {
  return k == "pct_of_peak" || k == "best" || k == "hbm_traffic_gb_per_s" ||
         k.rfind("peak", 0) == 0;
}

MeasurementRow RowOf(const Measurement& m, const std::string& node) {
  MeasurementRow r{m.name,   IdentityParamsOf(m), node, m.value, m.unit, m.better, m.stats,
                   m.samples};
  // Some units fill samples but not stats; the stored spread must match the samples.
  if (r.stats.n == 0 && !r.samples.empty()) r.stats = ComputeStats(r.samples);
  return r;
}

void AddAll(const std::vector<BenchmarkResult>& benchmarks, const std::string& node,
            std::vector<MeasurementRow>& out) {
  for (const BenchmarkResult& b : benchmarks) {
    for (const Measurement& m : b.measurements) out.push_back(RowOf(m, node));
  }
}

std::string LocalHostName() {
  char host[256] = {};
  ::gethostname(host, sizeof(host) - 1);
  return host;
}

// The validation document as stored in its history row: whole when it is small (a real one is a
// few kB to a few MB), else a note of its size: a row never holds an arbitrarily large document.
constexpr size_t kMaxStoredDocumentBytes = size_t{8} << 20;

std::string StoredDocument(const nlohmann::json& doc) {
  std::string text = doc.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (text.size() <= kMaxStoredDocumentBytes) return text;
  nlohmann::json stub = {
      {"kind", "yardstick-validation"},
      {"stored", "not stored: " + std::to_string(text.size()) + " bytes, over the " +
                     std::to_string(kMaxStoredDocumentBytes) + "-byte limit of a history row"}};
  return stub.dump();
}

}  // namespace

std::string IdentityParams(const std::map<std::string, std::string>& params) {
  nlohmann::json j = nlohmann::json::object();  // nlohmann::json keeps keys sorted
  for (const auto& [k, v] : params) {
    if (!IsDerivedParam(k)) j[k] = v;
  }
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string IdentityParamsOf(const Measurement& m) {
  auto d = FindFigure(m.name);
  if (!d || d->measures->identity.empty()) return IdentityParams(m.params);
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [k, v] : m.params) {
    if (d->measures->IsIdentity(k)) j[k] = v;
  }
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string DisplayParams(const std::string& identity_params) {
  nlohmann::json j = nlohmann::json::parse(identity_params, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return identity_params;
  std::string out;
  for (const auto& [k, v] : j.items()) {
    if (!out.empty()) out += " ";
    out += k + "=" + (v.is_string() ? v.get<std::string>() : v.dump());
  }
  return out;
}

std::string HostsOf(const RunDocument& doc) {
  std::set<std::string> hosts;
  for (const NodeReport& n : doc.nodes) hosts.insert(n.hostname);
  if (hosts.empty()) return doc.host.hostname;
  std::string out;
  for (const std::string& h : hosts) out += (out.empty() ? "" : ",") + h;
  return out;
}

std::string RecordedSourceOf(const RunDocument& doc) {
  std::string out;
  if (!doc.host.root.empty() && doc.host.root != "/") out = "root=" + doc.host.root;
  constexpr std::string_view kRecorded = "recorded: ";
  if (doc.host.gpu_source.starts_with(kRecorded)) {
    out +=
        (out.empty() ? "" : " ") + ("nvml-state=" + doc.host.gpu_source.substr(kRecorded.size()));
  }
  return out;
}

DocumentRows RowsFromRunDocument(const RunDocument& doc) {
  DocumentRows d;
  d.run.started_at = doc.started_at;
  d.run.command = doc.command;
  d.run.host = doc.host.hostname;
  d.run.hosts = HostsOf(doc);
  d.run.recorded = RecordedSourceOf(doc);
  d.run.verdict = doc.incomplete ? "incomplete" : VerdictStateName(JudgeRun(doc).state);
  d.run.document_json = DumpJson(ToJson(doc));
  for (const Measurement& m : doc.measurements) d.measurements.push_back(RowOf(m, ""));
  AddAll(doc.benchmarks, "", d.measurements);
  if (doc.nodes.size() > 1) {
    for (const NodeReport& n : doc.nodes) AddAll(n.benchmarks, n.hostname, d.measurements);
  } else {
    for (const NodeReport& n : doc.nodes) AddAll(n.benchmarks, "", d.measurements);
  }
  return d;
}

Result<DocumentRows> RowsFromValidationDocument(const nlohmann::json& doc,
                                                const std::string& host) {
  auto v = ValidationDocumentFromJson(doc, "");
  if (!v.ok()) return v.status();
  if (!v->pass) return Status::Invalid("verdict.pass: missing, expected true or false");
  DocumentRows d;
  d.run.command = "validate";
  d.run.host = host;
  d.run.hosts = host;
  d.run.started_at = v->created_at.empty() ? UtcNowIso8601() : v->created_at;
  d.run.verdict = !v->state.empty() ? v->state : *v->pass ? "pass" : "fail";
  d.run.document_json = StoredDocument(doc);
  for (const ValidationWorkload& w : v->workloads) {
    std::map<std::string, std::string> params = {{"workload", w.id}};
    auto add = [&](const std::optional<double>& value, const char* name, const char* unit,
                   Better better) {
      if (value)
        d.measurements.push_back({name, IdentityParams(params), "", *value, unit, better, {}, {}});
    };
    add(w.score, "validate.score", "ratio", Better::kHigher);
    add(w.mfu, "validate.mfu", "ratio", Better::kHigher);
    add(w.tokens_per_s_per_gpu, "validate.tokens_per_s_per_gpu", "tokens/s", Better::kHigher);
    if (!w.step_times_s.empty()) {
      SampleStats st = ComputeStats(w.step_times_s);
      d.measurements.push_back({"validate.step_time", IdentityParams(params), "", st.median, "s",
                                Better::kLower, st, w.step_times_s});
    }
  }
  return d;
}

Result<DocumentRows> RowsFromInput(const RunInput& in) {
  if (in.validation) {
    auto rows = RowsFromValidationDocument(*in.validation, LocalHostName());
    if (!rows.ok()) return Status::Invalid(in.validation_path + ": " + rows.status().message());
    return rows;
  }
  if (in.run) return RowsFromRunDocument(*in.run);
  return Status::Internal("no document to read rows from");
}

Result<DocumentRows> RowsFromFile(const std::string& path) {
  auto in = ReadRunInput(path);
  if (!in.ok()) return in.status();
  return RowsFromInput(*in);
}

}  // namespace ys::history
