// gemm.cpu: OpenBLAS sgemm and dgemm at square and scaled-down transformer shapes, in GFLOPS
// (FLOPs = 2 m n k), with the % of the CPU peak computed from the ISA, the cores OpenBLAS uses
// and the measured busy clock (bench/cpu_peak.h: the formula and every factor go in the params).
//
// OpenBLAS runs with its own thread count (OPENBLAS_NUM_THREADS, else one per CPU); the BLAS
// kernel it chose (openblas_get_corename(); OPENBLAS_CORETYPE can force it) is in the evidence.
// Each shape: warm-up calls, then timed calls; the value is the median, the samples are kept.
#include <cblas.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <climits>

#include "bench/benchmark.h"
#include "bench/cpu_peak.h"
#include "bench/gemm/internal/openblas_util.h"
#include "host/busy_core_clock.h"

namespace ys::bench {
namespace {

template <typename T>
void Gemm(const GemmShape& s, const T* a, const T* b, T* c) {
  if constexpr (std::is_same_v<T, float>) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, s.m, s.n, s.k, 1.0f, a, s.k, b, s.n,
                0.0f, c, s.n);
  } else {
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, s.m, s.n, s.k, 1.0, a, s.k, b, s.n, 0.0,
                c, s.n);
  }
}

// The least time the warm-up calls of a shape take, beside their count. A core that sat idle
// (the busy-clock probe keeps one core busy at a time, the inputs are filled by one thread, and a
// virtual machine's idle vCPU is descheduled by its host) gives a multi-threaded BLAS call about
// one core's throughput until it is running again: measured here, 2-thread sgemm at 512^3 ran at
// 100 GFLOPS for 20-30 calls (50-75 ms) after the probe, then 205, and a direct call after a
// 300 ms sleep took up to 30 calls to leave the same plateau. A count of calls alone does not
// cover that at small shapes (a 256^3 sgemm lasts 0.2 ms); bench/gemm_vs_openblas.sh gives its
// direct caller the same warm-up.
constexpr double kMinWarmupS = 0.2;

// GFLOPS of each timed call.
template <typename T>
std::vector<double> TimeGemm(const GemmShape& s, int warmup, int iters) {
  std::vector<T> a(s.m * s.k), b(s.k * s.n), c(s.m * s.n);
  FillDeterministic(std::span<T>(a), 1);
  FillDeterministic(std::span<T>(b), 2);
  const auto warm_from = std::chrono::steady_clock::now();
  for (int i = 0;
       i < warmup ||
       std::chrono::duration<double>(std::chrono::steady_clock::now() - warm_from).count() <
           kMinWarmupS;
       ++i) {
    Gemm(s, a.data(), b.data(), c.data());
  }
  std::vector<double> gflops;
  for (int i = 0; i < iters; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    Gemm(s, a.data(), b.data(), c.data());
    double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    gflops.push_back(GemmFlops(s) / sec / 1e9);
  }
  return gflops;
}

// OpenBLAS core names whose kernels use 512-bit vectors; any other core on an avx512f CPU
// leaves half the vector width unused, which the operator should see beside the % of peak.
bool Uses512BitKernels(std::string_view corename) {
  return corename == "SkylakeX" || corename == "Cooperlake" || corename == "SapphireRapids";
}

// What the CPU peak is computed from: the physical cores OpenBLAS's threads can occupy, the
// vector ISA and their median busy clock (the last two unset when unknown, a note says why).
struct CpuPeakInputs {
  int cores = 0;
  std::optional<CpuVectorIsa> isa;
  std::optional<double> mhz;
};

// Detects the ISA from /proc/cpuinfo and measures the busy clock; notes the peak's factors, or
// why it is unknown, in `r`.
CpuPeakInputs DetectCpuPeakInputs(const BenchContext& ctx, const host::Topology& topo,
                                  const CpuSet& allowed, const OpenBlasInfo& blas,
                                  BenchmarkResult& r) {
  CpuPeakInputs in;
  // SMT siblings share a core's FMA pipes, so count the physical cores OpenBLAS's threads can
  // occupy, and their busy clock.
  CpuSet core_cpus = host::SelectBusyClockCpus(topo, allowed, INT_MAX);
  in.cores = std::min<int>(blas.threads, static_cast<int>(core_cpus.size()));
  if (auto text = ctx.host().ReadFile("/proc/cpuinfo"); !text.ok()) {
    r.Note("peak", "unknown: " + text.status().message());
  } else if (auto detected = DetectVectorIsaFromCpuinfo(*text); !detected.ok()) {
    r.Note("peak", "unknown: " + detected.status().message());
  } else {
    in.isa = *detected;
    auto clock = host::MeasureBusyClockMhz(host::SelectBusyClockCpus(topo, allowed, in.cores),
                                           ctx.quick() ? 10 : 20);
    if (!clock.ok()) {
      r.Note("peak", "unknown: busy clock: " + clock.status().message());
    } else {
      std::vector<double> per_core;
      for (const auto& [cpu, v] : *clock) per_core.push_back(v);
      in.mhz = ComputeStats(per_core).median;
      r.Note("isa", in.isa->isa + ": " + in.isa->assumption);
      r.Note("busy_clock_mhz", fmt::format("{:.0f} (median of {} cores, one core busy at a time; "
                                           "an all-core vector load may run slower)",
                                           *in.mhz, per_core.size()));
      if (in.isa->isa == "avx512f" && !Uses512BitKernels(blas.corename)) {
        r.Note("blas_vector_width", "the BLAS kernel (" + blas.corename +
                                        ") uses 256-bit vectors; the peak counts 512-bit avx512f");
      }
    }
  }
  return in;
}

// The params of one routine's measurement at one shape.
std::map<std::string, std::string> CpuGemmParams(const BenchContext& ctx, const GemmShape& s,
                                                 bool fp64, const OpenBlasInfo& blas) {
  std::map<std::string, std::string> params{{"backend", "cpu"},
                                            {"device", "cpu"},
                                            {"dtype", fp64 ? "fp64" : "fp32"},
                                            {"shape", s.name},
                                            {"m", std::to_string(s.m)},
                                            {"n", std::to_string(s.n)},
                                            {"k", std::to_string(s.k)},
                                            {"flops", fmt::format("{:.0f}", GemmFlops(s))},
                                            {"flops_formula", "2 m n k"},
                                            {"threads", std::to_string(blas.threads)},
                                            {"blas", "OpenBLAS " + blas.corename},
                                            {"layout", "row-major, no transpose"}};
  if (s.name != "square") {
    params["model"] = ctx.quick() ? "transformer layer, tokens 512, hidden 1024 (scaled down)"
                                  : "transformer layer, tokens 2048, hidden 2048 (scaled down)";
  }
  return params;
}

// Adds the computed peak and the % of it to `m`'s params when the peak is known; returns the
// % for the table ("-" when unknown).
std::string AddCpuPeakParams(Measurement& m, const std::optional<CpuPeak>& peak) {
  std::string pct = "-";
  if (peak) {
    double p = 100.0 * m.value / peak->gflops;
    pct = fmt::format("{:.1f}", p);
    m.params["peak"] = fmt::format("{:.1f}", peak->gflops);
    m.params["peak_source"] = "computed: cores x GHz x flops/cycle";
    m.params["peak_formula"] = peak->formula;
    m.params["pct_of_peak"] = pct;
  }
  return pct;
}

// The measurement of `name` at the largest square shape (the last of equal ones), or null.
const Measurement* LargestSquareGemm(const std::vector<Measurement>& measurements,
                                     const char* name) {
  const Measurement* out = nullptr;
  for (const auto& m : measurements) {
    if (m.name == name &&
        (out == nullptr || std::stoll(m.params.at("m")) >= std::stoll(out->params.at("m"))) &&
        m.params.at("shape") == "square")
      out = &m;
  }
  return out;
}

// The headline from sgemm and dgemm at the largest square shape.
std::string CpuGemmSummary(const Measurement& s, const Measurement& d, const OpenBlasInfo& blas) {
  auto pct = [](const Measurement& m) {
    return m.params.count("pct_of_peak") ? " (" + m.params.at("pct_of_peak") + "% of peak)" : "";
  };
  return fmt::format("sgemm {:.1f} GFLOPS{}, dgemm {:.1f} GFLOPS{} at {}^3; {} kernel, {} threads",
                     s.value, pct(s), d.value, pct(d), s.params.at("m"), blas.corename,
                     blas.threads);
}

class CpuGemmBenchmark final : public Benchmark {
 public:
  BenchmarkResult Run(const BenchContext& ctx) const override {
    if (!ctx.Allows(Backend::kCpu))
      return BenchmarkResult::Skip("--backend gpu: CPU GEMM not selected");
    auto shapes = CpuGemmShapes(ctx);
    if (!shapes.ok()) return BenchmarkResult::Error(shapes.status());
    const auto& topo = ctx.topology();
    if (!topo.ok()) return BenchmarkResult::Error(topo.status());
    auto allowed = host::AllowedCpusOfThisProcess();
    if (!allowed.ok()) return BenchmarkResult::Error(allowed.status());

    BenchmarkResult r;
    OpenBlasInfo blas = QueryOpenBlas();
    r.Note("blas_core", blas.corename);
    r.Note("blas_config", blas.config);
    r.Note("blas_threads", std::to_string(blas.threads));
    const CpuPeakInputs peak_in = DetectCpuPeakInputs(ctx, *topo, *allowed, blas, r);

    int warmup = ctx.Warmup(1);
    int iters = ctx.Iters(ctx.quick() ? 3 : 5);
    ResultTable table{
        .title = fmt::format("OpenBLAS GEMM ({} kernel, {} threads), median of {} calls",
                             blas.corename, blas.threads, iters),
        .columns = {"routine", "shape", "m", "n", "k", "GFLOPS", "min", "max", "% peak"}};
    for (bool fp64 : {false, true}) {
      std::optional<CpuPeak> peak;
      if (peak_in.isa && peak_in.mhz) {
        peak = ComputeCpuPeak(*peak_in.isa, fp64, peak_in.cores, *peak_in.mhz);
        r.Note(fp64 ? "peak_fp64" : "peak_fp32", peak->formula);
      }
      const char* routine = fp64 ? "dgemm" : "sgemm";
      for (const GemmShape& s : *shapes) {
        std::vector<double> samples =
            fp64 ? TimeGemm<double>(s, warmup, iters) : TimeGemm<float>(s, warmup, iters);
        Measurement m =
            MakeMeasurement(std::string("gemm.cpu.") + routine, "GFLOPS", Better::kHigher,
                            std::move(samples), CpuGemmParams(ctx, s, fp64, blas));
        std::string pct = AddCpuPeakParams(m, peak);
        table.rows.push_back({routine, s.name, std::to_string(s.m), std::to_string(s.n),
                              std::to_string(s.k), fmt::format("{:.1f}", m.value),
                              fmt::format("{:.1f}", m.stats.min),
                              fmt::format("{:.1f}", m.stats.max), pct});
        r.measurements.push_back(std::move(m));
      }
    }
    // The headline: the largest square of each routine.
    const Measurement* s = LargestSquareGemm(r.measurements, "gemm.cpu.sgemm");
    const Measurement* d = LargestSquareGemm(r.measurements, "gemm.cpu.dgemm");
    if (s && d) r.summary = CpuGemmSummary(*s, *d, blas);
    r.tables.push_back(std::move(table));
    return r;
  }
};

}  // namespace

YS_REGISTER(
    CpuGemmBenchmark,
    {.id = "gemm.cpu",
     .summary = "OpenBLAS sgemm and dgemm at square and transformer shapes (GFLOPS, % of CPU peak)",
     .needs = {Need::kLiveHost},
     .measures = {
         .kind = FigureKind::kCpuGemm,
         .figures = {{"sgemm", "GFLOPS", Better::kHigher, PeakKind::kCpuFlops},
                     {"dgemm", "GFLOPS", Better::kHigher, PeakKind::kCpuFlops}},
         .identity = {"backend", "device", "dtype", "shape", "m", "n", "k", "layout", "threads"}}})

}  // namespace ys::bench
