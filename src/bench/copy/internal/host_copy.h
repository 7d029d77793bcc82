// The body of copy.h2d and copy.d2h (one helper, two registrations): host<->device bandwidth
// of each GPU with pinned host memory placed on each NUMA node, by the copy engine
// (cuMemcpyHtoDAsync / cuMemcpyDtoHAsync) and by an SM kernel reading or writing the mapped host
// memory; nvbandwidth's method (gpu_bench.h), % of the spec's PCIe bandwidth per direction.
#ifndef YARDSTICK_BENCH_COPY_INTERNAL_HOST_COPY_H_
#define YARDSTICK_BENCH_COPY_INTERNAL_HOST_COPY_H_

#include "bench/benchmark.h"

namespace ys::bench {

enum class HostCopyDirection { kHostToDevice, kDeviceToHost };

BenchmarkResult RunHostCopy(const BenchContext& ctx, HostCopyDirection direction);

}  // namespace ys::bench

#endif  // YARDSTICK_BENCH_COPY_INTERNAL_HOST_COPY_H_
