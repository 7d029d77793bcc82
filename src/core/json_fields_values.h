// Value adaptors for field lists (core/json_fields.h) that more than one document needs, each
// with its schema (core/json_schema.h). Found by argument-dependent lookup, as a document's own
// adaptors are:
//   v("kind", json_fields::Exactly<std::string>{"yardstick-burnin-checkpoint"});
//   v("version", json_fields::Exactly<int>{1});
//   v("settings", json_fields::AnyObject{c.settings});  // a JsonBox<nlohmann::json>
// Included after core/json_fields.h by the .cc files that use them (with nlohmann/json.hpp).
#ifndef YARDSTICK_CORE_JSON_FIELDS_VALUES_H_
#define YARDSTICK_CORE_JSON_FIELDS_VALUES_H_

#include <type_traits>

#include "core/json_box.h"
#include "core/json_fields.h"

namespace ys::json_fields {

// A value the layout fixes ("kind", "format", "version"): written as is; anything else read is
// "<path>: expected <the value as JSON>".
template <typename T>
struct Exactly {
  T value;
};
template <typename W, typename T>
typename W::ojson JsonWrite(W*, const Exactly<T>& c, Style) {
  return c.value;
}
template <typename S, typename T>
typename S::ojson JsonSchema(S&, const Exactly<T>& c) {
  return {{"const", c.value}};
}
template <typename R, typename T>
Status JsonRead(R*, const typename R::json& j, const Path& at, Style s, Exactly<T>& c) {
  bool same = (std::is_integral_v<T> ? j.is_number_integer() : j.is_string()) && j == c.value;
  return same ? Status::Ok() : Expected(at, typename R::json(c.value).dump(), nullptr, s);
}

// A JSON object whose contents another reader owns (a part kept as JSON in a JsonBox): written
// as is, read as any object ("<path>: expected an object").
template <typename J>
struct AnyObject {
  JsonBox<J>& box;
};
template <typename J>
AnyObject(JsonBox<J>&) -> AnyObject<J>;
template <typename W, typename J>
typename W::ojson JsonWrite(W*, const AnyObject<J>& o, Style) {
  return *std::as_const(o.box);
}
template <typename S, typename J>
typename S::ojson JsonSchema(S&, const AnyObject<J>&) {
  return {{"type", "object"}};
}
template <typename R, typename J>
Status JsonRead(R*, const typename R::json& j, const Path& at, Style s, AnyObject<J>& o) {
  if (!j.is_object()) return Expected(at, "an object", &j, s);
  o.box = J(j);
  return Status::Ok();
}

}  // namespace ys::json_fields

#endif  // YARDSTICK_CORE_JSON_FIELDS_VALUES_H_
