#include "bench/available_memory.h"

#include "host/procfs.h"

namespace ys::bench {

Result<uint64_t> AvailableMemoryBytes(const host::Host& host) {
  auto text = host.ReadFile("/proc/meminfo");
  if (!text.ok()) return text.status();
  auto mi = host::ParseMeminfo(*text);
  if (!mi.ok() || !mi->count("MemAvailable"))
    return Status::NotFound("/proc/meminfo: no MemAvailable");
  return mi->at("MemAvailable") * 1024;
}

}  // namespace ys::bench
