// The memory a benchmark may size its buffers against: MemAvailable of the host's /proc/meminfo.
#ifndef YARDSTICK_BENCH_AVAILABLE_MEMORY_H_
#define YARDSTICK_BENCH_AVAILABLE_MEMORY_H_

#include <cstdint>

#include "core/status.h"
#include "host/host.h"

namespace ys::bench {

// Bytes; NotFound when /proc/meminfo or its MemAvailable line is absent or unreadable.
Result<uint64_t> AvailableMemoryBytes(const host::Host& host);

}  // namespace ys::bench

#endif  // YARDSTICK_BENCH_AVAILABLE_MEMORY_H_
