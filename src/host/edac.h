// Host error counters a burn-in watches: EDAC memory-controller counts
// (/sys/devices/system/edac/mc/mc<N>/ce_count and ue_count: corrected and uncorrected DRAM errors
// since the driver loaded) and the x86 thermal_throttle counters of each CPU
// (/sys/devices/system/cpu/cpu<N>/thermal_throttle/core_throttle_count and
// package_throttle_count: times the core or its package crossed the throttle threshold).
#ifndef YARDSTICK_HOST_EDAC_H_
#define YARDSTICK_HOST_EDAC_H_

#include <cstdint>
#include <string_view>

#include "core/status.h"
#include "host/host.h"

namespace ys::host {

// A sysfs counter file ("12\n") -> 12. Invalid naming `path` and the text otherwise.
Result<uint64_t> ParseSysfsCount(std::string_view text, std::string_view path);

struct EdacCounts {
  uint64_t ce = 0;  // corrected, summed over the controllers
  uint64_t ue = 0;  // uncorrected
  int controllers = 0;
};
// NotFound when no memory controller is registered (EDAC driver not loaded, a VM); Invalid naming
// the file when a count is malformed.
Result<EdacCounts> ReadEdacCounts(const Host& host);

// core_throttle_count + package_throttle_count of `cpu`. NotFound when the CPU has no
// thermal_throttle directory (not Intel, a VM); Invalid naming the file when malformed. A
// directory with only one of the two files counts that one.
Result<uint64_t> ReadThermalThrottleCount(const Host& host, int cpu);

}  // namespace ys::host

#endif  // YARDSTICK_HOST_EDAC_H_
