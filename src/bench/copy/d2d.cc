// copy.d2d: device -> device peer copy bandwidth for every ordered pair of GPUs on the node, by
// the copy engine (cuMemcpyPeerAsync on the source GPU's stream) and by an SM kernel on the
// source GPU writing into the peer's memory (nvbandwidth's "write" direction). Pairs without
// peer access are listed and not measured. % of the spec's NVLink bandwidth per direction.
#include <fmt/format.h>

#include "bench/gpu_bench.h"

namespace ys::bench {
namespace {

constexpr uint64_t kPeerCopySeed = 0x636f70792e643264ull;

struct Gpu {
  gpu::CudaDevice device;
  CUcontext context = nullptr;
  std::optional<GpuTimer> timer;
  gpu::DeviceBuffer src, dst;
  std::optional<Peak> peak;
  std::string why_no_peak;
};

Status EnablePeer(const gpu::CudaApi& api, Gpu& from, const Gpu& to) {
  YS_RETURN_IF_ERROR(from.device.MakeCurrent());
  CUresult rc = api.cuCtxEnablePeerAccess(to.context, 0);
  if (rc == CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED) return Status::Ok();
  return api.Check(rc, "cuCtxEnablePeerAccess");
}

// Opens every GPU of `ordinals` into `gpus` (reserved first: GpuTimer keeps a pointer to its
// device, so no reallocation), then gives each its context, timer, source and destination
// buffers of `max_bytes` and the spec's NVLink peak.
Status OpenPeerGpus(const BenchContext& ctx, const std::vector<int>& ordinals, uint64_t max_bytes,
                    std::vector<Gpu>& gpus) {
  gpus.reserve(ordinals.size());
  for (int o : ordinals) {
    auto dev = gpu::CudaDevice::Open(o);
    if (!dev.ok()) return dev.status();
    gpus.push_back(Gpu{std::move(*dev)});
  }
  const gpu::CudaApi& api = gpus.front().device.api();
  for (Gpu& g : gpus) {
    YS_RETURN_IF_ERROR(g.device.MakeCurrent());
    YS_CU_RETURN(api, cuCtxGetCurrent(&g.context));
    auto t = GpuTimer::Create(g.device);
    if (!t.ok()) return t.status();
    g.timer.emplace(std::move(*t));
    for (gpu::DeviceBuffer* b : {&g.src, &g.dst}) {
      auto made = gpu::DeviceBuffer::Allocate(api, max_bytes);
      if (!made.ok()) return made.status();
      *b = std::move(*made);
    }
    SpecLookup spec = LookupSpec(ctx, g.device.name());
    g.peak = spec.spec ? PeakNvlinkPerDirectionGBps(*spec.spec) : std::nullopt;
    g.why_no_peak = spec.spec ? spec.spec->path + " gives no NVLink figure" : spec.why_not;
  }
  return Status::Ok();
}

// What every pair, size and method measured shares: the data check's staging buffer, the
// sampling counts, and where the results go.
struct PeerCopyRun {
  const gpu::CudaApi& api;
  const gpu::PinnedHostBuffer& staging;
  int samples = 0, warmup = 0, iters = 0;
  BenchmarkResult& r;
  ResultTable& table;
};

// One copy method between a pair at one size, the source already holding the pattern.
struct PeerCopyStep {
  Gpu& from;
  Gpu& to;
  const std::string& pair;  // "gpu0->gpu1"
  uint64_t bytes = 0;
  const char* method = "";  // "ce" or "sm"
};

// The copy.d2d.<method> measurement of one step from its milliseconds per copy.
Measurement PeerCopyMeasurement(const PeerCopyStep& step, int iters,
                                const std::vector<double>& ms) {
  std::vector<double> gbps;
  for (double v : ms) gbps.push_back(GBps(static_cast<double>(step.bytes), v));
  return MakeMeasurement(std::string("copy.d2d.") + step.method, "GB/s", Better::kHigher,
                         std::move(gbps),
                         {{"backend", "cuda"},
                          {"device", GpuEntity(step.from.device.ordinal())},
                          {"peer", GpuEntity(step.to.device.ordinal())},
                          {"gpu_name", step.from.device.name()},
                          {"size", std::to_string(step.bytes)},
                          {"method", step.method},
                          {"copies_per_sample", std::to_string(iters)}});
}

// Clears the destination, times `enqueue`, checks the data the copy delivered, and adds the
// step's measurement and table row (and a finding for wrong data).
Status MeasurePeerCopyStep(const PeerCopyRun& run, const PeerCopyStep& step,
                           const std::function<Status()>& enqueue) {
  const gpu::CudaApi& api = run.api;
  Gpu &from = step.from, &to = step.to;
  const uint64_t bytes = step.bytes;
  CUdeviceptr d = to.dst.get();
  // Clear the destination in its own context, so the data check sees this method's copy.
  YS_RETURN_IF_ERROR(to.device.MakeCurrent());
  YS_CU_RETURN(api, cuMemsetD8Async(d, 0, bytes, nullptr));
  YS_CU_RETURN(api, cuCtxSynchronize());
  YS_RETURN_IF_ERROR(from.device.MakeCurrent());
  auto ms = from.timer->SampleMsPerCall(run.samples, run.warmup, run.iters, enqueue);
  if (!ms.ok()) return ms.status();
  auto wrong = CheckDevicePattern(api, d, bytes, kPeerCopySeed, run.staging);
  if (!wrong.ok()) return wrong.status();
  if (*wrong > 0)
    run.r.Add(
        CopyDataFinding(step.pair, std::string("peer ") + step.method + " copy", *wrong, bytes));
  Measurement meas = PeerCopyMeasurement(step, run.iters, *ms);
  auto pct = AddPeakParams(meas.params, meas.value, from.peak, from.why_no_peak);
  if (pct) meas.params["peak_assumes"] = "the pair is joined by NVLink (NVSwitch or direct links)";
  run.table.rows.push_back({GpuEntity(from.device.ordinal()), GpuEntity(to.device.ordinal()),
                            FormatByteSize(bytes), step.method, fmt::format("{:.1f}", meas.value),
                            FormatPercent(pct)});
  run.r.measurements.push_back(std::move(meas));
  return Status::Ok();
}

// Measures both methods from `from` into `to` at every size.
Status MeasurePeerPair(const PeerCopyRun& run, Gpu& from, Gpu& to, const std::string& pair,
                       const std::vector<uint64_t>& sizes) {
  const gpu::CudaApi& api = run.api;
  for (uint64_t bytes : sizes) {
    YS_RETURN_IF_ERROR(from.device.MakeCurrent());
    YS_RETURN_IF_ERROR(FillDevicePattern(api, from.src.get(), bytes, kPeerCopySeed, run.staging));
    CUdeviceptr s = from.src.get(), d = to.dst.get();
    CUstream stream = from.timer->get();
    CopyMethod methods[] = {
        {"ce",
         [&] {
           return api.Check(api.cuMemcpyPeerAsync(d, to.context, s, from.context, bytes, stream),
                            "cuMemcpyPeerAsync");
         }},
        {"sm", [&] { return from.timer->EnqueueSmCopy(d, s, bytes); }},
    };
    for (const CopyMethod& m : methods) {
      YS_RETURN_IF_ERROR(MeasurePeerCopyStep(
          run, {.from = from, .to = to, .pair = pair, .bytes = bytes, .method = m.name},
          m.enqueue));
    }
  }
  return Status::Ok();
}

// "N pairs, lo to hi GB/s" over every measurement, or why there is none.
std::string PeerCopySummary(const BenchmarkResult& r, size_t gpus, size_t no_peer) {
  double lo = 0, hi = 0;
  for (size_t i = 0; i < r.measurements.size(); ++i) {
    double v = r.measurements[i].value;
    lo = i == 0 ? v : std::min(lo, v);
    hi = i == 0 ? v : std::max(hi, v);
  }
  return r.measurements.empty()
             ? "no GPU pair has peer access"
             : fmt::format("{} pairs, {:.1f} to {:.1f} GB/s", gpus * (gpus - 1) - no_peer, lo, hi);
}

class PeerCopyBenchmark final : public Benchmark {
 public:
  BenchmarkResult Run(const BenchContext& ctx) const override {
    auto ordinals = GpusToMeasure(ctx, /*one_per_local_rank=*/false);
    if (!ordinals.ok()) return BenchmarkResult::Skip(ordinals.status().message());
    if (ordinals->size() < 2) {
      return BenchmarkResult::Skip(fmt::format("needs two GPUs; {} visible", ordinals->size()));
    }
    BenchmarkResult r;
    Status s = Measure(ctx, *ordinals, r);
    if (!s.ok()) return BenchmarkResult::Error(s);
    return r;
  }

 private:
  static Status Measure(const BenchContext& ctx, const std::vector<int>& ordinals,
                        BenchmarkResult& r) {
    const auto sizes = CopySizes(ctx, 512ull << 20, 64ull << 20);
    const uint64_t max_bytes = *std::max_element(sizes.begin(), sizes.end());
    std::vector<Gpu> gpus;
    YS_RETURN_IF_ERROR(OpenPeerGpus(ctx, ordinals, max_bytes, gpus));
    const gpu::CudaApi& api = gpus.front().device.api();
    auto staging = gpu::PinnedHostBuffer::Allocate(api, max_bytes);
    if (!staging.ok()) return staging.status();
    ResultTable table{
        .title = "GPU -> GPU peer copy, written by the source GPU (GB/s, one direction)",
        .columns = {"src", "dst", "size", "method", "GB/s", "% of NVLink"}};
    const PeerCopyRun run{.api = api,
                          .staging = *staging,
                          .samples = 3,
                          .warmup = ctx.Warmup(4),
                          .iters = ctx.Iters(ctx.quick() ? 4 : 16),
                          .r = r,
                          .table = table};
    std::vector<std::string> no_peer;
    for (Gpu& from : gpus) {
      for (Gpu& to : gpus) {
        if (&from == &to) continue;
        std::string pair = GpuEntity(from.device.ordinal()) + "->" + GpuEntity(to.device.ordinal());
        int can = 0;
        YS_CU_RETURN(api, cuDeviceCanAccessPeer(&can, from.device.device(), to.device.device()));
        if (!can) {
          no_peer.push_back(pair);
          continue;
        }
        YS_RETURN_IF_ERROR(EnablePeer(api, from, to));
        YS_RETURN_IF_ERROR(MeasurePeerPair(run, from, to, pair, sizes));
      }
    }
    if (!no_peer.empty()) {
      std::string list;
      for (const std::string& p : no_peer) list += (list.empty() ? "" : ", ") + p;
      table.footer.push_back("# no peer access (not measured): " + list);
      r.Note("no_peer_access", list);
    }
    r.summary = PeerCopySummary(r, gpus.size(), no_peer.size());
    r.tables.push_back(std::move(table));
    return Status::Ok();
  }
};

}  // namespace

YS_REGISTER(PeerCopyBenchmark,
            {.id = "copy.d2d",
             .summary = "GPU-to-GPU peer copy bandwidth for every pair, copy engine and SM (GB/s)",
             .needs = {Need::kGpu},
             .codes = {kCopyDataMismatch},
             .measures = {.kind = FigureKind::kNvlink,
                          .figures = {{"ce", "GB/s", Better::kHigher, PeakKind::kNvlink},
                                      {"sm", "GB/s", Better::kHigher, PeakKind::kNvlink}},
                          .identity = {"backend", "device", "peer", "gpu_name", "size", "method"}}})

}  // namespace ys::bench
