// validation.json read through field lists (core/json_fields.h). The document's conventions are
// older than the lists and kept: null reads as absent wherever a value may be absent, a wrong
// value says what would do ("a number or null", "an object or null"), and "tool" is read only
// when it is an object. The adaptors below carry those conventions; the keys both sides name are
// validation_keys (core/validation_document.h).
#include "core/validation_document.h"

#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <utility>

#include "core/json_fields.h"

namespace ys {

namespace {

using json = nlohmann::json;
using json_fields::Path;
using json_fields::Reader;
using json_fields::Style;

// A number, or null for none: "<path>: expected a number or null, found ...".
struct NumberOrNull {
  std::optional<double>& x;
};
Status JsonRead(Reader*, const json& j, const Path& at, Style s, NumberOrNull& n) {
  if (j.is_null()) return Status::Ok();
  if (!j.is_number()) return json_fields::Expected(at, "a number or null", &j, s);
  n.x = j.get<double>();
  return Status::Ok();
}

// A GPU count, or null for none.
struct GpuCountOrNull {
  std::optional<int>& x;
};
Status JsonRead(Reader*, const json& j, const Path& at, Style s, GpuCountOrNull& g) {
  if (j.is_null()) return Status::Ok();
  if (!j.is_number_integer() || j.get<int64_t>() <= 0 || j.get<int64_t>() > 1000000000)
    return json_fields::Expected(at, "a whole number > 0 or null", &j, s);
  g.x = static_cast<int>(j.get<int64_t>());
  return Status::Ok();
}

// Step times in seconds, each > 0 and finite, or null for none.
struct StepTimesOrNull {
  std::vector<double>& x;
};
Status JsonRead(Reader*, const json& j, const Path& at, Style s, StepTimesOrNull& t) {
  if (j.is_null()) return Status::Ok();
  if (!j.is_array()) return json_fields::Expected(at, "an array of seconds", &j, s);
  for (size_t k = 0; k < j.size(); ++k) {
    const json& e = j[k];
    if (!e.is_number() || !(e.get<double>() > 0) || !std::isfinite(e.get<double>()))
      return json_fields::Expected(Path{&at, {}, static_cast<long>(k)},
                                   "a positive number of seconds", &e, s);
    t.x.push_back(e.get<double>());
  }
  return Status::Ok();
}

// An object read by Part's field list, or null for none; `seen` (when given) says it was there.
template <typename Part>
struct ObjectOrNull {
  Part part;
  bool* seen = nullptr;
};
template <typename Part>
Status JsonRead(Reader*, const json& j, const Path& at, Style s, ObjectOrNull<Part>& o) {
  if (j.is_null()) return Status::Ok();
  if (!j.is_object()) return json_fields::Expected(at, "an object or null", &j, s);
  if (o.seen != nullptr) *o.seen = true;
  return Reader::Read(j, at, s, o.part);
}

// An object read by Part's field list; anything else is ignored.
template <typename Part>
struct ObjectOrIgnored {
  Part part;
};
template <typename Part>
Status JsonRead(Reader*, const json& j, const Path& at, Style s, ObjectOrIgnored<Part>& o) {
  return j.is_object() ? Reader::Read(j, at, s, o.part) : Status::Ok();
}

// The rows; `seen` says they were there (not null).
struct WorkloadRows {
  std::vector<ValidationWorkload>& rows;
  bool& seen;
};
Status JsonRead(Reader*, const json& j, const Path& at, Style s, WorkloadRows& w) {
  if (j.is_null()) return Status::Ok();
  if (!j.is_array()) return json_fields::Expected(at, "an array of workload rows", &j, s);
  w.seen = true;
  w.rows.reserve(j.size());
  for (size_t i = 0; i < j.size(); ++i) {
    ValidationWorkload row;
    YS_RETURN_IF_ERROR(Reader::Read(j[i], Path{&at, {}, static_cast<long>(i)}, s, row));
    w.rows.push_back(std::move(row));
  }
  return Status::Ok();
}

constexpr char kWorkloadIdWhat[] = "the workload id as a string";
constexpr char kWorkloadRowsWhat[] = "an array of workload rows";

// A row's id (null is not one); `seen` says the key was there; `what` says what is expected.
struct RowId {
  std::string& id;
  bool& seen;
  const char* what;
};
Status JsonRead(Reader*, const json& j, const Path& at, Style s, RowId& w) {
  w.seen = true;
  if (!j.is_string()) return json_fields::Expected(at, w.what, &j, s);
  w.id = j.get<std::string>();
  return Status::Ok();
}

// For v.check: "<path>: missing, expected <what>" unless `seen`.
Status MissingUnless(bool seen, const char* what) {
  return seen ? Status::Ok() : Status::Invalid(std::string("missing, expected ") + what);
}

// A row's outcome or the verdict's state: empty (none said), "pass", "fail" or "inconclusive".
Status KnownOutcome(const std::string& name) {
  if (name.empty() || name == "pass" || name == "fail" || name == "inconclusive")
    return Status::Ok();
  return Status::Invalid(R"(expected "pass", "fail" or "inconclusive", found a string)");
}

Status ThresholdInRange(const std::optional<double>& t) {
  if (!t || (*t > 0 && *t <= 2)) return Status::Ok();
  return Status::Invalid("expected a number in (0, 2], found a number");
}

// Serving phases (phases[i]). A count of the phase's topology or load: a whole number >= min.
struct PhaseCount {
  int& x;
  int min = 0;
};
Status JsonRead(Reader*, const json& j, const Path& at, Style s, PhaseCount& c) {
  if (!j.is_number_integer() || j.get<int64_t>() < c.min || j.get<int64_t>() > 1000000000)
    return json_fields::Expected(at, "a whole number >= " + std::to_string(c.min), &j, s);
  c.x = static_cast<int>(j.get<int64_t>());
  return Status::Ok();
}

// The phase's concurrency: one point or a sweep, each a whole number > 0.
struct PhaseConcurrency {
  std::vector<int>& x;
};
Status JsonRead(Reader*, const json& j, const Path& at, Style s, PhaseConcurrency& c) {
  if (!j.is_array()) return json_fields::Expected(at, "an array of concurrencies", &j, s);
  for (size_t k = 0; k < j.size(); ++k) {
    int one = 0;
    PhaseCount count{one, 1};
    YS_RETURN_IF_ERROR(JsonRead(nullptr, j[k], Path{&at, {}, static_cast<long>(k)}, s, count));
    c.x.push_back(one);
  }
  return Status::Ok();
}

// A figure that cannot be negative (a throughput, a latency, a score), or null for none.
struct PhaseAmountOrNull {
  std::optional<double>& x;
};
Status JsonRead(Reader*, const json& j, const Path& at, Style s, PhaseAmountOrNull& a) {
  if (j.is_null()) return Status::Ok();
  if (!j.is_number() || j.get<double>() < 0)
    return json_fields::Expected(at, "a number >= 0 or null", &j, s);
  a.x = j.get<double>();
  return Status::Ok();
}

// A string, or null for none (the compared point).
struct PhaseTextOrNull {
  std::string& x;
};
Status JsonRead(Reader*, const json& j, const Path& at, Style s, PhaseTextOrNull& t) {
  if (j.is_null()) return Status::Ok();
  if (!j.is_string()) return json_fields::Expected(at, "a string or null", &j, s);
  t.x = j.get<std::string>();
  return Status::Ok();
}

// An array of rows (phases, a phase's metrics), or null for none; a row is read by its field list.
template <typename Row>
struct PhaseRows {
  std::vector<Row>& rows;
  const char* what;
};
template <typename Row>
Status JsonRead(Reader*, const json& j, const Path& at, Style s, PhaseRows<Row>& r) {
  if (j.is_null()) return Status::Ok();
  if (!j.is_array()) return json_fields::Expected(at, r.what, &j, s);
  r.rows.reserve(j.size());
  for (size_t i = 0; i < j.size(); ++i) {
    Row row;
    YS_RETURN_IF_ERROR(Reader::Read(j[i], Path{&at, {}, static_cast<long>(i)}, s, row));
    r.rows.push_back(std::move(row));
  }
  return Status::Ok();
}

// The phase as the suite defines it (phases[i].phase).
struct ValidationPhaseSpec {
  ValidationPhase& p;
};

template <typename V>
void Fields(V& v, ValidationPhaseSpec& x) {
  ValidationPhase& p = x.p;
  v.optional("phase", p.phase);
  v.optional("model", p.model);
  v.optional("precision", p.precision);
  v.optional("stack", p.stack);
  v.optional("stack_version", p.stack_version);
  v.optional("gpus", PhaseCount{p.gpus});
  v.optional("tp", PhaseCount{p.tp});
  v.optional("ep", PhaseCount{p.ep});
  v.optional("dp", PhaseCount{p.dp});
  v.optional("prefill_workers", PhaseCount{p.prefill_workers});
  v.optional("prefill_tp", PhaseCount{p.prefill_tp});
  v.optional("decode_workers", PhaseCount{p.decode_workers});
  v.optional("decode_tp", PhaseCount{p.decode_tp});
  v.optional("isl", PhaseCount{p.isl});
  v.optional("osl", PhaseCount{p.osl});
  v.optional("concurrency", PhaseConcurrency{p.concurrency});
  v.optional("requests", PhaseCount{p.requests});
  v.optional("mode", p.mode);
  v.optional("gpu_denominator", p.gpu_denominator);
}

// The reference a phase was compared with, or null (phases[i].reference).
struct PhaseReferenceOrNull {
  std::optional<ValidationPhaseReference>& x;
};
Status JsonRead(Reader*, const json& j, const Path& at, Style s, PhaseReferenceOrNull& r) {
  if (j.is_null()) return Status::Ok();
  if (!j.is_object()) return json_fields::Expected(at, "an object or null", &j, s);
  ValidationPhaseReference ref;
  YS_RETURN_IF_ERROR(Reader::Read(j, at, s, ref));
  r.x = std::move(ref);
  return Status::Ok();
}

constexpr char kPhaseIdWhat[] = "the phase id as a string";
constexpr char kPhaseOutcomeWhat[] = R"("pass", "fail" or "inconclusive")";
constexpr char kMetricNameWhat[] = "the metric's name as a string";

// A metric's key and statistic, told from its name and unit (see ValidationPhaseMetric).
void NamePhaseMetric(ValidationPhaseMetric& m) {
  if (!m.key.empty()) return;  // the document says (written since the key was added)
  if (m.unit == "tok/s/GPU") {
    m.key = "output_tokens_per_s_per_gpu";
    return;
  }
  for (const auto& [prefix, key] : {std::pair{"TTFT ", "ttft_ms"}, std::pair{"TPOT ", "tpot_ms"}}) {
    if (m.unit == "ms" && m.name.rfind(prefix, 0) == 0 && m.name.size() > 5) {
      m.key = key;
      m.stat = m.name.substr(5);
    }
  }
}

// The parts of the document whose values the flat ValidationDocument and ValidationWorkload
// hold: tool, suite, verdict, and a row's measured and reference.
struct ValidationTool {
  ValidationDocument& d;
};
struct ValidationSuite {
  ValidationDocument& d;
};
struct ValidationVerdict {
  ValidationDocument& d;
};
struct ValidationMeasured {
  ValidationWorkload& w;
};
struct ValidationReference {
  ValidationWorkload& w;
};

template <typename V>
void Fields(V& v, ValidationTool& t) {
  namespace keys = validation_keys;
  v.optional(keys::kToolVersion, t.d.tool);
}

template <typename V>
void Fields(V& v, ValidationSuite& s) {
  namespace keys = validation_keys;
  v.optional(keys::kChip, s.d.chip);
  v.optional(keys::kRecipeRelease, s.d.recipe_release);
  v.optional(keys::kThreshold, NumberOrNull{s.d.threshold});
  v.check(keys::kThreshold, ThresholdInRange(s.d.threshold));
}

template <typename V>
void Fields(V& v, ValidationVerdict& x) {
  namespace keys = validation_keys;
  v.optional(keys::kPass, x.d.pass);  // true, false or null
  v.optional(keys::kText, x.d.verdict);
  v.optional(keys::kState, x.d.state);
  v.check(keys::kState, KnownOutcome(x.d.state));
}

template <typename V>
void Fields(V& v, ValidationMeasured& m) {
  namespace keys = validation_keys;
  v.optional(keys::kTflopsPerGpu, NumberOrNull{m.w.measured_tflops_per_gpu});
  v.optional(keys::kLog, m.w.log);
}

template <typename V>
void Fields(V& v, ValidationReference& r) {
  namespace keys = validation_keys;
  v.optional(keys::kTflopsPerGpu, NumberOrNull{r.w.reference_tflops_per_gpu});
}

}  // namespace

// The field lists, in the order the reader checks them (the first problem is the one named); in
// ys, beside the structs, where argument-dependent lookup finds them.
template <typename V>
void Fields(V& v, ValidationWorkload& w) {
  namespace keys = validation_keys;
  bool has_id = false;
  v.optional(keys::kId, RowId{w.id, has_id, kWorkloadIdWhat});
  v.check(keys::kId, MissingUnless(has_id, kWorkloadIdWhat));
  v.optional(keys::kOutcome, w.outcome);
  v.check(keys::kOutcome, KnownOutcome(w.outcome));
  v.optional(keys::kReason, w.reason);
  v.optional(keys::kScore, NumberOrNull{w.score});
  v.optional(keys::kMfu, NumberOrNull{w.mfu});
  v.optional(keys::kTokensPerSPerGpu, NumberOrNull{w.tokens_per_s_per_gpu});
  v.optional(keys::kGpus, GpuCountOrNull{w.gpus});
  v.optional(keys::kStepTimesS, StepTimesOrNull{w.step_times_s});
  v.optional(keys::kMeasured, ObjectOrNull<ValidationMeasured>{{w}});
  v.optional(keys::kReference, ObjectOrNull<ValidationReference>{{w}});
}

template <typename V>
void Fields(V& v, ValidationPhaseReference& r) {
  v.optional("concurrency", PhaseCount{r.concurrency});
  v.optional("mode", r.mode);
  v.optional("gpu_denominator", r.gpu_denominator);
  v.optional("output_tokens_per_s_per_gpu", PhaseAmountOrNull{r.output_tokens_per_s_per_gpu});
  v.optional("ttft_ms", PhaseAmountOrNull{r.ttft_ms});
  v.optional("ttft_stat", r.ttft_stat);
  v.optional("tpot_ms", PhaseAmountOrNull{r.tpot_ms});
  v.optional("tpot_stat", r.tpot_stat);
  v.optional("tokens_per_s_per_user", PhaseAmountOrNull{r.tokens_per_s_per_user});
  v.optional("release", r.release);
  v.optional("kind", r.kind);
  v.optional("source", r.source);
  v.optional("date", r.date);
  v.optional("hardware", r.hardware);
  v.optional("file", r.file);
}

template <typename V>
void Fields(V& v, ValidationPhaseMetric& m) {
  bool has_name = false;
  v.optional("name", m.name, has_name);
  v.check("name", MissingUnless(has_name, kMetricNameWhat));
  v.optional("unit", m.unit);
  v.optional("key", m.key);
  v.optional("stat", m.stat);
  v.optional("larger_is_better", m.larger_is_better);
  v.optional(validation_keys::kMeasured, PhaseAmountOrNull{m.measured});
  v.optional(validation_keys::kReference, PhaseAmountOrNull{m.reference});
  v.optional(validation_keys::kScore, PhaseAmountOrNull{m.score});
  v.optional(validation_keys::kOutcome, m.outcome);
  v.check(validation_keys::kOutcome, KnownOutcome(m.outcome));
  v.optional("note", m.note);
}

template <typename V>
void Fields(V& v, ValidationPhase& p) {
  namespace keys = validation_keys;
  bool has_id = false;
  v.optional(keys::kId, RowId{p.id, has_id, kPhaseIdWhat});
  v.check(keys::kId, MissingUnless(has_id, kPhaseIdWhat));
  v.optional("phase", ObjectOrNull<ValidationPhaseSpec>{{p}});
  v.optional(keys::kOutcome, p.outcome);
  v.check(keys::kOutcome,
          p.outcome.empty() ? MissingUnless(false, kPhaseOutcomeWhat) : KnownOutcome(p.outcome));
  v.optional(keys::kReason, p.reason);
  v.optional(keys::kMetrics, PhaseRows<ValidationPhaseMetric>{p.metrics, "an array of metrics"});
  v.optional(keys::kReference, PhaseReferenceOrNull{p.reference});
  v.optional("files", p.files);
  v.optional("format", p.format);
  v.optional("point", PhaseTextOrNull{p.point});
  v.optional("refused", p.refused);
}

template <typename V>
void Fields(V& v, ValidationDocument& d) {
  namespace keys = validation_keys;
  v.optional(keys::kKind, d.kind);
  v.optional("created_at", d.created_at);  // read where present; validate does not write it
  v.optional(keys::kTool, ObjectOrIgnored<ValidationTool>{{d}});
  v.optional(keys::kSuite, ObjectOrNull<ValidationSuite>{{d}, &d.has_suite});
  v.optional(keys::kVerdict, ObjectOrNull<ValidationVerdict>{{d}});
  bool has_rows = false;
  v.optional(keys::kWorkloads, WorkloadRows{d.workloads, has_rows});
  v.check(keys::kWorkloads, MissingUnless(has_rows, kWorkloadRowsWhat));
  v.optional(keys::kPhases, PhaseRows<ValidationPhase>{d.phases, "an array of phase rows"});
}

const ValidationPhaseMetric* ValidationPhase::Metric(std::string_view key) const {
  for (const ValidationPhaseMetric& m : metrics) {
    if (m.key == key) return &m;
  }
  return nullptr;
}

bool IsValidationDocument(const nlohmann::json& j) {
  if (!j.is_object()) return false;
  auto kind = j.find(validation_keys::kKind);
  return kind != j.end() && kind->is_string() && *kind == kValidationDocumentKind;
}

Result<ValidationDocument> ValidationDocumentFromJson(const nlohmann::json& j,
                                                      const std::string& where) {
  const std::string prefix = where.empty() ? "" : where + ": ";
  if (!j.is_object()) {
    return Status::Invalid(
        prefix +
        json_fields::Expected(Path{nullptr, "(top level)"}, "an object", &j, Style{}).message());
  }
  auto d = json_fields::Parse<ValidationDocument>(j, "");
  if (!d.ok()) return Status::Invalid(prefix + d.status().message());
  for (ValidationPhase& p : d->phases) {
    for (ValidationPhaseMetric& m : p.metrics) NamePhaseMetric(m);
  }
  return d;
}

}  // namespace ys
