// gemm.gpu: tensor-core GEMM rate of each GPU through cuBLASLt (gpu/cublaslt.h): BF16, FP16,
// TF32 (FP32 with fast TF32) and FP8 E4M3 (compute capability 8.9+), the algorithm chosen by
// cublasLtMatmulAlgoGetHeuristic with a 32 MiB workspace, at a square shape and at transformer
// layer shapes; timed with CUDA events over iterations after warm-up (gpu_bench.h); TFLOPS =
// 2*m*n*k / time, with % of the spec's dense peak for the precision.
//
// The same run checks the results (gpu_gemm_data.h): sampled output elements against a
// double-precision reference within the error bound (YS-BENCH-022), and the determinism check
// gpu-burn and Imbue run: identical inputs must give bit-identical outputs across repeats and
// across GPUs of the same model (YS-BENCH-020) — a silent-data-corruption check.
#include <fmt/format.h>

#include "bench/gemm/internal/gpu_gemm_data.h"
#include "bench/gpu_bench.h"

namespace ys::bench {
namespace {

using gpu::GemmPrecision;

constexpr size_t kWorkspaceBytes = size_t{32} << 20;
constexpr uint64_t kSeedA = 0xa11ce, kSeedB = 0xb0b;

struct NamedShape {
  const char* name;
  gpu::GemmShape shape;
};

// Square, then a Llama-3-70B-like MLP layer at 8192 tokens: hidden 8192 -> FFN 28672 and back.
std::vector<NamedShape> Shapes(bool quick) {
  if (quick) return {{"square", {4096, 4096, 4096}}};
  return {{"square", {8192, 8192, 8192}},
          {"mlp_up", {8192, 28672, 8192}},
          {"mlp_down", {8192, 8192, 28672}}};
}

// The output of the square GEMM of the first GPU of a model, against which the others compare.
struct FirstOutput {
  int ordinal = -1;
  std::vector<unsigned char> bytes;
};

// What every GEMM measured on one GPU shares: the device and its handles, borrowed from
// MeasureGpu, and the sampling counts.
struct GpuGemmSetup {
  const gpu::CudaApi& api;
  const gpu::CudaDevice& device;
  std::string entity;
  int ordinal = 0;
  int sms = 0;
  GpuTimer& timer;
  const gpu::CublasLtHandle& handle;
  CUdeviceptr workspace = 0, scales = 0;  // kWorkspaceBytes; the A and B scales (1.0)
  int samples = 0, warmup = 0, iters = 0;
  int repeats = 0;  // extra runs compared bit for bit with the first
};

// One precision's inputs on one GPU: its name, the input tiles and the spec's peak.
struct GpuGemmInputs {
  GemmPrecision p;
  std::string dtype;
  std::vector<unsigned char> a_tile, b_tile;
  std::optional<Peak> peak;
  std::string why;  // why the peak is unknown
};

Finding DeterminismFinding(const std::string& entity, const std::string& what, uint64_t wrong,
                           uint64_t total) {
  Finding f;
  f.code = "YS-BENCH-020";
  f.severity = Severity::kFail;
  f.entity = entity;
  f.message =
      fmt::format("{}: {} of {} output elements differ for identical inputs", what, wrong, total);
  f.evidence = {{"compared", what},
                {"different_elements", std::to_string(wrong)},
                {"elements", std::to_string(total)}};
  f.fix =
      "drain the GPU; run dcgmi diag -r 3 (or -r 4) and check XID and ECC counters before "
      "returning it to service";
  f.reference = "gpu-burn compare.cu; Imbue gpu_stress_test (bit-equal results across GPUs)";
  return f;
}

class GpuGemmBenchmark final : public Benchmark {
 public:
  // Each local rank its own GPU, all loaded together; each rank's figures are its GPU's.
  Reach reach() const override { return Reach::kRank; }

  BenchmarkResult Run(const BenchContext& ctx) const override {
    auto lt = gpu::CublasLtApi::Get();
    if (!lt.ok()) return BenchmarkResult::Skip(lt.status().message());
    auto gpus = GpusToMeasure(ctx, /*one_per_local_rank=*/true);
    if (!gpus.ok()) return BenchmarkResult::Skip(gpus.status().message());
    BenchmarkResult r;
    ResultTable table{
        .title = "cuBLASLt GEMM, D = A^T B (TFLOPS = 2mnk / time; median of samples)",
        .columns = {"gpu", "dtype", "shape", "m", "n", "k", "ms", "TFLOPS", "% of peak"}};
    std::map<std::string, FirstOutput> first;  // model + dtype -> first GPU's square output
    for (int ordinal : *gpus) {
      if (Status s = MeasureGpu(ctx, **lt, ordinal, r, table, first); !s.ok())
        return BenchmarkResult::Error(s);
    }
    r.Note("cublaslt",
           (*lt)->library() + " version " + std::to_string((*lt)->cublasLtGetVersion()));
    std::string summary;
    for (const Measurement& m : r.measurements) {
      if (m.params.at("shape") != "square") continue;
      summary += fmt::format("{}{} {} {:.0f}", summary.empty() ? "" : ", ", m.params.at("device"),
                             m.params.at("dtype"), m.value);
      if (auto p = m.params.find("pct_of_peak"); p != m.params.end())
        summary += " (" + p->second + "%)";
    }
    r.summary = summary.empty() ? "no precision ran" : summary + " TFLOPS at the square shape";
    r.tables.push_back(std::move(table));
    return r;
  }

 private:
  static Status MeasureGpu(const BenchContext& ctx, const gpu::CublasLtApi& lt, int ordinal,
                           BenchmarkResult& r, ResultTable& table,
                           std::map<std::string, FirstOutput>& first) {
    auto dev = gpu::CudaDevice::Open(ordinal);
    if (!dev.ok()) return dev.status();
    const gpu::CudaApi& api = dev->api();
    const std::string entity = GpuEntity(ordinal);
    const int cc = dev->Attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR) * 10 +
                   dev->Attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
    const int sms = dev->Attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
    SpecLookup spec = LookupSpec(ctx, dev->name());
    auto timer = GpuTimer::Create(*dev);
    if (!timer.ok()) return timer.status();
    auto handle = gpu::CublasLtHandle::Create(lt);
    if (!handle.ok()) return handle.status();
    auto workspace = gpu::DeviceBuffer::Allocate(api, kWorkspaceBytes);
    if (!workspace.ok()) return workspace.status();
    auto scales = gpu::DeviceBuffer::Allocate(api, 2 * sizeof(float));  // A and B scale: 1.0
    if (!scales.ok()) return scales.status();
    const float ones[2] = {1.0f, 1.0f};
    YS_CU_RETURN(api, cuMemcpyHtoD(scales->get(), ones, sizeof(ones)));
    GpuGemmSetup g{.api = api,
                   .device = *dev,
                   .entity = entity,
                   .ordinal = ordinal,
                   .sms = sms,
                   .timer = *timer,
                   .handle = *handle,
                   .workspace = workspace->get(),
                   .scales = scales->get(),
                   .samples = ctx.quick() ? 3 : 5,
                   .warmup = ctx.Warmup(ctx.quick() ? 3 : 10),
                   .iters = ctx.Iters(ctx.quick() ? 5 : 20),
                   .repeats = ctx.quick() ? 2 : 3};  // extra runs compared bit for bit

    for (GemmPrecision p : gpu::kAllGemmPrecisions) {
      const std::string dtype = gpu::GemmPrecisionName(p);
      if (cc < gpu::GemmMinComputeCapability(p)) {
        r.Note(entity + "." + dtype,
               fmt::format("not run: needs compute capability {}.{}, the GPU has {}.{}",
                           gpu::GemmMinComputeCapability(p) / 10,
                           gpu::GemmMinComputeCapability(p) % 10, cc / 10, cc % 10));
        continue;
      }
      GpuGemmInputs in{
          .p = p,
          .dtype = dtype,
          .a_tile = MakeGemmInputTile(p, kSeedA),
          .b_tile = MakeGemmInputTile(p, kSeedB),
          .peak = spec.spec ? PeakTflops(*spec.spec, dtype) : std::nullopt,
          .why = spec.spec ? spec.spec->path + " gives no dense " + dtype + " peak" : spec.why_not};
      for (const NamedShape& ns : Shapes(ctx.quick())) {
        YS_RETURN_IF_ERROR(MeasureShape(g, in, ns, r, table, first));
      }
    }
    return Status::Ok();
  }

  // Times one precision at one shape on the GPU of `g`, adds its measurement and table row, and
  // checks the square shape's results (a shape cuBLASLt has no algorithm for is noted, not run).
  static Status MeasureShape(const GpuGemmSetup& g, const GpuGemmInputs& in, const NamedShape& ns,
                             BenchmarkResult& r, ResultTable& table,
                             std::map<std::string, FirstOutput>& first) {
    const gpu::CudaApi& api = g.api;
    const GemmPrecision p = in.p;
    const gpu::GemmShape& sh = ns.shape;
    auto a = gpu::DeviceBuffer::Allocate(api, sh.BytesA(p));
    if (!a.ok()) return a.status();
    auto b = gpu::DeviceBuffer::Allocate(api, sh.BytesB(p));
    if (!b.ok()) return b.status();
    auto d = gpu::DeviceBuffer::Allocate(api, sh.BytesD(p));
    if (!d.ok()) return d.status();
    YS_RETURN_IF_ERROR(Upload(api, a->get(), sh.BytesA(p), in.a_tile));
    YS_RETURN_IF_ERROR(Upload(api, b->get(), sh.BytesB(p), in.b_tile));
    auto plan =
        gpu::GemmPlan::Create(g.handle, p, sh, kWorkspaceBytes, g.scales, g.scales + sizeof(float));
    if (!plan.ok()) {
      if (plan.status().code() != StatusCode::kNotFound) return plan.status();
      r.Note(g.entity + "." + in.dtype + "." + ns.name, plan.status().message());
      return Status::Ok();
    }
    auto enqueue = [&] {
      return plan->Enqueue(a->get(), b->get(), d->get(), g.workspace, g.timer.get());
    };
    auto ms = g.timer.SampleMsPerCall(g.samples, g.warmup, g.iters, enqueue);
    if (!ms.ok()) return ms.status();
    Measurement m = TflopsMeasurement(g, in.dtype, ns, plan->waves(), *ms);
    auto pct = AddPeakParams(m.params, m.value, in.peak, in.why);
    double median_ms = ComputeStats(*ms).median;
    table.rows.push_back({g.entity, in.dtype, ns.name, std::to_string(sh.m), std::to_string(sh.n),
                          std::to_string(sh.k), fmt::format("{:.3f}", median_ms),
                          fmt::format("{:.1f}", m.value), FormatPercent(pct)});
    r.measurements.push_back(std::move(m));
    if (std::string(ns.name) == "square") {
      std::string model_key = g.device.name() + "/" + std::to_string(g.sms) + "/" + in.dtype;
      YS_RETURN_IF_ERROR(CheckResults(api, p, sh, g.entity, g.ordinal, d->get(), in.a_tile,
                                      in.b_tile, g.repeats, enqueue, g.timer, first[model_key], r));
    }
    return Status::Ok();
  }

  // The gemm.gpu.tflops measurement of one shape from its milliseconds per call.
  static Measurement TflopsMeasurement(const GpuGemmSetup& g, const std::string& dtype,
                                       const NamedShape& ns, float waves,
                                       const std::vector<double>& ms) {
    const gpu::GemmShape& sh = ns.shape;
    std::vector<double> tflops;
    for (double v : ms) tflops.push_back(gpu::Tflops(sh.Flops(), v));
    return MakeMeasurement("gemm.gpu.tflops", "TFLOPS", Better::kHigher, std::move(tflops),
                           {{"backend", "cuda"},
                            {"device", g.entity},
                            {"gpu_name", g.device.name()},
                            {"dtype", dtype},
                            {"shape", ns.name},
                            {"m", std::to_string(sh.m)},
                            {"n", std::to_string(sh.n)},
                            {"k", std::to_string(sh.k)},
                            {"layout", "TN"},
                            {"workspace", std::to_string(kWorkspaceBytes)},
                            {"heuristic_waves", fmt::format("{:.2f}", waves)},
                            {"iters_per_sample", std::to_string(g.iters)}});
  }

  // Fills a device buffer by repeating `tile`.
  static Status Upload(const gpu::CudaApi& api, CUdeviceptr dst, size_t bytes,
                       const std::vector<unsigned char>& tile) {
    for (size_t off = 0; off < bytes; off += tile.size()) {
      YS_CU_RETURN(api, cuMemcpyHtoD(dst + off, tile.data(), std::min(tile.size(), bytes - off)));
    }
    return Status::Ok();
  }

  static Status CheckResults(const gpu::CudaApi& api, GemmPrecision p, const gpu::GemmShape& sh,
                             const std::string& entity, int ordinal, CUdeviceptr d,
                             const std::vector<unsigned char>& a_tile,
                             const std::vector<unsigned char>& b_tile, int repeats,
                             const std::function<Status()>& enqueue, const GpuTimer& timer,
                             FirstOutput& first, BenchmarkResult& r) {
    const std::string dtype = gpu::GemmPrecisionName(p);
    const size_t bytes = sh.BytesD(p);
    const uint64_t elements = static_cast<uint64_t>(sh.m * sh.n);
    std::vector<unsigned char> out(bytes), again(bytes);
    YS_RETURN_IF_ERROR(timer.stream().Synchronize());
    YS_CU_RETURN(api, cuMemcpyDtoH(out.data(), d, bytes));

    ReferenceCheck ref = CheckAgainstReference(p, sh, a_tile, b_tile, out, 64);
    r.Note(entity + "." + dtype + ".reference",
           fmt::format("{} of {} sampled elements within the bound (worst {:.3f} of it)",
                       ref.checked - ref.outside, ref.checked, ref.worst_ratio));
    if (ref.outside > 0) {
      Finding f;
      f.code = "YS-BENCH-022";
      f.severity = Severity::kFail;
      f.entity = entity;
      f.message = fmt::format(
          "{} GEMM: {} of {} sampled output elements outside the error bound (first at row {}, "
          "column {})",
          dtype, ref.outside, ref.checked, ref.first_row, ref.first_col);
      f.evidence = {{"dtype", dtype},
                    {"outside", std::to_string(ref.outside)},
                    {"worst_ratio", fmt::format("{:.3g}", ref.worst_ratio)}};
      f.fix = "rerun; if it repeats, drain the GPU and run dcgmi diag -r 3";
      f.reference =
          "double-precision reference of the sampled elements (bench/gemm/gpu_gemm_data.h)";
      r.Add(std::move(f));
    }
    uint64_t worst = 0;
    for (int i = 0; i < repeats; ++i) {
      YS_RETURN_IF_ERROR(timer.device().MakeCurrent());
      YS_RETURN_IF_ERROR(enqueue());
      YS_RETURN_IF_ERROR(timer.stream().Synchronize());
      YS_CU_RETURN(api, cuMemcpyDtoH(again.data(), d, bytes));
      worst = std::max(worst, CountDifferentElements(p, out, again));
    }
    r.Note(entity + "." + dtype + ".repeats",
           fmt::format("{} reruns, {} elements differ", repeats, worst));
    if (worst > 0)
      r.Add(DeterminismFinding(entity, dtype + " GEMM reruns on " + entity, worst, elements));
    if (first.bytes.empty()) {
      first = FirstOutput{ordinal, std::move(out)};
    } else {
      uint64_t diff = CountDifferentElements(p, first.bytes, out);
      r.Note(entity + "." + dtype + ".vs_" + GpuEntity(first.ordinal),
             fmt::format("{} elements differ", diff));
      if (diff > 0) {
        r.Add(DeterminismFinding(
            entity, dtype + " GEMM output of " + entity + " vs " + GpuEntity(first.ordinal), diff,
            elements));
      }
    }
    return Status::Ok();
  }
};

}  // namespace

YS_REGISTER(GpuGemmBenchmark,
            {.id = "gemm.gpu",
             .summary = "GPU GEMM rate through cuBLASLt (BF16, FP16, TF32, FP8) "
                        "with result and determinism checks (TFLOPS)",
             .needs = {Need::kGpu},
             .codes = {{"YS-BENCH-020", Severity::kFail,
                        "GPU GEMM results not bit-identical across repeats or GPUs"},
                       {"YS-BENCH-022", Severity::kFail,
                        "GPU GEMM result outside the error bound of a double-precision reference"}},
             .measures = {.kind = FigureKind::kGemm,
                          .figures = {{"tflops", "TFLOPS", Better::kHigher, PeakKind::kGpuFlops}},
                          .identity = {"backend", "device", "gpu", "gpu_name", "dtype", "shape",
                                       "m", "n", "k", "layout"}}})

}  // namespace ys::bench
