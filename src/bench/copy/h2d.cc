// copy.h2d: host -> device copy bandwidth per GPU and per NUMA node of the pinned host memory;
// copy engine and SM kernel (bench/copy/internal/host_copy.h).
#include "bench/copy/internal/host_copy.h"
#include "bench/gpu_bench.h"

namespace ys::bench {
namespace {

class HostToDeviceBenchmark final : public Benchmark {
 public:
  BenchmarkResult Run(const BenchContext& ctx) const override {
    return RunHostCopy(ctx, HostCopyDirection::kHostToDevice);
  }
};

}  // namespace

YS_REGISTER(
    HostToDeviceBenchmark,
    {.id = "copy.h2d",
     .summary =
         "Host-to-device copy bandwidth, pinned memory per NUMA node, copy engine and SM (GB/s)",
     .needs = {Need::kGpu},
     .codes = {kCopyDataMismatch},
     .measures = HostCopyMeasures()})

}  // namespace ys::bench
