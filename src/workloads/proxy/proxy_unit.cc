#include "workloads/proxy/proxy_unit.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <sstream>

#include "bench/available_memory.h"
#include "bench/cpu_peak.h"
#include "bench/gemm/internal/openblas_util.h"
#include "core/text.h"
#include "host/busy_core_clock.h"
#include "host/foreign_cpu.h"
#include "workloads/proxy/internal/proxy_executor.h"
#include "workloads/step_time.h"

namespace ys::workloads {
namespace {

using bench::BenchContext;

// This rank's pid, host and allowed CPUs, gathered: the job's pids on this node (left out of the
// foreign CPU time) and the union of their CPUs (the job's cores on this node).
struct JobCpus {
  std::set<int> pids;
  CpuSet cpus;
};
Result<JobCpus> GatherJobCpus(comm::Communicator& comm) {
  auto mine = host::AllowedCpusOfThisProcess();
  if (!mine.ok()) return mine.status();
  char name[256] = {};
  ::gethostname(name, sizeof(name) - 1);
  auto all = comm.AllGather(fmt::format("{}\t{}\t{}", name, ::getpid(), mine->ToString()));
  if (!all.ok()) return all.status();
  JobCpus job;
  for (const std::string& line : *all) {
    auto f = Split(line, '\t');
    if (f.size() != 3 || f[0] != name) continue;
    auto cpus = CpuSet::ParseList(f[2]);
    if (!cpus.ok()) return cpus.status();
    job.pids.insert(std::stoi(std::string(f[1])));
    job.cpus = job.cpus.Union(*cpus);
  }
  return job;
}

// Every rank's step times gathered: [rank][step].
Result<std::vector<std::vector<double>>> GatherSteps(comm::Communicator& comm,
                                                     const std::vector<double>& mine) {
  std::string text;
  for (double s : mine) text += fmt::format("{:.9e} ", s);
  auto all = comm.AllGather(text);
  if (!all.ok()) return all.status();
  std::vector<std::vector<double>> out;
  for (const std::string& t : *all) {
    std::istringstream in(t);
    std::vector<double> v;
    for (double x; in >> x;) v.push_back(x);
    out.push_back(std::move(v));
  }
  return out;
}

// The CPU's fp32 peak in TFLOPS for `threads` BLAS threads, with its formula; nullopt and a note
// when it cannot be computed.
std::optional<bench::CpuPeak> CpuPeakFp32(const BenchContext& ctx, int threads,
                                          BenchmarkResult& r) {
  const auto& topo = ctx.topology();
  auto allowed = host::AllowedCpusOfThisProcess();
  auto cpuinfo = ctx.host().ReadFile("/proc/cpuinfo");
  if (!topo.ok() || !allowed.ok() || !cpuinfo.ok()) return std::nullopt;
  auto isa = bench::DetectVectorIsaFromCpuinfo(*cpuinfo);
  if (!isa.ok()) return std::nullopt;
  CpuSet cores = host::SelectBusyClockCpus(*topo, *allowed, INT_MAX);
  int n = std::min<int>(threads, static_cast<int>(cores.size()));
  auto clock = host::MeasureBusyClockMhz(host::SelectBusyClockCpus(*topo, *allowed, n), 10);
  if (!clock.ok()) return std::nullopt;
  std::vector<double> mhz;
  for (const auto& [cpu, v] : *clock) mhz.push_back(v);
  bench::CpuPeak peak = bench::ComputeCpuPeak(*isa, false, n, MedianOf(mhz));
  r.Note("peak_fp32", peak.formula + " (" + isa->assumption + ")");
  return peak;
}

std::string SlowRanks(const std::vector<int>& ranks) {
  std::vector<std::string> out;
  for (int r : ranks) out.push_back(std::to_string(r));
  return out.empty() ? "none" : Join(out);
}

std::string Fmt(double v) { return fmt::format("{:.6g}", v); }

}  // namespace

BenchmarkResult RunProxy(const BenchContext& ctx, std::string_view model) {
  const std::string id = "proxy." + std::string(model);
  if (ctx.quick() && model != kQuickProxyModel)
    return BenchmarkResult::Skip(
        fmt::format("the quick profile runs proxy.{} only; `yardstick bench --filter 'proxy.*'` "
                    "runs this model",
                    kQuickProxyModel));
  if (!ctx.Allows(bench::Backend::kCpu))
    return BenchmarkResult::Skip(
        "--backend gpu: the GPU proxy (cuBLASLt, NCCL) is not implemented yet");
  std::string path = ctx.options().data_dir + "/models/" + std::string(model) + ".toml";
  auto spec = predict::LoadModelSpec(path);
  if (!spec.ok()) return BenchmarkResult::Error(spec.status());
  std::string why;
  auto recipe = CpuRecipe(*spec, &why);
  if (!recipe.ok()) return BenchmarkResult::Error(recipe.status());
  PlanOptions po{.scale = CpuScaleFactor(*spec, *recipe),
                 .layers = spec->hybrid ? 3 : 2,
                 .micro_batches = 1,
                 .dtype_bytes = 4};
  auto plan = PlanProxyStep(*spec, *recipe, po);
  if (!plan.ok())
    return BenchmarkResult::Skip("the CPU proxy cannot run this model: " + plan.status().message());

  comm::Communicator& comm = ctx.comm();
  // OpenBLAS threads: the node's cores shared by the job's ranks on it.
  auto allowed = host::AllowedCpusOfThisProcess();
  int threads = std::max<int>(1, (allowed.ok() ? static_cast<int>(allowed->size()) : 1) /
                                     std::max(1, ctx.launch().local_size));
  bench::ScopedOpenBlasThreads blas_threads(threads);
  // The buffers are checked against half the node's available memory, shared by its ranks, before
  // anything is allocated: a huge shape in the model file is an error naming it, not bad_alloc.
  const int local_ranks = std::max(1, ctx.launch().local_size);
  double budget = 8.0 * (1ull << 30);
  std::string budget_why = "8 GiB: /proc/meminfo has no MemAvailable";
  if (auto avail = bench::AvailableMemoryBytes(ctx.host()); avail.ok()) {
    budget = static_cast<double>(*avail) / 2 / local_ranks;
    budget_why = fmt::format("half of MemAvailable shared by {} rank(s) on this node", local_ranks);
  }
  Status fits = CheckProxyMemory(*plan, path, budget, budget_why);
  // Open is collective: the ranks decide together, so that one rank refusing alone does not leave
  // the others waiting in it.
  auto verdicts = comm.AllGather(fits.ok() ? "" : fits.message());
  if (!verdicts.ok()) return BenchmarkResult::Error(verdicts.status());
  for (size_t r = 0; r < verdicts->size(); ++r) {
    if ((*verdicts)[r].empty()) continue;
    return BenchmarkResult::Error(Status::Invalid(
        static_cast<int>(r) == comm.rank() ? (*verdicts)[r]
                                           : fmt::format("rank {}: {}", r, (*verdicts)[r])));
  }
  auto exec = ProxyExecutor::Open(*plan, comm);
  if (!exec.ok()) return BenchmarkResult::Error(exec.status());

  BenchmarkResult r;
  bench::OpenBlasInfo blas = bench::QueryOpenBlas();
  r.Note("recipe", why);
  // Evidence keys are unique (the JSON document is an object): "plan.1", "plan.2", ...
  for (size_t i = 0; i < plan->notes.size(); ++i)
    r.Note(fmt::format("plan.{}", i + 1), plan->notes[i]);
  for (size_t i = 0; i < (*exec)->notes().size(); ++i)
    r.Note(fmt::format("collectives.{}", i + 1), (*exec)->notes()[i]);
  r.Note("backend", fmt::format("cpu: OpenBLAS sgemm fp32 ({} kernel, {} threads), collectives {}",
                                blas.corename, threads, (*exec)->library()));

  // Warm-up steps before the calibration: a process's first ops pay for page faults on fresh
  // buffers and the BLAS thread pool's start, which made the first proxy of a process predict
  // twice its step time when calibrated cold.
  int warmup = ctx.Warmup(ctx.quick() ? 1 : 2);
  int steps = std::max(4, ctx.Iters(ctx.quick() ? 8 : 20));
  for (int i = 0; i < std::max(1, warmup); ++i) {
    ctx.Progress(fmt::format("warm-up step {}", i + 1));
    if (auto s = (*exec)->Step(nullptr); !s.ok()) return BenchmarkResult::Error(s.status());
  }
  ctx.Progress("calibration");
  int cal_iters = ctx.quick() ? 3 : 5;
  auto times = (*exec)->Calibrate(1, cal_iters);
  if (!times.ok()) return BenchmarkResult::Error(times.status());
  auto roof = PredictStep(*plan, *times);
  if (!roof.ok()) return BenchmarkResult::Error(roof.status());

  auto job = GatherJobCpus(comm);
  if (!job.ok()) return BenchmarkResult::Error(job.status());
  if (Status s = comm.Barrier(); !s.ok()) return BenchmarkResult::Error(s);
  host::ProcessSnapshot before = host::SnapshotProcesses(ctx.host(), job->pids);
  auto t0 = std::chrono::steady_clock::now();
  std::vector<double> mine;
  std::map<OpClass, double> measured;
  for (int i = 0; i < steps; ++i) {
    ctx.Progress(fmt::format("step {}", i + 1));
    if (Status s = comm.Barrier(); !s.ok()) return BenchmarkResult::Error(s);
    auto s = (*exec)->Step(&measured);
    if (!s.ok()) return BenchmarkResult::Error(s.status());
    mine.push_back(*s);
  }
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  host::ProcessSnapshot after = host::SnapshotProcesses(ctx.host(), job->pids);
  auto foreign = host::AttributeForeignCpu(before, after, job->cpus, wall, ::sysconf(_SC_CLK_TCK));
  if (!foreign.ok()) return BenchmarkResult::Error(foreign.status());
  auto ranks = GatherSteps(comm, mine);
  if (!ranks.ok()) return BenchmarkResult::Error(ranks.status());
  // The foreign share of the node that saw the most (ranks on several nodes each see their own).
  auto worst = comm.AllReduceMax(foreign->share);
  if (!worst.ok()) return BenchmarkResult::Error(worst.status());

  std::vector<double> job_steps(steps, 0.0);
  std::vector<StepSample> tagged;
  for (size_t rk = 0; rk < ranks->size(); ++rk) {
    const auto& v = (*ranks)[rk];
    for (int i = 0; i < steps && i < static_cast<int>(v.size()); ++i) {
      job_steps[i] = std::max(job_steps[i], v[i]);
      tagged.push_back({v[i], static_cast<int>(rk)});
    }
  }

  const std::map<std::string, std::string> common{
      {"backend", "cpu"},
      {"device", "cpu"},
      {"dtype", "fp32"},
      {"scale", fmt::format("1/{}", po.scale)},
      {"layers", std::to_string(plan->layers.size())},
      {"micro_batches", std::to_string(plan->micro_batches)},
      {"ranks", std::to_string(comm.size())},
      {"recipe", fmt::format("{}/{}/{}", recipe->chip, recipe->dtype, recipe->gpus)}};
  auto with = [&](std::map<std::string, std::string> extra) {
    extra.insert(common.begin(), common.end());
    return extra;
  };
  Measurement step =
      bench::MakeMeasurement(id + ".step_time", "s", Better::kLower, job_steps, with({}));
  r.measurements.push_back(step);
  for (size_t rk = 0; rk < ranks->size(); ++rk)
    r.measurements.push_back(bench::MakeMeasurement(id + ".rank_step_time", "s", Better::kLower,
                                                    (*ranks)[rk],
                                                    with({{"rank", std::to_string(rk)}})));
  r.measurements.push_back(
      bench::MakeMeasurement(id + ".predicted_step_time", "s", Better::kLower, {roof->serial_s},
                             with({{"overlapped_bound_s", Fmt(roof->overlapped_s)},
                                   {"compute_s", Fmt(roof->compute_s)},
                                   {"comm_s", Fmt(roof->comm_s)},
                                   {"assumption", roof->assumption}})));
  std::vector<double> tokens_s, tflops;
  for (double s : job_steps) {
    tokens_s.push_back(plan->StepTokens() / s);
    tflops.push_back(plan->StepGemmFlops() / s / 1e12);
  }
  Measurement tokens =
      bench::MakeMeasurement(id + ".tokens_per_s_per_gpu", "tokens/s", Better::kHigher, tokens_s,
                             with({{"tokens_per_step", Fmt(plan->StepTokens())},
                                   {"note", "per rank (one rank stands for one GPU)"}}));
  r.measurements.push_back(tokens);
  Measurement mf = bench::MakeMeasurement(
      id + ".model_tflops_per_gpu", "TFLOPS", Better::kHigher, tflops,
      with({{"flops_per_step", Fmt(plan->StepGemmFlops())},
            {"flops_formula",
             "the plan's GEMMs: 2 m n k x batch, fwd + dgrad + wgrad (excl. head, scan)"}}));
  if (auto peak = CpuPeakFp32(ctx, threads, r)) {
    double p = peak->gflops / 1000;
    mf.params["peak"] = Fmt(p);
    mf.params["peak_source"] = "computed: cores x GHz x flops/cycle (bench/cpu_peak.h)";
    mf.params["pct_of_peak"] = fmt::format("{:.1f}", 100 * mf.value / p);
  }
  r.measurements.push_back(mf);
  r.measurements.push_back(bench::MakeMeasurement(
      id + ".foreign_cpu_share", "fraction", Better::kLower, {*worst},
      with({{"job_cpus", foreign->job_cpus.ToString()}, {"method", foreign->note}})));
  for (size_t i = 0; i < foreign->processes.size() && i < 10; ++i)
    r.Note(fmt::format("foreign_process.{}", i + 1), foreign->processes[i].Describe());

  double gap = PredictionGap(step.value, roof->serial_s).value_or(0);
  r.Note("prediction", roof->assumption);
  r.Note("prediction_gap", fmt::format("{:+.1f}% (measured {:.4g} s / predicted {:.4g} s - 1)",
                                       gap * 100, step.value, roof->serial_s));
  if (auto a = AnalyzeStepTimes(tagged); a.ok()) {
    r.Note("step_time_analysis",
           fmt::format("median {:.4g} s, p99 {:.4g} s, CV {:.3f}, bimodal {}, periodic stalls {} "
                       "({} spikes), drift {:+.1f}%{}, slow ranks {}",
                       a->median_s, a->p99_s, a->cv, a->bimodality.bimodal ? "yes" : "no",
                       a->stalls.periodic ? "yes" : "no", a->stalls.spikes, a->drift.total_percent,
                       a->drift.drifting ? " (drifting)" : "", SlowRanks(a->slow_ranks)));
  } else {
    r.Note("step_time_analysis", a.status().message());
  }

  ResultTable table{
      .title = fmt::format("{} proxy step (per step; measured = sum over the timed steps / {})",
                           spec->display_name, steps),
      .columns = {"op class", "count", "GFLOP or MB", "measured ms", "predicted ms"}};
  for (const ClassPrediction& c : roof->classes) {
    bool gemm = c.cls == OpClass::kGemmFwd || c.cls == OpClass::kGemmBwd;
    table.rows.push_back({OpClassName(c.cls), std::to_string(c.count),
                          fmt::format("{:.3f}", gemm ? c.flops / 1e9 : c.bytes / 1e6),
                          fmt::format("{:.3f}", measured[c.cls] / steps * 1e3),
                          fmt::format("{:.3f}", c.predicted_s * 1e3)});
  }
  table.footer.push_back(
      fmt::format("# step: measured {:.4g} s (median of {}), predicted {:.4g} s serial, "
                  "{:.4g} s fully overlapped; gap {:+.1f}%",
                  step.value, steps, roof->serial_s, roof->overlapped_s, gap * 100));
  r.tables.push_back(std::move(table));
  r.summary = fmt::format(
      "step {:.4g} s (predicted {:.4g} s, gap {:+.1f}%), {:.0f} tokens/s/GPU, {:.3g} "
      "TFLOPS/GPU; 1/{} scale, {} layers, {} rank(s); foreign CPU {:.1f}%",
      step.value, roof->serial_s, gap * 100, tokens.value, mf.value, po.scale, plan->layers.size(),
      comm.size(), *worst * 100);
  return r;
}

Measures ProxyMeasures() {
  return {.kind = FigureKind::kProxy,
          .figures = {{"step_time", "s", Better::kLower},
                      {"rank_step_time", "s", Better::kLower},
                      {"predicted_step_time", "s", Better::kLower},
                      {"tokens_per_s_per_gpu", "tokens/s", Better::kHigher},
                      {"model_tflops_per_gpu", "TFLOPS", Better::kHigher, PeakKind::kCpuFlops},
                      {"foreign_cpu_share", "fraction", Better::kLower}},
          .identity = {"backend", "device", "dtype", "recipe", "scale", "layers", "micro_batches",
                       "ranks", "rank"}};
}

}  // namespace ys::workloads
