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

// The model a proxy unit runs: its file, spec and CPU recipe, and how the plan scales it.
struct ProxyModel {
  std::string path;  // models/<model>.toml
  predict::ModelSpec spec;
  predict::Parallelism recipe;  // the CPU recipe (CpuRecipe)
  std::string why;              // why that recipe
  PlanOptions options;
};

// The skip for a model the profile does not run or a backend the operator ruled out; nullopt
// when the unit runs.
std::optional<BenchmarkResult> ProxySkipReason(const BenchContext& ctx, std::string_view model) {
  if (ctx.quick() && model != kQuickProxyModel)
    return BenchmarkResult::Skip(
        fmt::format("the quick profile runs proxy.{} only; `yardstick bench --filter 'proxy.*'` "
                    "runs this model",
                    kQuickProxyModel));
  if (!ctx.Allows(bench::Backend::kCpu))
    return BenchmarkResult::Skip(
        "--backend gpu: the GPU proxy (cuBLASLt, NCCL) is not implemented yet");
  return std::nullopt;
}

// models/<model>.toml, its CPU recipe and the plan options that scale it down for a CPU.
Result<ProxyModel> LoadProxyModel(const BenchContext& ctx, std::string_view model) {
  ProxyModel m;
  m.path = ctx.options().data_dir + "/models/" + std::string(model) + ".toml";
  auto spec = predict::LoadModelSpec(m.path);
  if (!spec.ok()) return spec.status();
  m.spec = std::move(*spec);
  auto recipe = CpuRecipe(m.spec, &m.why);
  if (!recipe.ok()) return recipe.status();
  m.recipe = std::move(*recipe);
  m.options = PlanOptions{.scale = CpuScaleFactor(m.spec, m.recipe),
                          .layers = m.spec.hybrid ? 3 : 2,
                          .micro_batches = 1,
                          .dtype_bytes = 4};
  return m;
}

// OpenBLAS threads: the node's cores shared by the job's ranks on it.
int ProxyBlasThreads(const BenchContext& ctx) {
  auto allowed = host::AllowedCpusOfThisProcess();
  return std::max<int>(1, (allowed.ok() ? static_cast<int>(allowed->size()) : 1) /
                              std::max(1, ctx.launch().local_size));
}

// The memory one rank's buffers may take, and where that figure came from.
struct ProxyMemoryBudget {
  double bytes = 8.0 * (1ull << 30);
  std::string why = "8 GiB: /proc/meminfo has no MemAvailable";
};

// Half the node's available memory shared by its ranks; 8 GiB when MemAvailable is unknown.
ProxyMemoryBudget MemoryBudgetPerRank(const BenchContext& ctx) {
  const int local_ranks = std::max(1, ctx.launch().local_size);
  ProxyMemoryBudget budget;
  if (auto avail = bench::AvailableMemoryBytes(ctx.host()); avail.ok()) {
    budget.bytes = static_cast<double>(*avail) / 2 / local_ranks;
    budget.why = fmt::format("half of MemAvailable shared by {} rank(s) on this node", local_ranks);
  }
  return budget;
}

// Whether the plan's buffers fit on every rank, checked before anything is allocated: a huge
// shape in the model file is an error naming it, not bad_alloc. The error names the rank.
Status CheckProxyFitsOnEveryRank(const BenchContext& ctx, const ProxyPlan& plan,
                                 const std::string& path) {
  const ProxyMemoryBudget budget = MemoryBudgetPerRank(ctx);
  Status fits = CheckProxyMemory(plan, path, budget.bytes, budget.why);
  // Open is collective: the ranks decide together, so that one rank refusing alone does not leave
  // the others waiting in it.
  comm::Communicator& comm = ctx.comm();
  auto verdicts = comm.AllGather(fits.ok() ? "" : fits.message());
  if (!verdicts.ok()) return verdicts.status();
  for (size_t r = 0; r < verdicts->size(); ++r) {
    if ((*verdicts)[r].empty()) continue;
    return Status::Invalid(static_cast<int>(r) == comm.rank()
                               ? (*verdicts)[r]
                               : fmt::format("rank {}: {}", r, (*verdicts)[r]));
  }
  return Status::Ok();
}

// The setup in the evidence: the recipe's choice, the plan's and the collectives' notes, the
// backend.
void NoteProxySetup(BenchmarkResult& r, const std::string& why, const ProxyPlan& plan,
                    const ProxyExecutor& exec, int threads) {
  bench::OpenBlasInfo blas = bench::QueryOpenBlas();
  r.Note("recipe", why);
  // Evidence keys are unique (the JSON document is an object): "plan.1", "plan.2", ...
  for (size_t i = 0; i < plan.notes.size(); ++i)
    r.Note(fmt::format("plan.{}", i + 1), plan.notes[i]);
  for (size_t i = 0; i < exec.notes().size(); ++i)
    r.Note(fmt::format("collectives.{}", i + 1), exec.notes()[i]);
  r.Note("backend", fmt::format("cpu: OpenBLAS sgemm fp32 ({} kernel, {} threads), collectives {}",
                                blas.corename, threads, exec.library()));
}

// Warm-up steps, then each op timed alone: the roofline prediction of one step. Warm-up comes
// first: a process's first ops pay for page faults on fresh buffers and the BLAS thread pool's
// start, which made the first proxy of a process predict twice its step time when calibrated
// cold.
Result<Roofline> WarmUpAndPredict(const BenchContext& ctx, ProxyExecutor& exec,
                                  const ProxyPlan& plan) {
  int warmup = ctx.Warmup(ctx.quick() ? 1 : 2);
  for (int i = 0; i < std::max(1, warmup); ++i) {
    ctx.Progress(fmt::format("warm-up step {}", i + 1));
    if (auto s = exec.Step(nullptr); !s.ok()) return s.status();
  }
  ctx.Progress("calibration");
  int cal_iters = ctx.quick() ? 3 : 5;
  auto times = exec.Calibrate(1, cal_iters);
  if (!times.ok()) return times.status();
  return PredictStep(plan, *times);
}

// What the timed steps measured.
struct ProxyTimedSteps {
  std::vector<std::vector<double>> ranks;  // every rank's step times: [rank][step]
  std::map<OpClass, double> measured;      // this rank's seconds per op class, all steps summed
  host::ForeignCpu foreign;                // CPU time other processes took on this node's cores
  double worst_foreign_share = 0;          // the foreign share of the node that saw the most
};

// The timed steps, each started together on every rank, with the CPU time that processes outside
// the job took on the job's cores meanwhile; then every rank's step times gathered.
Result<ProxyTimedSteps> RunTimedSteps(const BenchContext& ctx, ProxyExecutor& exec, int steps) {
  comm::Communicator& comm = ctx.comm();
  auto job = GatherJobCpus(comm);
  if (!job.ok()) return job.status();
  YS_RETURN_IF_ERROR(comm.Barrier());
  host::ProcessSnapshot before = host::SnapshotProcesses(ctx.host(), job->pids);
  auto t0 = std::chrono::steady_clock::now();
  ProxyTimedSteps out;
  std::vector<double> mine;
  for (int i = 0; i < steps; ++i) {
    ctx.Progress(fmt::format("step {}", i + 1));
    YS_RETURN_IF_ERROR(comm.Barrier());
    auto s = exec.Step(&out.measured);
    if (!s.ok()) return s.status();
    mine.push_back(*s);
  }
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  host::ProcessSnapshot after = host::SnapshotProcesses(ctx.host(), job->pids);
  auto foreign = host::AttributeForeignCpu(before, after, job->cpus, wall, ::sysconf(_SC_CLK_TCK));
  if (!foreign.ok()) return foreign.status();
  out.foreign = std::move(*foreign);
  auto ranks = GatherSteps(comm, mine);
  if (!ranks.ok()) return ranks.status();
  out.ranks = std::move(*ranks);
  // The foreign share of the node that saw the most (ranks on several nodes each see their own).
  auto worst = comm.AllReduceMax(out.foreign.share);
  if (!worst.ok()) return worst.status();
  out.worst_foreign_share = *worst;
  return out;
}

// The job's step series (step k takes as long as its slowest rank) and every rank's steps tagged
// with the rank, for the step-time analysis.
struct JobStepSeries {
  std::vector<double> steps;
  std::vector<StepSample> tagged;
};
JobStepSeries JobStepsOf(const std::vector<std::vector<double>>& ranks, int steps) {
  JobStepSeries job{.steps = std::vector<double>(steps, 0.0)};
  for (size_t rk = 0; rk < ranks.size(); ++rk) {
    const auto& v = ranks[rk];
    for (int i = 0; i < steps && i < static_cast<int>(v.size()); ++i) {
      job.steps[i] = std::max(job.steps[i], v[i]);
      job.tagged.push_back({v[i], static_cast<int>(rk)});
    }
  }
  return job;
}

// What a proxy run's measurements, evidence and table are drawn from.
struct ProxyRunFigures {
  const std::string& id;  // "proxy.<model>"
  const ProxyModel& model;
  const ProxyPlan& plan;
  const Roofline& roof;
  const ProxyTimedSteps& timed;
  const JobStepSeries& job;
  int steps = 0;    // timed steps
  int threads = 0;  // OpenBLAS threads
  int ranks = 0;    // the job's ranks
};

// The headline figures: the job's median step, tokens/s and model TFLOPS per rank.
struct ProxyHeadline {
  double step_s = 0, tokens_per_s = 0, tflops = 0;
};

using ProxyParams = std::map<std::string, std::string>;

// The params every proxy measurement carries: the backend and how the model was scaled down.
ProxyParams CommonProxyParams(const ProxyRunFigures& run) {
  const predict::Parallelism& recipe = run.model.recipe;
  return {{"backend", "cpu"},
          {"device", "cpu"},
          {"dtype", "fp32"},
          {"scale", fmt::format("1/{}", run.model.options.scale)},
          {"layers", std::to_string(run.plan.layers.size())},
          {"micro_batches", std::to_string(run.plan.micro_batches)},
          {"ranks", std::to_string(run.ranks)},
          {"recipe", fmt::format("{}/{}/{}", recipe.chip, recipe.dtype, recipe.gpus)}};
}

// `extra` with the common params added (where `extra` has a key, its value stays).
ProxyParams WithCommonParams(const ProxyParams& common, ProxyParams extra) {
  extra.insert(common.begin(), common.end());
  return extra;
}

// The job's step time, each rank's, and the predicted step; the job's median step in seconds.
double AddStepTimeMeasurements(BenchmarkResult& r, const ProxyRunFigures& run,
                               const ProxyParams& common) {
  const std::string& id = run.id;
  Measurement step = bench::MakeMeasurement(id + ".step_time", "s", Better::kLower, run.job.steps,
                                            WithCommonParams(common, {}));
  r.measurements.push_back(step);
  for (size_t rk = 0; rk < run.timed.ranks.size(); ++rk)
    r.measurements.push_back(
        bench::MakeMeasurement(id + ".rank_step_time", "s", Better::kLower, run.timed.ranks[rk],
                               WithCommonParams(common, {{"rank", std::to_string(rk)}})));
  const Roofline& roof = run.roof;
  r.measurements.push_back(bench::MakeMeasurement(
      id + ".predicted_step_time", "s", Better::kLower, {roof.serial_s},
      WithCommonParams(common, {{"overlapped_bound_s", Fmt(roof.overlapped_s)},
                                {"compute_s", Fmt(roof.compute_s)},
                                {"comm_s", Fmt(roof.comm_s)},
                                {"assumption", roof.assumption}})));
  return step.value;
}

// Tokens/s and model TFLOPS per rank (one rank stands for one GPU), the TFLOPS against the CPU's
// fp32 peak when it can be computed; their medians into `headline`.
void AddThroughputMeasurements(BenchmarkResult& r, const BenchContext& ctx,
                               const ProxyRunFigures& run, const ProxyParams& common,
                               ProxyHeadline& headline) {
  const ProxyPlan& plan = run.plan;
  std::vector<double> tokens_s, tflops;
  for (double s : run.job.steps) {
    tokens_s.push_back(plan.StepTokens() / s);
    tflops.push_back(plan.StepGemmFlops() / s / 1e12);
  }
  Measurement tokens = bench::MakeMeasurement(
      run.id + ".tokens_per_s_per_gpu", "tokens/s", Better::kHigher, tokens_s,
      WithCommonParams(common, {{"tokens_per_step", Fmt(plan.StepTokens())},
                                {"note", "per rank (one rank stands for one GPU)"}}));
  r.measurements.push_back(tokens);
  Measurement mf = bench::MakeMeasurement(
      run.id + ".model_tflops_per_gpu", "TFLOPS", Better::kHigher, tflops,
      WithCommonParams(
          common, {{"flops_per_step", Fmt(plan.StepGemmFlops())},
                   {"flops_formula",
                    "the plan's GEMMs: 2 m n k x batch, fwd + dgrad + wgrad (excl. head, scan)"}}));
  if (auto peak = CpuPeakFp32(ctx, run.threads, r)) {
    double p = peak->gflops / 1000;
    mf.params["peak"] = Fmt(p);
    mf.params["peak_source"] = "computed: cores x GHz x flops/cycle (bench/cpu_peak.h)";
    mf.params["pct_of_peak"] = fmt::format("{:.1f}", 100 * mf.value / p);
  }
  r.measurements.push_back(mf);
  headline.tokens_per_s = tokens.value;
  headline.tflops = mf.value;
}

// The foreign CPU share of the node that saw the most, and this node's foreign processes (10 at
// most) in the evidence.
void AddForeignCpuEvidence(BenchmarkResult& r, const ProxyRunFigures& run,
                           const ProxyParams& common) {
  const host::ForeignCpu& foreign = run.timed.foreign;
  r.measurements.push_back(bench::MakeMeasurement(
      run.id + ".foreign_cpu_share", "fraction", Better::kLower, {run.timed.worst_foreign_share},
      WithCommonParams(common,
                       {{"job_cpus", foreign.job_cpus.ToString()}, {"method", foreign.note}})));
  for (size_t i = 0; i < foreign.processes.size() && i < 10; ++i)
    r.Note(fmt::format("foreign_process.{}", i + 1), foreign.processes[i].Describe());
}

// Every measurement of the run, in the document's order; the headline figures.
ProxyHeadline AddProxyMeasurements(BenchmarkResult& r, const BenchContext& ctx,
                                   const ProxyRunFigures& run) {
  const ProxyParams common = CommonProxyParams(run);
  ProxyHeadline headline;
  headline.step_s = AddStepTimeMeasurements(r, run, common);
  AddThroughputMeasurements(r, ctx, run, common, headline);
  AddForeignCpuEvidence(r, run, common);
  return headline;
}

// The prediction, its gap to the measured step and the step-time analysis in the evidence; the
// gap (measured / predicted - 1; 0 when there is none).
double NoteStepTimeAnalysis(BenchmarkResult& r, const ProxyRunFigures& run, double step_s) {
  double gap = PredictionGap(step_s, run.roof.serial_s).value_or(0);
  r.Note("prediction", run.roof.assumption);
  r.Note("prediction_gap", fmt::format("{:+.1f}% (measured {:.4g} s / predicted {:.4g} s - 1)",
                                       gap * 100, step_s, run.roof.serial_s));
  if (auto a = AnalyzeStepTimes(run.job.tagged); a.ok()) {
    r.Note("step_time_analysis",
           fmt::format("median {:.4g} s, p99 {:.4g} s, CV {:.3f}, bimodal {}, periodic stalls {} "
                       "({} spikes), drift {:+.1f}%{}, slow ranks {}",
                       a->median_s, a->p99_s, a->cv, a->bimodality.bimodal ? "yes" : "no",
                       a->stalls.periodic ? "yes" : "no", a->stalls.spikes, a->drift.total_percent,
                       a->drift.drifting ? " (drifting)" : "", SlowRanks(a->slow_ranks)));
  } else {
    r.Note("step_time_analysis", a.status().message());
  }
  return gap;
}

// The step by op class, measured (this rank's, per step) beside predicted, and the step's totals.
ResultTable ProxyOpClassTable(const ProxyRunFigures& run, double step_s, double gap) {
  const int steps = run.steps;
  const Roofline& roof = run.roof;
  ResultTable table{
      .title = fmt::format("{} proxy step (per step; measured = sum over the timed steps / {})",
                           run.model.spec.display_name, steps),
      .columns = {"op class", "count", "GFLOP or MB", "measured ms", "predicted ms"}};
  for (const ClassPrediction& c : roof.classes) {
    bool gemm = c.cls == OpClass::kGemmFwd || c.cls == OpClass::kGemmBwd;
    auto measured = run.timed.measured.find(c.cls);
    double measured_s = measured == run.timed.measured.end() ? 0.0 : measured->second;
    table.rows.push_back({OpClassName(c.cls), std::to_string(c.count),
                          fmt::format("{:.3f}", gemm ? c.flops / 1e9 : c.bytes / 1e6),
                          fmt::format("{:.3f}", measured_s / steps * 1e3),
                          fmt::format("{:.3f}", c.predicted_s * 1e3)});
  }
  table.footer.push_back(
      fmt::format("# step: measured {:.4g} s (median of {}), predicted {:.4g} s serial, "
                  "{:.4g} s fully overlapped; gap {:+.1f}%",
                  step_s, steps, roof.serial_s, roof.overlapped_s, gap * 100));
  return table;
}

// The one-line summary: the step against its prediction, throughput, scale and foreign CPU.
std::string ProxySummary(const ProxyRunFigures& run, const ProxyHeadline& headline, double gap) {
  return fmt::format(
      "step {:.4g} s (predicted {:.4g} s, gap {:+.1f}%), {:.0f} tokens/s/GPU, {:.3g} "
      "TFLOPS/GPU; 1/{} scale, {} layers, {} rank(s); foreign CPU {:.1f}%",
      headline.step_s, run.roof.serial_s, gap * 100, headline.tokens_per_s, headline.tflops,
      run.model.options.scale, run.plan.layers.size(), run.ranks,
      run.timed.worst_foreign_share * 100);
}

}  // namespace

BenchmarkResult RunProxy(const BenchContext& ctx, std::string_view model) {
  const std::string id = "proxy." + std::string(model);
  if (auto skip = ProxySkipReason(ctx, model)) return std::move(*skip);
  auto m = LoadProxyModel(ctx, model);
  if (!m.ok()) return BenchmarkResult::Error(m.status());
  auto plan = PlanProxyStep(m->spec, m->recipe, m->options);
  if (!plan.ok())
    return BenchmarkResult::Skip("the CPU proxy cannot run this model: " + plan.status().message());

  comm::Communicator& comm = ctx.comm();
  const int threads = ProxyBlasThreads(ctx);
  bench::ScopedOpenBlasThreads blas_threads(threads);
  if (Status fits = CheckProxyFitsOnEveryRank(ctx, *plan, m->path); !fits.ok())
    return BenchmarkResult::Error(fits);
  auto exec = ProxyExecutor::Open(*plan, comm);
  if (!exec.ok()) return BenchmarkResult::Error(exec.status());

  BenchmarkResult r;
  NoteProxySetup(r, m->why, *plan, **exec, threads);
  const int steps = std::max(4, ctx.Iters(ctx.quick() ? 8 : 20));
  auto roof = WarmUpAndPredict(ctx, **exec, *plan);
  if (!roof.ok()) return BenchmarkResult::Error(roof.status());
  auto timed = RunTimedSteps(ctx, **exec, steps);
  if (!timed.ok()) return BenchmarkResult::Error(timed.status());
  const JobStepSeries job = JobStepsOf(timed->ranks, steps);

  const ProxyRunFigures run{.id = id,
                            .model = *m,
                            .plan = *plan,
                            .roof = *roof,
                            .timed = *timed,
                            .job = job,
                            .steps = steps,
                            .threads = threads,
                            .ranks = comm.size()};
  const ProxyHeadline headline = AddProxyMeasurements(r, ctx, run);
  const double gap = NoteStepTimeAnalysis(r, run, headline.step_s);
  r.tables.push_back(ProxyOpClassTable(run, headline.step_s, gap));
  r.summary = ProxySummary(run, headline, gap);
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
