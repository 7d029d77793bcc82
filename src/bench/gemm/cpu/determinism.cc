// gemm.cpu.determinism: identical inputs must give bit-identical outputs across repeats and
// across cores — the silent-data-corruption test that gpu-burn and Imbue run, on the CPU. A core
// with a marginal FMA unit, cache or clock computes a different bit pattern for the same sgemm.
//
// Method: one n x n sgemm (fixed pseudo-random inputs) with OpenBLAS limited to one thread
// (openblas_set_num_threads(1), restored after), so each call runs whole on the calling thread;
// that thread is pinned to one physical core after another (one thread per core, all allowed
// cores, at most 64), `repeats` calls on each, run one core at a time (no concurrent BLAS calls).
// Every output is compared with the first by memcmp; a difference fails with YS-BENCH-010.
#include <cblas.h>
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <climits>
#include <cstring>

#include "bench/benchmark.h"
#include "bench/gemm/internal/gemm_determinism.h"
#include "bench/gemm/internal/openblas_util.h"
#include "core/finding_codes.h"
#include "host/busy_core_clock.h"
#include "host/thread_affinity.h"

namespace ys::bench {

std::vector<GemmRunMismatch> CompareGemmRuns(const std::vector<GemmRunOutput>& runs) {
  std::vector<GemmRunMismatch> out;
  if (runs.empty()) return out;
  const auto& ref = runs.front().c;
  for (size_t i = 1; i < runs.size(); ++i) {
    const auto& c = runs[i].c;
    std::optional<BitMismatch> m;
    if (c.size() != ref.size()) {
      m = BitMismatch{
          .first_index = std::min(c.size(), ref.size()),
          .differing_elements = std::max(c.size(), ref.size()) - std::min(c.size(), ref.size())};
    } else {
      m = FindBitMismatch(ref, c);
    }
    if (m) out.push_back({runs[i].cpu, runs[i].repeat, *m});
  }
  return out;
}

Finding GemmDeterminismFinding(const GemmRunOutput& reference,
                               const std::vector<GemmRunMismatch>& bad, int n, size_t runs) {
  const GemmRunMismatch& first = bad.front();
  // One core whose runs differ points at that core; several point at the node (or the reference).
  bool one_cpu =
      std::all_of(bad.begin(), bad.end(), [&](const auto& b) { return b.cpu == first.cpu; });
  std::string entity = one_cpu ? "cpu" + std::to_string(first.cpu) : "node";
  Finding f =
      MakeFinding("YS-BENCH-010", entity,
                  fmt::format("{} of {} sgemm runs differ bitwise from the first (cpu{} repeat {})",
                              bad.size(), runs, reference.cpu, reference.repeat));
  auto as_float = [](uint64_t bits) { return std::bit_cast<float>(static_cast<uint32_t>(bits)); };
  std::string cpus;
  for (const auto& b : bad)
    cpus += (cpus.empty() ? "" : ",") + fmt::format("cpu{}#{}", b.cpu, b.repeat);
  f.evidence = {{"n", std::to_string(n)},
                {"reference", fmt::format("cpu{} repeat {}", reference.cpu, reference.repeat)},
                {"first_mismatch", fmt::format("cpu{} repeat {}", first.cpu, first.repeat)},
                {"first_element", DescribeBitMismatch(first.mismatch, sizeof(float))},
                {"expected_value", fmt::format("{:.9g}", as_float(first.mismatch.expected_bits))},
                {"actual_value", fmt::format("{:.9g}", as_float(first.mismatch.actual_bits))},
                {"differing_runs", cpus}};
  f.fix =
      "rerun gemm.cpu.determinism; a core that repeats the mismatch is suspect: take it out of "
      "service (drain the node) and run the vendor's CPU diagnostics (e.g. Intel OpenDCDiag, "
      "AMD's field test)";
  f.reference =
      "silent data corruption checks (gpu-burn, Imbue): bit-identical results for identical inputs";
  return f;
}

namespace {

class CpuGemmDeterminismBenchmark final : public Benchmark {
 public:
  BenchmarkResult Run(const BenchContext& ctx) const override {
    if (!ctx.Allows(Backend::kCpu))
      return BenchmarkResult::Skip("--backend gpu: CPU GEMM not selected");
    const auto& topo = ctx.topology();
    if (!topo.ok()) return BenchmarkResult::Error(topo.status());
    auto allowed = host::AllowedCpusOfThisProcess();
    if (!allowed.ok()) return BenchmarkResult::Error(allowed.status());
    CpuSet cpus = host::SelectBusyClockCpus(*topo, *allowed, ctx.quick() ? 8 : 64);
    int n = ctx.options().sizes ? static_cast<int>(ctx.options().sizes->max_bytes)
                                : (ctx.quick() ? 256 : 512);
    if (n < 1 || n > 8192)
      return BenchmarkResult::Error(
          Status::Invalid("--sizes: determinism sgemm dimension must be 1..8192"));
    int repeats = ctx.Iters(ctx.quick() ? 2 : 3);

    std::vector<float> a(static_cast<size_t>(n) * n), b(a.size());
    FillDeterministic(std::span<float>(a), 11);
    FillDeterministic(std::span<float>(b), 12);
    std::vector<GemmRunOutput> runs;
    std::vector<double> seconds;
    OpenBlasInfo blas = QueryOpenBlas();
    {
      ScopedOpenBlasThreads one_thread(1);
      for (int cpu : cpus.ids()) {
        Status s = host::RunPinned({cpu}, [&](int) {
          for (int rep = 0; rep < repeats; ++rep) {
            GemmRunOutput out{.cpu = cpu, .repeat = rep, .c = std::vector<float>(a.size())};
            auto t0 = std::chrono::steady_clock::now();
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a.data(), n,
                        b.data(), n, 0.0f, out.c.data(), n);
            seconds.push_back(
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
            runs.push_back(std::move(out));
          }
        });
        if (!s.ok()) return BenchmarkResult::Error(s);
      }
    }
    auto bad = CompareGemmRuns(runs);

    BenchmarkResult r;
    r.Note("method",
           "sgemm with OpenBLAS limited to 1 thread per call, pinned to each core in turn; "
           "outputs compared with memcmp against the first");
    r.Note("blas_core", blas.corename);
    r.Note("cpus", cpus.ToString());
    r.Note("n", std::to_string(n));
    r.Note("repeats_per_core", std::to_string(repeats));
    std::map<std::string, std::string> params{{"backend", "cpu"},
                                              {"device", "cpu"},
                                              {"dtype", "fp32"},
                                              {"n", std::to_string(n)},
                                              {"cpus", cpus.ToString()},
                                              {"runs", std::to_string(runs.size())},
                                              {"repeats_per_core", std::to_string(repeats)},
                                              {"blas", "OpenBLAS " + blas.corename}};
    r.measurements.push_back(MakeMeasurement("gemm.cpu.determinism.mismatched_runs", "runs",
                                             Better::kLower, {static_cast<double>(bad.size())},
                                             params));
    std::vector<double> gflops;
    for (double s : seconds) gflops.push_back(2.0 * n * n * static_cast<double>(n) / s / 1e9);
    params["threads"] = "1";
    r.measurements.push_back(MakeMeasurement("gemm.cpu.determinism.gflops_per_core", "GFLOPS",
                                             Better::kHigher, std::move(gflops),
                                             std::move(params)));
    if (!bad.empty()) {
      r.Add(GemmDeterminismFinding(runs.front(), bad, n, runs.size()));
      r.summary = fmt::format("{} of {} runs differ bitwise", bad.size(), runs.size());
    } else {
      r.summary = fmt::format("{} sgemm runs ({}x{}, {} per core on cpus {}) bit-identical",
                              runs.size(), n, n, repeats, cpus.ToString());
    }
    return r;
  }
};

}  // namespace

YS_REGISTER(
    CpuGemmDeterminismBenchmark,
    {.id = "gemm.cpu.determinism",
     .summary = "Identical sgemm inputs give bit-identical outputs across repeats and cores",
     .needs = {Need::kLiveHost},
     .codes = {{"YS-BENCH-010", Severity::kFail,
                "CPU GEMM results not bit-identical across repeats or cores"}},
     .measures = {.kind = FigureKind::kCpuGemm,
                  .figures = {{"mismatched_runs", "runs", Better::kLower},
                              {"gflops_per_core", "GFLOPS", Better::kHigher}},
                  .identity = {"backend", "device", "dtype", "n", "runs", "repeats_per_core",
                               "threads", "cpus"}}})

}  // namespace ys::bench
