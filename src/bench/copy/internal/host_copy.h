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

// What copy.h2d and copy.d2h measure (core/figure_spec.h): GB/s by copy engine and SM kernel,
// a share of the PCIe link's peak.
Measures HostCopyMeasures();

}  // namespace ys::bench

#endif  // YARDSTICK_BENCH_COPY_INTERNAL_HOST_COPY_H_
