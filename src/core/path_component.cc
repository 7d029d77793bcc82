#include "core/path_component.h"

#include <fmt/format.h>
#include <unistd.h>

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

std::string PathComponentFrom(std::string_view name, std::string_view fallback) {
  std::string out(name.substr(0, kMaxPathComponentChars));
  for (char& c : out) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == '-';
    if (!ok) c = '_';
  }
  if (!out.empty() && out[0] == '-') out[0] = '_';
  if (out.empty() || out == "." || out == "..") return std::string(fallback);
  return out;
}

std::string HostNameForPath() {
  char host[256] = {};
  ::gethostname(host, sizeof(host) - 1);
  return PathComponentFrom(host, "host");
}

}  // namespace ys
