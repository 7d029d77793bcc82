#include "core/validation_document.h"

#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>

#include "core/json_document.h"

namespace ys {

namespace {

using json = nlohmann::json;

// Reads fields of one document, naming each from the root in messages.
class FieldReader {
 public:
  explicit FieldReader(const std::string& where) : where_(where) {}

  Status Bad(const std::string& field, const char* expected, const json& found) const {
    return Status::Invalid((where_.empty() ? "" : where_ + ": ") + field + ": expected " +
                           expected + ", found " + JsonTypePhrase(found));
  }
  Status Missing(const std::string& field, const char* expected) const {
    return Status::Invalid((where_.empty() ? "" : where_ + ": ") + field + ": missing, expected " +
                           expected);
  }

  // The member `key` of `obj`, or nullptr when absent (null counts as absent when `null_ok`).
  static const json* Find(const json& obj, const char* key, bool null_ok = true) {
    auto it = obj.find(key);
    if (it == obj.end() || (null_ok && it->is_null())) return nullptr;
    return &*it;
  }

  Status String(const json& obj, const char* key, const std::string& at, std::string* out) const {
    const json* v = Find(obj, key, /*null_ok=*/false);
    if (v == nullptr) return Status::Ok();
    if (!v->is_string()) return Bad(at + key, "a string", *v);
    *out = v->get<std::string>();
    return Status::Ok();
  }
  Status Number(const json& obj, const char* key, const std::string& at,
                std::optional<double>* out) const {
    const json* v = Find(obj, key);
    if (v == nullptr) return Status::Ok();
    if (!v->is_number()) return Bad(at + key, "a number or null", *v);
    *out = v->get<double>();
    return Status::Ok();
  }
  // An object member that may be absent or null.
  Result<const json*> Object(const json& obj, const char* key, const std::string& at) const {
    const json* v = Find(obj, key);
    if (v != nullptr && !v->is_object()) return Bad(at + key, "an object or null", *v);
    return v;
  }

 private:
  const std::string& where_;
};

Status ReadRow(const FieldReader& r, const json& w, const std::string& at,
               ValidationWorkload* row) {
  if (!w.is_object()) return r.Bad(at, "an object", w);
  const std::string dot = at + ".";
  const json* id = FieldReader::Find(w, "id", /*null_ok=*/false);
  if (id == nullptr) return r.Missing(dot + "id", "the workload id as a string");
  if (!id->is_string()) return r.Bad(dot + "id", "the workload id as a string", *id);
  row->id = id->get<std::string>();
  YS_RETURN_IF_ERROR(r.String(w, "outcome", dot, &row->outcome));
  if (!row->outcome.empty() && row->outcome != "pass" && row->outcome != "fail" &&
      row->outcome != "inconclusive") {
    return r.Bad(dot + "outcome", "\"pass\", \"fail\" or \"inconclusive\"", w["outcome"]);
  }
  YS_RETURN_IF_ERROR(r.String(w, "reason", dot, &row->reason));
  YS_RETURN_IF_ERROR(r.Number(w, "score", dot, &row->score));
  YS_RETURN_IF_ERROR(r.Number(w, "mfu", dot, &row->mfu));
  YS_RETURN_IF_ERROR(r.Number(w, "tokens_per_s_per_gpu", dot, &row->tokens_per_s_per_gpu));
  if (const json* g = FieldReader::Find(w, "gpus")) {
    if (!g->is_number_integer() || g->get<int64_t>() <= 0 || g->get<int64_t>() > 1000000000) {
      return r.Bad(dot + "gpus", "a whole number > 0 or null", *g);
    }
    row->gpus = static_cast<int>(g->get<int64_t>());
  }
  if (const json* st = FieldReader::Find(w, "step_times_s")) {
    if (!st->is_array()) return r.Bad(dot + "step_times_s", "an array of seconds", *st);
    for (size_t k = 0; k < st->size(); ++k) {
      const json& s = (*st)[k];
      if (!s.is_number() || !(s.get<double>() > 0) || !std::isfinite(s.get<double>())) {
        return r.Bad(dot + "step_times_s[" + std::to_string(k) + "]",
                     "a positive number of seconds", s);
      }
      row->step_times_s.push_back(s.get<double>());
    }
  }
  for (auto [key, dest] : {std::pair{"measured", &row->measured_tflops_per_gpu},
                           std::pair{"reference", &row->reference_tflops_per_gpu}}) {
    auto part = r.Object(w, key, dot);
    if (!part.ok()) return part.status();
    if (*part == nullptr) continue;
    const std::string sub = dot + key + ".";
    YS_RETURN_IF_ERROR(r.Number(**part, "tflops_per_gpu", sub, dest));
    if (std::string(key) == "measured") YS_RETURN_IF_ERROR(r.String(**part, "log", sub, &row->log));
  }
  return Status::Ok();
}

}  // namespace

bool IsValidationDocument(const nlohmann::json& j) {
  if (!j.is_object()) return false;
  auto kind = j.find("kind");
  return kind != j.end() && kind->is_string() && *kind == kValidationDocumentKind;
}

Result<ValidationDocument> ValidationDocumentFromJson(const nlohmann::json& j,
                                                      const std::string& where) {
  FieldReader r(where);
  if (!j.is_object()) return r.Bad("(top level)", "an object", j);
  ValidationDocument d;
  YS_RETURN_IF_ERROR(r.String(j, "kind", "", &d.kind));
  YS_RETURN_IF_ERROR(r.String(j, "created_at", "", &d.created_at));
  if (const json* tool = FieldReader::Find(j, "tool"); tool != nullptr && tool->is_object()) {
    YS_RETURN_IF_ERROR(r.String(*tool, "version", "tool.", &d.tool));
  }
  auto suite = r.Object(j, "suite", "");
  if (!suite.ok()) return suite.status();
  if (*suite != nullptr) {
    d.has_suite = true;
    YS_RETURN_IF_ERROR(r.String(**suite, "chip", "suite.", &d.chip));
    YS_RETURN_IF_ERROR(r.String(**suite, "recipe_release", "suite.", &d.recipe_release));
    YS_RETURN_IF_ERROR(r.Number(**suite, "threshold", "suite.", &d.threshold));
    if (d.threshold && !(*d.threshold > 0 && *d.threshold <= 2)) {
      return r.Bad("suite.threshold", "a number in (0, 2]", (**suite)["threshold"]);
    }
  }
  auto verdict = r.Object(j, "verdict", "");
  if (!verdict.ok()) return verdict.status();
  if (*verdict != nullptr) {
    if (const json* pass = FieldReader::Find(**verdict, "pass")) {
      if (!pass->is_boolean()) return r.Bad("verdict.pass", "true or false", *pass);
      d.pass = pass->get<bool>();
    }
    YS_RETURN_IF_ERROR(r.String(**verdict, "text", "verdict.", &d.verdict));
    YS_RETURN_IF_ERROR(r.String(**verdict, "state", "verdict.", &d.state));
    if (!d.state.empty() && d.state != "pass" && d.state != "fail" && d.state != "inconclusive") {
      return r.Bad("verdict.state", "\"pass\", \"fail\" or \"inconclusive\"", (**verdict)["state"]);
    }
  }
  const json* workloads = FieldReader::Find(j, "workloads");
  if (workloads == nullptr) return r.Missing("workloads", "an array of workload rows");
  if (!workloads->is_array()) return r.Bad("workloads", "an array of workload rows", *workloads);
  d.workloads.reserve(workloads->size());
  for (size_t i = 0; i < workloads->size(); ++i) {
    ValidationWorkload row;
    YS_RETURN_IF_ERROR(ReadRow(r, (*workloads)[i], "workloads[" + std::to_string(i) + "]", &row));
    d.workloads.push_back(std::move(row));
  }
  return d;
}

}  // namespace ys
