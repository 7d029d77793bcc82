// copy.d2h: device -> host copy bandwidth per GPU and per NUMA node of the pinned host memory;
// copy engine and SM kernel (bench/copy/internal/host_copy.h).
#include "bench/copy/internal/host_copy.h"
#include "bench/gpu_bench.h"

namespace ys::bench {
namespace {

class DeviceToHostBenchmark final : public Benchmark {
 public:
  BenchmarkResult Run(const BenchContext& ctx) const override {
    return RunHostCopy(ctx, HostCopyDirection::kDeviceToHost);
  }
};

}  // namespace

YS_REGISTER(
    DeviceToHostBenchmark,
    {.id = "copy.d2h",
     .summary =
         "Device-to-host copy bandwidth, pinned memory per NUMA node, copy engine and SM (GB/s)",
     .needs = {Need::kGpu},
     .codes = {kCopyDataMismatch},
     .measures = HostCopyMeasures()})

}  // namespace ys::bench
