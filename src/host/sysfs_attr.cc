#include "host/sysfs_attr.h"

#include "core/text.h"

namespace ys::host {

Result<std::optional<std::string>> ReadOptionalLine(const Host& host, std::string_view path) {
  auto line = host.ReadLine(path);
  if (!line.ok()) {
    if (line.status().code() == StatusCode::kNotFound) return std::optional<std::string>();
    return line.status();
  }
  return std::optional<std::string>(std::move(*line));
}

Result<std::optional<int64_t>> ReadOptionalInt(const Host& host, std::string_view path) {
  auto v = host.ReadInt(path);
  if (!v.ok()) {
    if (v.status().code() == StatusCode::kNotFound) return std::optional<int64_t>();
    return v.status();
  }
  return std::optional<int64_t>(*v);
}

Result<std::optional<int64_t>> ReadOptionalIntOrEmpty(const Host& host, std::string_view path,
                                                      bool& empty) {
  auto line = ReadOptionalLine(host, path);
  if (!line.ok()) return line.status();
  empty = line->has_value() && (*line)->empty();
  if (empty) return std::optional<int64_t>();
  return ReadOptionalInt(host, path);
}

std::optional<bool> ParseFlag(std::string_view text) {
  std::string_view t = Trim(text);
  if (t == "1" || t == "Y") return true;
  if (t == "0" || t == "N") return false;
  return std::nullopt;
}

Result<std::optional<bool>> ReadOptionalFlag(const Host& host, std::string_view path) {
  auto line = ReadOptionalLine(host, path);
  if (!line.ok()) return line.status();
  if (!line->has_value()) return std::optional<bool>();
  auto flag = ParseFlag(**line);
  if (!flag) {
    return Status::Invalid(host.Resolve(path) + ": expected 0 or 1, got \"" +
                           (*line)->substr(0, 40) + "\"");
  }
  return std::optional<bool>(*flag);
}

}  // namespace ys::host
