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

// A row's id (null is not one); `seen` says the key was there.
struct WorkloadId {
  std::string& id;
  bool& seen;
};
Status JsonRead(Reader*, const json& j, const Path& at, Style s, WorkloadId& w) {
  w.seen = true;
  if (!j.is_string()) return json_fields::Expected(at, kWorkloadIdWhat, &j, s);
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
  v.optional(keys::kId, WorkloadId{w.id, has_id});
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
  return d;
}

}  // namespace ys
