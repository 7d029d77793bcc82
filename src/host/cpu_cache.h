// CPU caches from sysfs (/sys/devices/system/cpu/cpu<N>/cache/index<M>/{level,type,size,
// shared_cpu_list}): what STREAM needs to size its arrays past the last-level cache.
#ifndef YARDSTICK_HOST_CPU_CACHE_H_
#define YARDSTICK_HOST_CPU_CACHE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/cpu_set.h"
#include "core/status.h"
#include "host/host.h"

namespace ys::host {

// One cache instance: a level and type shared by a set of CPUs. Instances are deduplicated by
// (level, type, shared CPUs), so a 32 MiB L3 shared by 16 CPUs appears once.
struct CpuCache {
  int level = 0;
  std::string type;  // "Data", "Instruction", "Unified"
  uint64_t size_bytes = 0;
  CpuSet shared_cpus;
  bool operator==(const CpuCache&) const = default;
};

// "32768K" -> 33554432, "1M", "512" (bytes). Invalid naming the text otherwise.
Result<uint64_t> ParseCacheSize(std::string_view text);

// Every cache instance under the host root. NotFound when no CPU has cache information (some
// VMs and containers); Invalid naming the file when one is malformed.
Result<std::vector<CpuCache>> LoadCpuCaches(const Host& host);

// The summed size of the distinct last-level caches (highest level that holds data, i.e. not
// an instruction cache) serving any CPU of `cpus`: the figure McCalpin's STREAM rule multiplies
// by four. 0 when no cache serves those CPUs.
uint64_t LastLevelCacheBytes(const std::vector<CpuCache>& caches, const CpuSet& cpus);

}  // namespace ys::host

#endif  // YARDSTICK_HOST_CPU_CACHE_H_
