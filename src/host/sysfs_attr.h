// Reading single-value sysfs attributes where absence is a state of its own (an older kernel, a
// driver that does not export the attribute, a VM) rather than an error. A present but malformed
// attribute is an Invalid status naming the resolved path and what was expected.
#ifndef YARDSTICK_HOST_SYSFS_ATTR_H_
#define YARDSTICK_HOST_SYSFS_ATTR_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/status.h"
#include "host/host.h"

namespace ys::host {

// First line, trimmed; nullopt when the file is absent. Other read errors are returned.
Result<std::optional<std::string>> ReadOptionalLine(const Host& host, std::string_view path);

// A decimal integer; nullopt when absent; Invalid (with the path) when not an integer.
Result<std::optional<int64_t>> ReadOptionalInt(const Host& host, std::string_view path);

// As ReadOptionalInt; `empty` says whether the file is present but empty (a copy that could not
// read it), which also gives nullopt. For attributes where empty means unknown, not malformed.
Result<std::optional<int64_t>> ReadOptionalIntOrEmpty(const Host& host, std::string_view path,
                                                      bool& empty);

// A 0/1 flag ("1\n"); nullopt when absent; Invalid (with the path) for anything else.
Result<std::optional<bool>> ReadOptionalFlag(const Host& host, std::string_view path);

// "0"/"1" (also "N"/"Y" as module parameters print booleans) -> bool; nullopt otherwise.
std::optional<bool> ParseFlag(std::string_view text);

}  // namespace ys::host

#endif  // YARDSTICK_HOST_SYSFS_ATTR_H_
