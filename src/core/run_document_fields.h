// The field lists of the run document's parts (core/run_document.h): the keys of the run document
// (schemas/run.schema.json) in the order they are written, walked by core/json_fields.h.
// Documents that embed a finding, a unit result or a diagnosis nest these lists; the run
// document's own list is in core/run_document_json.cc.
#ifndef YARDSTICK_CORE_RUN_DOCUMENT_FIELDS_H_
#define YARDSTICK_CORE_RUN_DOCUMENT_FIELDS_H_

#include <array>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <utility>
#include <vector>

#include "core/run_document.h"

namespace ys {

inline auto JsonNames(Severity) {
  return std::array{std::pair{Severity::kWarn, "warn"}, std::pair{Severity::kFail, "fail"}};
}
inline auto JsonNames(Outcome) {
  return std::array{std::pair{Outcome::kPass, "pass"}, std::pair{Outcome::kWarn, "warn"},
                    std::pair{Outcome::kFail, "fail"}, std::pair{Outcome::kSkip, "skip"},
                    std::pair{Outcome::kError, "error"}};
}
inline auto JsonNames(Better) {
  return std::array{std::pair{Better::kHigher, "higher"}, std::pair{Better::kLower, "lower"}};
}
inline auto JsonNames(Confidence) {
  return std::array{std::pair{Confidence::kLow, "low"}, std::pair{Confidence::kMedium, "medium"},
                    std::pair{Confidence::kHigh, "high"}};
}

// What the schema (core/json_schema.h) says beyond the field lists: the id and code patterns, and
// which outcomes need findings or a summary (core/run_document_schema.cc).
void JsonSchemaRefine(const Finding*, nlohmann::ordered_json& schema);
void JsonSchemaRefine(const CheckResult*, nlohmann::ordered_json& schema);
void JsonSchemaRefine(const BenchmarkResult*, nlohmann::ordered_json& schema);
void JsonSchemaRefine(const Diagnosis*, nlohmann::ordered_json& schema);

template <typename V>
void Fields(V& v, Finding& f) {
  v("code", f.code);
  v("severity", f.severity);
  v("entity", f.entity);
  v("message", f.message);
  v.defaulted("evidence", f.evidence);
  v("fix", f.fix);
  v.optional("expected_recovery", f.expected_recovery);
  v.optional("reference", f.reference);
}

template <typename V>
void Fields(V& v, CheckResult& r) {
  v("id", r.unit_id);
  v("outcome", r.outcome);
  v("summary", r.summary);
  v("duration_ms", r.duration_ms);
  v.defaulted("evidence", r.evidence);
  v.defaulted("findings", r.findings);
}

template <typename V>
void Fields(V& v, SampleStats& s) {
  v("n", s.n);
  v("min", s.min);
  v("median", s.median);
  v("max", s.max);
  v("mean", s.mean);
  v("stdev", s.stdev);
}

template <typename V>
void Fields(V& v, Measurement& m) {
  v("name", m.name);
  v("value", m.value);
  v("unit", m.unit);
  v("better", m.better);
  v.defaulted("params", m.params);
  v.defaulted("stats", m.stats);
  v.defaulted("samples", m.samples);
}

template <typename V>
void Fields(V& v, ResultTable& t) {
  v("title", t.title);
  v("columns", t.columns);
  v("rows", t.rows);
  v.defaulted("footer", t.footer);
}

template <typename V>
void Fields(V& v, BenchmarkResult& b) {
  Fields(v, static_cast<CheckResult&>(b));
  v.defaulted("measurements", b.measurements);
  v.defaulted("tables", b.tables);
}

template <typename V>
void Fields(V& v, ToolInfo& t) {
  v.defaulted("name", t.name);
  v("version", t.version);
  v.defaulted("build_type", t.build_type);
  v.defaulted("compiler", t.compiler);
}

template <typename V>
void Fields(V& v, HostInfo& h) {
  v("hostname", h.hostname);
  v("kernel", h.kernel);
  v("arch", h.arch);
  v("root", h.root);
  // Optional on reading so that older and hand-made documents still read (the HTML report
  // shows them).
  v.defaulted("cpu_model", h.cpu_model);
  v.defaulted("logical_cpus", h.logical_cpus);
  v.optional("gpu_source", h.gpu_source);
  v.optional("gpu_driver", h.gpu_driver);
}

template <typename V>
void Fields(V& v, RankStatus& r) {
  v("rank", r.rank);
  v("hostname", r.hostname);
  v("local_rank", r.local_rank);
  v("state", r.state);
  v.optional("detail", r.detail);
}

template <typename V>
void Fields(V& v, NodeReport& n) {
  v("hostname", n.hostname);
  v("ranks", n.ranks);
  v.defaulted("checks", n.checks);
  v.defaulted("benchmarks", n.benchmarks);
}

template <typename V>
void Fields(V& v, Recovery& r) {
  v("low", r.low);
  v("high", r.high);
  v("basis", r.basis);
  v.optional("estimate", r.estimate);
  v.check("", r.low >= 0 && r.high >= r.low, "0 <= low <= high");
}

template <typename V>
void Fields(V& v, Diagnosis& g) {
  v("rule", g.rule);
  v("layer", g.layer);
  v("cause", g.cause);
  v("entity", g.entity);
  v("confidence", g.confidence);
  v("recovery", g.recovery);
  v("fix", g.fix);
  v.defaulted("evidence", g.evidence);
  v.defaulted("finding_codes", g.finding_codes);
  v.optional("reference", g.reference);
}

}  // namespace ys

#endif  // YARDSTICK_CORE_RUN_DOCUMENT_FIELDS_H_
