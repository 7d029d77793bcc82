#include "core/path_component.h"

#include <fmt/format.h>

#include "core/text.h"

namespace ys {

bool IsSafePathComponent(std::string_view v) {
  if (v.empty() || v.size() > kMaxPathComponentChars || v[0] == '-' || v == "." || v == "..")
    return false;
  for (char c : v) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

Status ValidatePathComponent(std::string_view what, std::string_view value) {
  if (IsSafePathComponent(value)) return Status::Ok();
  std::string shown = SanitizeForDisplay(value.substr(0, 80));
  if (value.size() > 80) shown += "...";
  return Status::Invalid(
      fmt::format("{} '{}': expected a name of 1 to {} characters of [A-Za-z0-9._-], not "
                  "starting with '-' and not '.' or '..' (it becomes a file name)",
                  what, shown, kMaxPathComponentChars));
}

}  // namespace ys
