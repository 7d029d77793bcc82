// The running kernel's build configuration: /proc/config.gz (CONFIG_IKCONFIG_PROC, gzip) or
// /boot/config-<release> (text). Lines are "CONFIG_X=y|m|<number>|"<string>"" or
// "# CONFIG_X is not set" (reference: docs/node-checks.md §parsing).
#ifndef YARDSTICK_HOST_KERNEL_CONFIG_H_
#define YARDSTICK_HOST_KERNEL_CONFIG_H_

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "core/status.h"
#include "host/host.h"

namespace ys::host {

struct KernelConfig {
  std::string path;  // the file it came from, host-absolute
  // "CONFIG_X" -> "y", "m", "n" (from "is not set"), or the value as written (quotes kept).
  std::map<std::string, std::string, std::less<>> options;

  // The value, or nullopt when the option is not mentioned at all (a symbol the kernel lacks).
  std::optional<std::string> Get(std::string_view name) const;
  bool Enabled(std::string_view name) const;  // "y" or "m"
};

// Invalid names the line number and what was expected; a text with no CONFIG_ line is Invalid.
Result<KernelConfig> ParseKernelConfig(std::string_view text);

// Decompresses gzip data, refusing to produce more than `max_bytes` (a corrupt or hostile
// config.gz must not exhaust memory). Several members in a row are decompressed one after the
// other, as gunzip does. Invalid when the data is not complete gzip.
Result<std::string> Gunzip(std::string_view data, size_t max_bytes);

// /proc/config.gz when present, else /boot/config-<osrelease> (osrelease from
// /proc/sys/kernel/osrelease). NotFound naming both paths when neither exists; a file that is
// present but unreadable or malformed is an error naming it.
Result<KernelConfig> ReadKernelConfig(const Host& host);

}  // namespace ys::host

#endif  // YARDSTICK_HOST_KERNEL_CONFIG_H_
