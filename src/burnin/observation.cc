#include "burnin/observation.h"

#include <cmath>
#include <nlohmann/json.hpp>
#include <set>

namespace ys::burnin {
namespace {

// Every key an EntitySample's JSON may have; anything else is an error (a typo or a newer
// writer: either way the reader must not silently drop a reading).
const std::set<std::string>& KnownKeys() {
  static const std::set<std::string> kKeys = {"node",
                                              "entity",
                                              "kind",
                                              "metric",
                                              "unit",
                                              "perf",
                                              "iterations",
                                              "miscompares",
                                              "miscompare_detail",
                                              "digest",
                                              "load_error",
                                              "temp_c",
                                              "clocks_event_reasons",
                                              "counters",
                                              "events",
                                              "telemetry_note"};
  return kKeys;
}

const char* TypeName(const nlohmann::json& v) { return v.type_name(); }

Status GetString(const nlohmann::json& j, const char* key, bool required, std::string* out,
                 const std::string& where) {
  auto it = j.find(key);
  if (it == j.end()) {
    return required ? Status::Invalid(where + "." + key + ": missing") : Status::Ok();
  }
  if (!it->is_string()) {
    return Status::Invalid(where + "." + key + ": expected a string, got " + TypeName(*it));
  }
  *out = it->get<std::string>();
  return Status::Ok();
}

Status GetCount(const nlohmann::json& j, const char* key, int64_t* out, const std::string& where) {
  auto it = j.find(key);
  if (it == j.end()) return Status::Ok();
  if (!it->is_number_integer() || it->get<int64_t>() < 0) {
    return Status::Invalid(where + "." + key + ": expected an integer >= 0, got " +
                           (it->is_number() ? it->dump() : std::string(TypeName(*it))));
  }
  *out = it->get<int64_t>();
  return Status::Ok();
}

Status GetDouble(const nlohmann::json& j, const char* key, std::optional<double>* out,
                 const std::string& where) {
  auto it = j.find(key);
  if (it == j.end()) return Status::Ok();
  if (!it->is_number()) {
    return Status::Invalid(where + "." + key + ": expected a number, got " + TypeName(*it));
  }
  *out = it->get<double>();
  return Status::Ok();
}

Status GetUnsigned(const nlohmann::json& v, uint64_t* out, const std::string& where) {
  if (!v.is_number_unsigned()) {
    return Status::Invalid(where + ": expected an integer >= 0, got " +
                           (v.is_number() ? v.dump() : std::string(TypeName(v))));
  }
  *out = v.get<uint64_t>();
  return Status::Ok();
}

}  // namespace

nlohmann::json ToJson(const EntitySample& s) {
  nlohmann::json j = {{"node", s.node}, {"entity", s.entity}, {"kind", s.kind}};
  if (!s.metric.empty()) j["metric"] = s.metric;
  if (!s.unit.empty()) j["unit"] = s.unit;
  if (s.perf && std::isfinite(*s.perf)) j["perf"] = *s.perf;
  if (s.iterations != 0) j["iterations"] = s.iterations;
  if (s.miscompares != 0) j["miscompares"] = s.miscompares;
  if (!s.miscompare_detail.empty()) j["miscompare_detail"] = s.miscompare_detail;
  if (!s.digest.empty()) j["digest"] = s.digest;
  if (!s.load_error.empty()) j["load_error"] = s.load_error;
  if (s.temp_c && std::isfinite(*s.temp_c)) j["temp_c"] = *s.temp_c;
  if (s.clocks_event_reasons) j["clocks_event_reasons"] = *s.clocks_event_reasons;
  if (!s.counters.empty()) j["counters"] = s.counters;
  if (!s.events.empty()) j["events"] = s.events;
  if (!s.telemetry_note.empty()) j["telemetry_note"] = s.telemetry_note;
  return j;
}

Result<EntitySample> EntitySampleFromJson(const nlohmann::json& j, const std::string& where) {
  if (!j.is_object()) {
    return Status::Invalid(where + ": expected an object, got " + TypeName(j));
  }
  for (const auto& [key, value] : j.items()) {
    if (!KnownKeys().contains(key)) return Status::Invalid(where + "." + key + ": unknown key");
  }
  EntitySample s;
  YS_RETURN_IF_ERROR(GetString(j, "node", true, &s.node, where));
  YS_RETURN_IF_ERROR(GetString(j, "entity", true, &s.entity, where));
  YS_RETURN_IF_ERROR(GetString(j, "kind", true, &s.kind, where));
  if (s.entity.empty()) return Status::Invalid(where + ".entity: empty");
  YS_RETURN_IF_ERROR(GetString(j, "metric", false, &s.metric, where));
  YS_RETURN_IF_ERROR(GetString(j, "unit", false, &s.unit, where));
  YS_RETURN_IF_ERROR(GetDouble(j, "perf", &s.perf, where));
  YS_RETURN_IF_ERROR(GetCount(j, "iterations", &s.iterations, where));
  YS_RETURN_IF_ERROR(GetCount(j, "miscompares", &s.miscompares, where));
  YS_RETURN_IF_ERROR(GetString(j, "miscompare_detail", false, &s.miscompare_detail, where));
  YS_RETURN_IF_ERROR(GetString(j, "digest", false, &s.digest, where));
  YS_RETURN_IF_ERROR(GetString(j, "load_error", false, &s.load_error, where));
  YS_RETURN_IF_ERROR(GetDouble(j, "temp_c", &s.temp_c, where));
  if (auto it = j.find("clocks_event_reasons"); it != j.end()) {
    uint64_t bits = 0;
    YS_RETURN_IF_ERROR(GetUnsigned(*it, &bits, where + ".clocks_event_reasons"));
    s.clocks_event_reasons = bits;
  }
  if (auto it = j.find("counters"); it != j.end()) {
    if (!it->is_object()) {
      return Status::Invalid(where + ".counters: expected an object, got " + TypeName(*it));
    }
    for (const auto& [name, value] : it->items()) {
      uint64_t n = 0;
      YS_RETURN_IF_ERROR(GetUnsigned(value, &n, where + ".counters." + name));
      s.counters[name] = n;
    }
  }
  if (auto it = j.find("events"); it != j.end()) {
    if (!it->is_array()) {
      return Status::Invalid(where + ".events: expected an array, got " + TypeName(*it));
    }
    for (size_t i = 0; i < it->size(); ++i) {
      const auto& e = (*it)[i];
      if (!e.is_string()) {
        return Status::Invalid(where + ".events[" + std::to_string(i) +
                               "]: expected a string, got " + TypeName(e));
      }
      s.events.push_back(e.get<std::string>());
    }
  }
  YS_RETURN_IF_ERROR(GetString(j, "telemetry_note", false, &s.telemetry_note, where));
  return s;
}

nlohmann::json ToJson(const std::vector<EntitySample>& samples) {
  nlohmann::json j = nlohmann::json::array();
  for (const auto& s : samples) j.push_back(ToJson(s));
  return j;
}

Result<std::vector<EntitySample>> EntitySamplesFromJson(const nlohmann::json& j,
                                                        const std::string& where) {
  if (!j.is_array()) return Status::Invalid(where + ": expected an array, got " + TypeName(j));
  std::vector<EntitySample> out;
  out.reserve(j.size());
  for (size_t i = 0; i < j.size(); ++i) {
    auto s = EntitySampleFromJson(j[i], where + "[" + std::to_string(i) + "]");
    if (!s.ok()) return s.status();
    out.push_back(std::move(*s));
  }
  return out;
}

}  // namespace ys::burnin
