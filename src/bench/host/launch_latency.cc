// host.launch_latency: what one kernel launch costs, with an empty kernel (ys_empty, PTX):
//   launch   host time of one cuLaunchKernel when launches are issued back to back (the CPU
//            cost a training step pays per kernel), mean over a batch;
//   gpu      GPU time per kernel when back-to-back launches are queued behind the gate and
//            timed with events (how fast the GPU retires tiny kernels);
//   sync     a launch followed by cuStreamSynchronize, host clock (the full round trip).
// Microseconds, lower is better. Sensitive to CPU frequency and to other processes on the core.
#include <fmt/format.h>

#include <chrono>

#include "bench/gpu_bench.h"

namespace ys::bench {
namespace {

using Clock = std::chrono::steady_clock;

double Us(Clock::duration d) { return std::chrono::duration<double, std::micro>(d).count(); }

class LaunchLatencyBenchmark final : public Benchmark {
 public:
  BenchmarkResult Run(const BenchContext& ctx) const override {
    auto gpus = GpusToMeasure(ctx, /*one_per_local_rank=*/false);
    if (!gpus.ok()) return BenchmarkResult::Skip(gpus.status().message());
    BenchmarkResult r;
    ResultTable table{.title = "empty-kernel launch (us per launch; median of samples)",
                      .columns = {"gpu", "launch (host)", "gpu (events)", "sync round trip"}};
    for (int ordinal : *gpus) {
      if (Status s = MeasureGpu(ctx, ordinal, r, table); !s.ok()) return BenchmarkResult::Error(s);
    }
    std::string summary;
    for (const Measurement& m : r.measurements) {
      if (m.name != "host.launch_latency.sync") continue;
      summary += fmt::format("{}{} sync round trip {:.1f} us", summary.empty() ? "" : ", ",
                             m.params.at("device"), m.value);
    }
    r.summary = summary;
    r.tables.push_back(std::move(table));
    return r;
  }

 private:
  static Status MeasureGpu(const BenchContext& ctx, int ordinal, BenchmarkResult& r,
                           ResultTable& table) {
    auto dev = gpu::CudaDevice::Open(ordinal);
    if (!dev.ok()) return dev.status();
    const gpu::CudaApi& api = dev->api();
    auto timer = GpuTimer::Create(*dev);
    if (!timer.ok()) return timer.status();
    CUfunction empty = timer->empty_kernel();
    CUstream stream = timer->get();
    auto launch = [&] {
      return api.Check(api.cuLaunchKernel(empty, 1, 1, 1, 32, 1, 1, 0, stream, nullptr, nullptr),
                       "cuLaunchKernel(ys_empty)");
    };
    const int samples = ctx.quick() ? 5 : 20;
    const int batch = std::min(GpuTimer::kMaxGatedCalls, ctx.Iters(ctx.quick() ? 100 : 200));
    const int warmup = ctx.Warmup(10);
    for (int i = 0; i < warmup; ++i) YS_RETURN_IF_ERROR(launch());
    YS_RETURN_IF_ERROR(timer->stream().Synchronize());

    std::vector<double> host_us, sync_us;
    for (int s = 0; s < samples; ++s) {
      auto t0 = Clock::now();
      for (int i = 0; i < batch; ++i) YS_RETURN_IF_ERROR(launch());
      host_us.push_back(Us(Clock::now() - t0) / batch);
      YS_RETURN_IF_ERROR(timer->stream().Synchronize());
      auto t1 = Clock::now();
      for (int i = 0; i < batch / 10 + 1; ++i) {
        YS_RETURN_IF_ERROR(launch());
        YS_RETURN_IF_ERROR(timer->stream().Synchronize());
      }
      sync_us.push_back(Us(Clock::now() - t1) / (batch / 10 + 1));
    }
    auto gpu_ms = timer->SampleMsPerCall(samples, warmup, batch, launch);
    if (!gpu_ms.ok()) return gpu_ms.status();
    std::vector<double> gpu_us;
    for (double ms : *gpu_ms) gpu_us.push_back(ms * 1e3);

    std::map<std::string, std::string> params = {{"backend", "cuda"},
                                                 {"device", GpuEntity(ordinal)},
                                                 {"gpu_name", dev->name()},
                                                 {"launches_per_sample", std::to_string(batch)},
                                                 {"kernel", "ys_empty <<<1, 32>>>"}};
    Measurement launch_m = MakeMeasurement("host.launch_latency.launch", "us", Better::kLower,
                                           std::move(host_us), params);
    Measurement gpu_m =
        MakeMeasurement("host.launch_latency.gpu", "us", Better::kLower, std::move(gpu_us), params);
    Measurement sync_m = MakeMeasurement("host.launch_latency.sync", "us", Better::kLower,
                                         std::move(sync_us), params);
    table.rows.push_back({GpuEntity(ordinal), fmt::format("{:.2f}", launch_m.value),
                          fmt::format("{:.2f}", gpu_m.value), fmt::format("{:.2f}", sync_m.value)});
    r.measurements.push_back(std::move(launch_m));
    r.measurements.push_back(std::move(gpu_m));
    r.measurements.push_back(std::move(sync_m));
    return Status::Ok();
  }
};

}  // namespace

YS_REGISTER(
    LaunchLatencyBenchmark,
    {.id = "host.launch_latency",
     .summary =
         "GPU kernel-launch cost: host time per launch, GPU time per kernel, sync round trip (us)",
     .needs = {Need::kGpu},
     .measures = {.kind = FigureKind::kLaunch,
                  .figures = {{"launch", "us", Better::kLower},
                              {"gpu", "us", Better::kLower},
                              {"sync", "us", Better::kLower}},
                  .identity = {"backend", "device", "gpu_name", "launches_per_sample"}}})

}  // namespace ys::bench
