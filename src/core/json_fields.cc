#include "core/json_fields.h"

#include <nlohmann/json.hpp>

#include "core/json_document.h"

namespace ys::json_fields {

std::string Path::ToString() const {
  std::string out = parent != nullptr ? parent->ToString() : std::string();
  if (index >= 0) {
    out += "[" + std::to_string(index) + "]";
  } else {
    if (parent != nullptr) out += ".";
    out += key;
  }
  return out;
}

Status Expected(const Path& at, std::string_view what, const nlohmann::json* found, Style style) {
  std::string message = at.ToString() + ": expected " + std::string(what);
  if (found != nullptr && style.name_found_type)
    message += ", found " + std::string(JsonTypePhrase(*found));
  return Status::Invalid(std::move(message));
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
