// mem.gpu: device-local copy bandwidth of each GPU's memory, with the copy engine
// (cuMemcpyDtoDAsync) and with an SM copy kernel (ys_copy16, 16-byte loads and stores over a
// full wave of blocks), nvbandwidth's method: 512 MiB, warm-up, 16 copies per sample between
// events behind a gate, 3 samples, median, data checked.
//
// Byte convention: GB/s = bytes copied / time, as nvbandwidth's device_local_copy prints it. A
// copy reads and writes every byte, so the memory moves twice that; the peak it is compared with
// is therefore half the spec's HBM bandwidth, and pct_of_peak = HBM traffic / HBM bandwidth.
#include <fmt/format.h>

#include "bench/gpu_bench.h"

namespace ys::bench {
namespace {

constexpr uint64_t kSeed = 0x6d656d2e677075ull;

class GpuMemoryBenchmark final : public Benchmark {
 public:
  // Each local rank its own GPU (HBM is not shared); each rank's figures are its GPU's.
  Reach reach() const override { return Reach::kRank; }

  BenchmarkResult Run(const BenchContext& ctx) const override {
    auto gpus = GpusToMeasure(ctx, /*one_per_local_rank=*/true);
    if (!gpus.ok()) return BenchmarkResult::Skip(gpus.status().message());
    BenchmarkResult r;
    ResultTable table{
        .title = "device-local copy (GB/s = bytes copied / time; HBM moves twice that)",
        .columns = {"gpu", "size", "method", "GB/s", "HBM GB/s", "% of HBM peak"}};
    std::vector<std::string> notes;
    for (int ordinal : *gpus) {
      Status s = MeasureGpu(ctx, ordinal, r, table, notes);
      if (!s.ok()) return BenchmarkResult::Error(s);
    }
    r.tables.push_back(std::move(table));
    std::string best;
    for (const Measurement& m : r.measurements) {
      best += fmt::format("{}{} {} {:.0f} GB/s", best.empty() ? "" : ", ", m.params.at("device"),
                          m.params.at("method"), m.value);
      if (auto p = m.params.find("pct_of_peak"); p != m.params.end())
        best += " (" + p->second + "% of HBM)";
    }
    r.summary = best;
    for (const std::string& n : notes) r.Note("peak", n);
    return r;
  }

 private:
  static Status MeasureGpu(const BenchContext& ctx, int ordinal, BenchmarkResult& r,
                           ResultTable& table, std::vector<std::string>& notes) {
    auto dev = gpu::CudaDevice::Open(ordinal);
    if (!dev.ok()) return dev.status();
    const gpu::CudaApi& api = dev->api();
    SpecLookup spec = LookupSpec(ctx, dev->name());
    std::optional<Peak> copy_peak;
    if (spec.spec) {
      if (auto hbm = PeakHbmGBps(*spec.spec))
        copy_peak = Peak{hbm->value / 2, hbm->source + " / 2 (a copy reads and writes)"};
    }
    std::string why = spec.spec ? spec.spec->path + " gives no HBM bandwidth" : spec.why_not;
    if (!copy_peak) notes.push_back(GpuEntity(ordinal) + ": " + why);
    auto timer = GpuTimer::Create(*dev);
    if (!timer.ok()) return timer.status();
    const int samples = 3;
    const int warmup = ctx.Warmup(4);
    const int iters = ctx.Iters(ctx.quick() ? 4 : 16);
    for (uint64_t bytes : CopySizes(ctx, 512ull << 20, 256ull << 20)) {
      auto src = gpu::DeviceBuffer::Allocate(api, bytes);
      if (!src.ok()) return src.status();
      auto dst = gpu::DeviceBuffer::Allocate(api, bytes);
      if (!dst.ok()) return dst.status();
      auto staging = gpu::PinnedHostBuffer::Allocate(api, bytes);
      if (!staging.ok()) return staging.status();
      YS_RETURN_IF_ERROR(FillDevicePattern(api, src->get(), bytes, kSeed, *staging));
      CUdeviceptr s = src->get(), d = dst->get();
      CUstream stream = timer->get();
      CopyMethod methods[] = {
          {"ce",
           [&] {
             return api.Check(api.cuMemcpyDtoDAsync(d, s, bytes, stream), "cuMemcpyDtoDAsync");
           }},
          {"sm", [&] { return timer->EnqueueSmCopy(d, s, bytes); }},
      };
      for (const CopyMethod& m : methods) {
        YS_CU_RETURN(api, cuMemsetD8Async(d, 0, bytes, stream));
        auto ms = timer->SampleMsPerCall(samples, warmup, iters, m.enqueue);
        if (!ms.ok()) return ms.status();
        auto wrong = CheckDevicePattern(api, d, bytes, kSeed, *staging);
        if (!wrong.ok()) return wrong.status();
        if (*wrong > 0)
          r.Add(CopyDataFinding(GpuEntity(ordinal), std::string("device-local ") + m.name + " copy",
                                *wrong, bytes));
        std::vector<double> gbps;
        for (double v : *ms) gbps.push_back(GBps(static_cast<double>(bytes), v));
        std::map<std::string, std::string> params = {
            {"backend", "cuda"},
            {"device", GpuEntity(ordinal)},
            {"gpu_name", dev->name()},
            {"size", std::to_string(bytes)},
            {"method", m.name},
            {"copies_per_sample", std::to_string(iters)},
            {"convention",
             "bytes copied / time (nvbandwidth device_local_copy); HBM traffic is twice this"}};
        Measurement meas = MakeMeasurement(std::string("mem.gpu.copy_") + m.name, "GB/s",
                                           Better::kHigher, std::move(gbps), std::move(params));
        auto pct = AddPeakParams(meas.params, meas.value, copy_peak, why);
        meas.params["hbm_traffic_gb_per_s"] = fmt::format("{:.1f}", 2 * meas.value);
        table.rows.push_back({GpuEntity(ordinal), FormatByteSize(bytes), m.name,
                              fmt::format("{:.1f}", meas.value),
                              fmt::format("{:.1f}", 2 * meas.value), FormatPercent(pct)});
        r.measurements.push_back(std::move(meas));
      }
    }
    return Status::Ok();
  }
};

}  // namespace

YS_REGISTER(
    GpuMemoryBenchmark,
    {.id = "mem.gpu",
     .summary =
         "GPU memory bandwidth: device-local copy with the copy engine and an SM kernel (GB/s)",
     .needs = {Need::kGpu},
     .codes = {kCopyDataMismatch},
     .measures = {.kind = FigureKind::kMemory,
                  .figures = {{"copy_ce", "GB/s", Better::kHigher, PeakKind::kGpuMemory},
                              {"copy_sm", "GB/s", Better::kHigher, PeakKind::kGpuMemory}},
                  .identity = {"backend", "device", "gpu", "gpu_name", "size", "method"}}})

}  // namespace ys::bench
