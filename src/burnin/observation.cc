#include "burnin/observation.h"

#include <nlohmann/json.hpp>

#include "core/json_fields.h"

namespace ys::burnin {

// Every key an EntitySample's JSON may have is in its field list; anything else is an error (a
// typo or a newer writer: either way the reader must not silently drop a reading).
constexpr json_fields::Style JsonStyle(const EntitySample*) {
  return {.reject_unknown_keys = true};
}

// What was not measured is left out, not written as 0 or null.
template <typename V>
void Fields(V& v, EntitySample& s) {
  v("node", s.node);
  v("entity", s.entity);
  v.check("entity", !s.entity.empty(), "a non-empty string");
  v("kind", s.kind);
  v.optional("metric", s.metric);
  v.optional("unit", s.unit);
  v.optional("perf", s.perf);
  v.optional("foreign_share", s.foreign_share);
  v.optional("foreign_who", s.foreign_who);
  v.optional("iterations", json_fields::NonNegative{s.iterations});
  v.optional("miscompares", json_fields::NonNegative{s.miscompares});
  v.optional("miscompare_detail", s.miscompare_detail);
  v.optional("digest", s.digest);
  v.optional("load_error", s.load_error);
  v.optional("temp_c", s.temp_c);
  v.optional("clocks_event_reasons", s.clocks_event_reasons);
  v.optional("counters", s.counters);
  v.optional("events", s.events);
  v.optional("telemetry_note", s.telemetry_note);
}

// The samples travel between ranks as nlohmann::json (keys sorted).
nlohmann::json ToJson(const EntitySample& s) { return nlohmann::json(json_fields::Write(s)); }

Result<EntitySample> EntitySampleFromJson(const nlohmann::json& j, const std::string& where) {
  return json_fields::Parse<EntitySample>(j, where);
}

nlohmann::json ToJson(const std::vector<EntitySample>& samples) {
  nlohmann::json j = nlohmann::json::array();
  for (const auto& s : samples) j.push_back(ToJson(s));
  return j;
}

Result<std::vector<EntitySample>> EntitySamplesFromJson(const nlohmann::json& j,
                                                        const std::string& where) {
  return json_fields::Parse<std::vector<EntitySample>>(j, where);
}

}  // namespace ys::burnin
