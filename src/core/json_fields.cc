#include "core/json_fields.h"

#include <nlohmann/json.hpp>

#include "core/json_document.h"

namespace ys::json_fields {

std::string Path::ToString(std::string_view separator) const {
  std::string out = parent != nullptr ? parent->ToString(separator) : std::string();
  if (index >= 0) {
    out += "[" + std::to_string(index) + "]";
  } else {
    if (parent != nullptr && !out.empty()) out += separator;
    out += key;
  }
  out += label;
  return out;
}

namespace {

std::string Where(const Path& at, Style style) {
  std::string path = at.ToString(style.key_separator);
  return style.quote_path ? "'" + path + "'" : path;
}

// say_got's kinds (Style::say_got).
const char* GotKind(const nlohmann::json& v) {
  switch (v.type()) {
    case nlohmann::json::value_t::null:
      return "null";
    case nlohmann::json::value_t::boolean:
      return "a boolean";
    case nlohmann::json::value_t::number_integer:
    case nlohmann::json::value_t::number_unsigned:
      return "an integer";
    case nlohmann::json::value_t::number_float:
      return "a number with a fraction or exponent";
    case nlohmann::json::value_t::string:
      return "a string";
    case nlohmann::json::value_t::array:
      return "an array";
    case nlohmann::json::value_t::object:
      return "an object";
    default:
      return "a value of another kind";
  }
}

}  // namespace

Status Expected(const Path& at, std::string_view what, const nlohmann::json* found, Style style) {
  std::string message = Where(at, style) + ": expected " + std::string(what);
  if (found != nullptr && style.say_got) {
    message += ", got " + std::string(GotKind(*found));
  } else if (found != nullptr && style.name_found_type) {
    message += ", found " + std::string(JsonTypePhrase(*found));
  }
  return Status::Invalid(std::move(message));
}

Status Missing(const Path& at, Style style) {
  return Status::Invalid(Where(at, style) +
                         (style.quote_path ? ": expected present" : ": missing"));
}

Status ExpectedIntegerIn(const Path& at, const std::string& min, const std::string& max,
                         const nlohmann::json& found, Style style) {
  std::string what = "an integer from " + min + " to " + max;
  if (!found.is_number_integer()) return Expected(at, what, &found, style);
  return Status::Invalid(Where(at, style) + ": expected " + what + ", got " + found.dump());
}

Status UnknownKey(const Path& at, const std::string& key,
                  const std::vector<std::string_view>& declared, Style style) {
  if (!style.unknown_key_lists_expected) {
    return Status::Invalid(Path{&at, key}.ToString() + ": unknown key");
  }
  std::string expected;
  for (std::string_view k : declared) expected += (expected.empty() ? "" : ", ") + std::string(k);
  return Status::Invalid(at.ToString(style.key_separator) + ": unknown key \"" + key +
                         "\"; expected " + expected);
}

std::string OneOf(const std::vector<std::string_view>& names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += i + 1 == names.size() ? " or " : ", ";
    out += names[i];
  }
  return out;
}

}  // namespace ys::json_fields
