// The collective engine: backend choice, the sweep and --pairwise (sweep.h); one timed step on
// every rank is timed_step.h.
#include "bench/coll/internal/sweep.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "bench/coll/internal/timed_step.h"
#include "core/finding_codes.h"
#include "core/text.h"

namespace ys::bench::coll {
namespace {

using comm::CollectiveBackend;
using comm::CollectiveOp;

// Defaults per profile and backend: the full CPU sweep is the 8:128M:x2; GPUs get larger
// messages, where their links saturate; the quick profile (yardstick run) stays small.
const char* DefaultSizes(bool quick, bool gpu) {
  if (quick) return gpu ? "1K:256M:x16" : "1K:1M:x32";
  return gpu ? "8:1G:x2" : "8:128M:x2";
}
constexpr int kFullIters = 20;  // nccl-tests -n
constexpr int kQuickIters = 5;
constexpr int kWarmup = 1;       // nccl-tests -w (since 2025; 5 before)
constexpr int kPairRepeats = 3;  // --pairwise: measurements per pair, the median kept

struct Opened {
  std::unique_ptr<CollectiveBackend> backend;
  std::string skip_reason;   // set: skip the unit
  std::string nccl_missing;  // auto fell back to MPI: why
};

// --backend cpu -> MPI; gpu -> NCCL or skip; auto -> NCCL when every rank can use it, else MPI.
// Every rank reaches the same decision (the availability is agreed over the job). NCCL follows
// the job's GPU layout: one process driving every local GPU without a launcher, one GPU per rank
// under mpirun/srun (comm::OpenNcclForJob).
Result<Opened> OpenBackend(const BenchContext& ctx) {
  Opened o;
  const Backend want = ctx.options().backend;
  if (want != Backend::kCpu) {
    Status local = comm::NcclAvailable();
    auto everywhere = ctx.comm().AllReduceMin(local.ok() ? 1.0 : 0.0);
    if (!everywhere.ok()) return everywhere.status();
    if (*everywhere >= 1.0) {
      auto b = comm::OpenNcclForJob(ctx.comm(), ctx.launch());
      if (!b.ok()) return b.status();
      o.backend = std::move(*b);
      return o;
    }
    o.nccl_missing = local.ok() ? "NCCL is not usable on every rank of the job" : local.message();
    if (want == Backend::kGpu) {
      o.skip_reason = o.nccl_missing;
      return o;
    }
  }
  auto b = comm::OpenMpiCollectives(ctx.comm());
  if (!b.ok()) {
    if (b.status().code() == StatusCode::kNotFound) {
      o.skip_reason = b.status().message();
      return o;
    }
    return b.status();
  }
  o.backend = std::move(*b);
  return o;
}

Result<std::vector<comm::DataType>> SelectedDataTypes(const BenchOptions& options) {
  std::vector<comm::DataType> out;
  for (const auto& name : options.dtypes) {
    auto t = comm::ParseDataType(name);
    if (!t) return Status::Invalid("--dtype \"" + name + "\": expected float or bfloat16");
    if (std::find(out.begin(), out.end(), *t) == out.end()) out.push_back(*t);
  }
  if (out.empty()) out.push_back(comm::DataType::kFloat32);  // nccl-tests' default
  return out;
}

std::vector<double> Finite(const std::vector<double>& v) {
  std::vector<double> out;
  for (double x : v) {
    if (!std::isnan(x)) out.push_back(x);
  }
  return out;
}

// The facts every measurement of one table shares.
struct Context {
  std::string id;  // "coll.all_reduce"
  std::string backend, library, device;
  int ranks = 1;
  int gpus_per_process = 1;  // > 1: one process drives every local GPU (nccl-tests -g)
};

void AddPlaceMeasurements(BenchmarkResult& r, const Context& c, const CollectiveOp& op,
                          const PlaceResult& p, bool in_place,
                          std::map<std::string, std::string> extra = {}) {
  std::map<std::string, std::string> params = {
      {"size", std::to_string(op.counts.size_bytes())},
      {"count", std::to_string(op.counts.param_count)},
      {"dtype", comm::DataTypeName(op.dtype)},
      {"inplace", in_place ? "1" : "0"},
      {"backend", c.backend},
      {"library", c.library},
      {"device", c.device},
      {"ranks", std::to_string(op.nranks)},
      {"value", "time averaged over ranks (nccl-tests); samples per rank"}};
  // Only the one-process mode names it, so a per-rank series keeps its identity in the history.
  if (c.gpus_per_process > 1) params["gpus_per_process"] = std::to_string(c.gpus_per_process);
  params.insert(extra.begin(), extra.end());
  std::vector<double> times = Finite(p.rank_time_us), algbw, busbw;
  for (double t : times) {
    auto bw = comm::ComputeBandwidth(op.collective, op.counts, op.nranks, t * 1e-6);
    algbw.push_back(bw.algbw_gbps);
    busbw.push_back(bw.busbw_gbps);
  }
  std::string prefix = c.id + (extra.count("pair") ? ".pair" : "");
  for (auto [name, unit, better, samples, value] :
       {std::tuple{".busbw", "GB/s", Better::kHigher, busbw, p.bw.busbw_gbps},
        std::tuple{".algbw", "GB/s", Better::kHigher, algbw, p.bw.algbw_gbps},
        std::tuple{".time_us", "us", Better::kLower, times, p.time_us}}) {
    Measurement m = MakeMeasurement(prefix + name, unit, better, samples, params);
    m.value = value;  // nccl-tests' figure; the stats describe the per-rank spread
    r.measurements.push_back(std::move(m));
  }
}

// How the sweep runs, the same on every rank: its sizes, timed calls and warm-up calls.
struct SweepPlan {
  SizeSweep sizes;
  int iters = 0;
  int warmup = 0;
};

// What the sweep of every dtype shares.
struct SweepSetup {
  const BenchContext& ctx;
  CollectiveBackend& backend;
  comm::Collective coll;
  Context c;
  SweepPlan plan;
  std::vector<std::string> hostnames;  // index = rank of the group
};

// This rank's sub-communicator for one --pairwise round (null when it sits the round out),
// reserved and warmed up; `formed` is false, and `why_not` says why, when any rank could not
// form its pair.
struct PairRoundGroup {
  std::unique_ptr<CollectiveBackend> backend;
  bool formed = true;
  std::string why_not;
};

// Every rank of the job calls this for each round: splits off the pairs, and agrees over the job
// that every rank formed its pair.
PairRoundGroup FormPairRoundGroup(const BenchContext& ctx, CollectiveBackend& world_backend,
                                  const std::vector<std::pair<int, int>>& round,
                                  const CollectiveOp& op, int warmup) {
  const int me = ctx.comm().rank();
  int color = -1;
  for (size_t i = 0; i < round.size(); ++i) {
    if (round[i].first == me || round[i].second == me) color = static_cast<int>(i);
  }
  PairRoundGroup group;
  auto sub = world_backend.Split(color, me);  // key = world rank: the lower rank is the pair's 0
  Status s = sub.ok() ? Status::Ok() : sub.status();
  if (sub.ok()) group.backend = std::move(*sub);
  CollectiveBackend* b = group.backend.get();
  if (b != nullptr && s.ok()) s = b->Reserve(op.counts.size_bytes());
  if (b != nullptr && s.ok()) s = WarmUp(*b, op, warmup, op.counts.size_bytes());
  auto agreed = ctx.comm().AllReduceMin(s.ok() ? 1.0 : 0.0);
  if (!s.ok() || !agreed.ok() || *agreed < 1.0) {
    group.formed = false;
    group.why_not = s.ok() ? std::string("a rank could not form its pair") : s.message();
  }
  return group;
}

// Measures one round kPairRepeats times and appends each pair of it, at its median repetition,
// to `pairs`. Each pair is judged against the others, so a single scheduling hiccup must not
// make it "slow".
Status MeasurePairRound(const BenchContext& ctx, CollectiveBackend* b, const CollectiveOp& op,
                        const std::vector<std::pair<int, int>>& round, int iters, uint32_t& seed,
                        std::vector<PairResult>& pairs) {
  std::vector<std::vector<PlaceResult>> reps(round.size());
  for (int rep = 0; rep < kPairRepeats; ++rep) {
    auto samples = MeasureStep(ctx.comm(), b, op, false, iters, op.counts.size_bytes(), seed += 2);
    if (!samples.ok()) return samples.status();
    for (size_t i = 0; i < round.size(); ++i) {
      auto [a, bb] = round[i];
      PlaceResult p;
      p.rank_time_us = {samples->time_us[a], samples->time_us[bb]};
      p.rank_wrong = {samples->wrong[a], samples->wrong[bb]};
      Summarise(op, p);
      reps[i].push_back(std::move(p));
    }
  }
  for (size_t i = 0; i < round.size(); ++i) {
    int64_t wrong = 0;
    for (const auto& p : reps[i]) wrong += p.wrong;
    std::sort(reps[i].begin(), reps[i].end(),
              [](const auto& x, const auto& y) { return x.time_us < y.time_us; });
    PairResult pair{
        .a = round[i].first, .b = round[i].second, .result = reps[i][reps[i].size() / 2]};
    pair.result.wrong = wrong;  // a wrong element in any repetition counts
    pairs.push_back(std::move(pair));
  }
  return Status::Ok();
}

// YS-BENCH-001 for a pair whose data check found wrong elements.
Finding WrongPairFinding(const Context& c, const PairResult& p, const std::string& hosts) {
  Finding f = MakeFinding("YS-BENCH-001", fmt::format("rank{} - rank{}", p.a, p.b),
                          fmt::format("{} between ranks {} and {}: {} wrong element(s)", c.id, p.a,
                                      p.b, p.result.wrong));
  f.evidence = {{"wrong_elements", std::to_string(p.result.wrong)}, {"hosts", hosts}};
  f.fix =
      "Check both ranks' nodes (memory/GPU errors: yardstick preflight) and the link between "
      "them";
  f.reference = "nccl-tests data check (-c 1, #wrong column)";
  return f;
}

// The --pairwise table (pairs in rank order), their measurements and findings.
void ReportPairs(const Context& c, const CollectiveOp& op, int nranks,
                 std::vector<PairResult>& pairs, const std::vector<std::string>& hostnames,
                 BenchmarkResult& r) {
  std::sort(pairs.begin(), pairs.end(),
            [](const auto& x, const auto& y) { return std::pair(x.a, x.b) < std::pair(y.a, y.b); });
  ResultTable t{
      .title = fmt::format("{} --pairwise: {} bytes, {}, {} pairs ({}); time us, algbw/busbw GB/s",
                           c.id, op.counts.size_bytes(), comm::DataTypeName(op.dtype), pairs.size(),
                           nranks <= kExhaustivePairRanks ? "every pair" : "ring neighbours"),
      .columns = {"ranks", "hosts", "size", "time", "algbw", "busbw", "#wrong"}};
  for (const auto& p : pairs) {
    std::string hosts = hostnames.at(p.a) + "," + hostnames.at(p.b);
    t.rows.push_back({fmt::format("{}-{}", p.a, p.b), hosts, std::to_string(op.counts.size_bytes()),
                      std::string(Trim(comm::FormatNcclFloat(p.result.time_us, 7))),
                      std::string(Trim(comm::FormatNcclFloat(p.result.bw.algbw_gbps, 6))),
                      std::string(Trim(comm::FormatNcclFloat(p.result.bw.busbw_gbps, 6))),
                      std::to_string(p.result.wrong)});
    AddPlaceMeasurements(r, c, op, p.result, false,
                         {{"pair", fmt::format("{}-{}", p.a, p.b)}, {"hosts", hosts}});
    if (p.result.wrong > 0) r.Add(WrongPairFinding(c, p, hosts));
  }
  for (auto& f : SlowPairFindings(c.id, pairs, hostnames)) r.Add(std::move(f));
  r.tables.push_back(std::move(t));
}

// --pairwise: the sweep's largest size out of place over every pair (ring neighbours on large
// jobs), with a table and findings of its own; a note says why when it cannot run.
void AddPairwise(const SweepSetup& s, comm::DataType dtype, BenchmarkResult& r) {
  const BenchContext& ctx = s.ctx;
  const Context& c = s.c;
  const int n = ctx.comm().size();
  if (c.gpus_per_process > 1) {
    r.Note("pairwise",
           "not run: one process drives every GPU here, without pair sub-groups; run under "
           "mpirun/srun (one rank per GPU) for --pairwise");
    return;
  }
  if (n < 2) {
    r.Note("pairwise", "not run: needs 2 or more ranks");
    return;
  }
  CollectiveOp op = comm::MakeCollectiveOp(s.coll, s.plan.sizes.Sizes().back(), dtype, 2, 0);
  std::vector<PairResult> pairs;
  uint32_t seed = 1000;
  for (const auto& round : PairRounds(n)) {
    ctx.Progress("pairwise round");
    PairRoundGroup group = FormPairRoundGroup(ctx, s.backend, round, op, s.plan.warmup);
    if (!group.formed) {
      r.Note("pairwise", "not run: " + group.why_not);
      return;
    }
    if (Status st =
            MeasurePairRound(ctx, group.backend.get(), op, round, s.plan.iters, seed, pairs);
        !st.ok()) {
      r.Note("pairwise", "stopped: " + st.message());
      return;
    }
  }
  ReportPairs(c, op, n, pairs, s.hostnames, r);
}

// The host of each rank of the group: a process's local ranks share its host.
Result<std::vector<std::string>> RankHostnames(const BenchContext& ctx, int gpus_per_process) {
  auto process_hosts = ctx.comm().Hostnames();
  if (!process_hosts.ok()) return process_hosts.status();
  std::vector<std::string> hostnames;
  for (const auto& h : *process_hosts) hostnames.insert(hostnames.end(), gpus_per_process, h);
  return hostnames;
}

// The notes that say how the sweep ran: backend, ranks, layout, sizes and counts.
void NoteSweepSetup(const Context& c, const CollectiveBackend& backend,
                    const std::string& nccl_missing, const SweepPlan& plan, BenchmarkResult& r) {
  const bool gpu = c.device == "gpu";
  r.Note("backend",
         c.backend + " (" + c.library + ")" + (gpu ? ", device buffers" : ", host buffers"));
  if (!nccl_missing.empty()) r.Note("nccl", "not used: " + nccl_missing);
  r.Note("ranks", std::to_string(c.ranks));
  if (c.gpus_per_process > 1) {
    r.Note("layout", fmt::format("one process drives {} GPUs ({}; nccl-tests -g {})",
                                 c.gpus_per_process, backend.device(), c.gpus_per_process));
  }
  r.Note("sizes",
         FormatByteSize(plan.sizes.min_bytes) + ".." + FormatByteSize(plan.sizes.max_bytes));
  r.Note("warmup_iters", std::to_string(plan.warmup));
  r.Note("iters", std::to_string(plan.iters));
}

// The rows of one dtype, every size warmed up first, then each measured out of place and in
// place (each placement's measurements added to `r`).
Result<std::vector<SweepRow>> MeasureSweepRows(const SweepSetup& s, comm::DataType dtype,
                                               uint32_t& seed, BenchmarkResult& r) {
  std::vector<SweepRow> rows;
  size_t buffer_bytes = 1;
  for (uint64_t size : s.plan.sizes.Sizes()) {
    rows.push_back({.op = comm::MakeCollectiveOp(s.coll, size, dtype, s.c.ranks, 0)});
    buffer_bytes = std::max(buffer_bytes, rows.back().op.counts.size_bytes());
  }
  YS_RETURN_IF_ERROR(s.backend.Reserve(buffer_bytes));
  for (const auto& row : rows) {
    s.ctx.Progress("warm-up " + FormatByteSize(row.op.counts.size_bytes()));
    YS_RETURN_IF_ERROR(WarmUp(s.backend, row.op, s.plan.warmup, buffer_bytes));
  }
  for (auto& row : rows) {
    for (auto [place, in_place] :
         {std::pair{&row.out_of_place, false}, std::pair{&row.in_place, true}}) {
      s.ctx.Progress(FormatByteSize(row.op.counts.size_bytes()) +
                     (in_place ? " in place" : " out of place"));
      auto samples = MeasureStep(s.ctx.comm(), &s.backend, row.op, in_place, s.plan.iters,
                                 buffer_bytes, seed += 2);
      if (!samples.ok()) return samples.status();
      place->rank_time_us = std::move(samples->time_us);
      place->rank_wrong = std::move(samples->wrong);
      Summarise(row.op, *place);
      AddPlaceMeasurements(r, s.c, row.op, *place, in_place);
    }
  }
  return rows;
}

// nccl-tests' "Avg bus bandwidth" of one dtype as a measurement, the busbw of every row and
// placement its samples.
Measurement AverageBusbwMeasurement(const SweepSetup& s, comm::DataType dtype,
                                    const std::vector<SweepRow>& rows, double avg) {
  std::vector<double> all_busbw;
  for (const auto& row : rows) {
    all_busbw.push_back(row.out_of_place.bw.busbw_gbps);
    all_busbw.push_back(row.in_place.bw.busbw_gbps);
  }
  const SizeSweep& sizes = s.plan.sizes;
  Measurement m = MakeMeasurement(
      s.c.id + ".avg_busbw", "GB/s", Better::kHigher, all_busbw,
      {{"dtype", comm::DataTypeName(dtype)},
       {"backend", s.c.backend},
       {"library", s.c.library},
       {"device", s.c.device},
       {"ranks", std::to_string(s.c.ranks)},
       {"sizes", FormatByteSize(sizes.min_bytes) + ".." + FormatByteSize(sizes.max_bytes)},
       {"value", "mean busbw over all sizes, out of place and in place (nccl-tests)"}});
  m.value = avg;
  return m;
}

// Sweeps one dtype: its measurements, table and findings (and --pairwise when `with_pairwise`)
// go to `r`; returns its line of the summary.
Result<std::string> SweepDataType(const SweepSetup& s, comm::DataType dtype, bool with_pairwise,
                                  uint32_t& seed, BenchmarkResult& r) {
  auto rows = MeasureSweepRows(s, dtype, seed, r);
  if (!rows.ok()) return rows.status();
  double avg = AverageBusBandwidth(*rows);
  r.measurements.push_back(AverageBusbwMeasurement(s, dtype, *rows, avg));
  const Context& c = s.c;
  r.tables.push_back(MakeSweepTable(
      fmt::format(
          "{}: {} ({}) on {} buffers, {} rank{}{}, {}: out-of-place then in-place; size in B, "
          "count in elements, time in us, algbw and busbw in GB/s",
          c.id, c.backend, c.library, c.device == "gpu" ? "device" : "host", c.ranks,
          c.ranks == 1 ? "" : "s",
          c.gpus_per_process > 1 ? fmt::format(" (one process, {} GPUs)", c.gpus_per_process) : "",
          comm::DataTypeName(dtype)),
      *rows));
  const SweepRow& big = rows->back();
  std::string summary = fmt::format(
      "{}: avg busbw {:.4g} GB/s; at {} B busbw {:.3g} out of place, {:.3g} in "
      "place; {} out of bounds",
      comm::DataTypeName(dtype), avg, big.op.counts.size_bytes(), big.out_of_place.bw.busbw_gbps,
      big.in_place.bw.busbw_gbps, OutOfBoundsValues(*rows));
  for (auto& f : WrongDataFindings(s.c.id, *rows, s.hostnames, s.c.backend)) r.Add(std::move(f));
  for (auto& f : SlowRankFindings(s.c.id, *rows, s.hostnames)) r.Add(std::move(f));
  if (with_pairwise) AddPairwise(s, dtype, r);
  return summary;
}

}  // namespace

BenchmarkResult RunCollectiveSweep(const BenchContext& ctx, comm::Collective coll,
                                   const SweepHooks& hooks) {
  const std::string id = std::string("coll.") + comm::CollectiveName(coll);
  auto dtypes = SelectedDataTypes(ctx.options());
  if (!dtypes.ok()) return BenchmarkResult::Error(dtypes.status());
  auto opened = OpenBackend(ctx);
  if (!opened.ok()) return BenchmarkResult::Error(opened.status());
  if (!opened->skip_reason.empty()) return BenchmarkResult::Skip(opened->skip_reason);
  CollectiveBackend& backend = *opened->backend;
  // One rank on one device moves nothing between devices: its "bandwidth" would be a local copy
  // (broadcast, reduce) or 0 (all_reduce's factor), never a link's. Every rank agrees (size()).
  if (backend.size() < 2) return BenchmarkResult::Skip(comm::kNothingToExchange);
  if (hooks.on_backend) hooks.on_backend(backend);
  const int gpus_per_process = static_cast<int>(backend.LocalRanks().size());
  auto hostnames = RankHostnames(ctx, gpus_per_process);
  if (!hostnames.ok()) return BenchmarkResult::Error(hostnames.status());

  const bool gpu = std::string(backend.name()) == "nccl";
  const int n = backend.size();
  const SweepSetup setup{
      .ctx = ctx,
      .backend = backend,
      .coll = coll,
      .c = {.id = id,
            .backend = backend.name(),
            .library = backend.library(),
            .device = gpu ? "gpu" : "cpu",
            .ranks = n,
            .gpus_per_process = gpus_per_process},
      .plan = {.sizes = ctx.options().sizes ? *ctx.options().sizes
                                            : *SizeSweep::Parse(DefaultSizes(ctx.quick(), gpu)),
               .iters = ctx.Iters(ctx.quick() ? kQuickIters : kFullIters),
               .warmup = ctx.Warmup(kWarmup)},
      .hostnames = std::move(*hostnames)};
  const Context& c = setup.c;

  BenchmarkResult r;
  NoteSweepSetup(c, backend, opened->nccl_missing, setup.plan, r);
  std::vector<std::string> summaries;
  uint32_t seed = 1;
  for (comm::DataType dtype : *dtypes) {
    if (!backend.Supports(dtype)) {
      r.Note(comm::DataTypeName(dtype), "not supported by " + c.backend);
      continue;
    }
    const bool with_pairwise = ctx.options().pairwise && dtype == dtypes->front();
    auto summary = SweepDataType(setup, dtype, with_pairwise, seed, r);
    if (!summary.ok()) return BenchmarkResult::Error(summary.status());
    summaries.push_back(std::move(*summary));
  }
  if (summaries.empty())
    return BenchmarkResult::Skip("no selected dtype is supported by " + c.backend);
  r.summary = fmt::format(
      "{} on {} rank{} ({}{}): {}", c.backend, n, n == 1 ? "" : "s", c.device,
      gpus_per_process > 1 ? fmt::format(", one process, {} GPUs", gpus_per_process) : "",
      Join(summaries, "; "));
  return r;
}

Measures CollectiveMeasures(std::string_view op) {
  return {.kind = FigureKind::kCollective,
          .op = op,
          .figures = {{"busbw", "GB/s", Better::kHigher},
                      {"algbw", "GB/s", Better::kHigher},
                      {"time_us", "us", Better::kLower},
                      {"pair.busbw", "GB/s", Better::kHigher},
                      {"pair.algbw", "GB/s", Better::kHigher},
                      {"pair.time_us", "us", Better::kLower},
                      {"avg_busbw", "GB/s", Better::kHigher}},
          .identity = {"backend", "device", "dtype", "size", "sizes", "count", "inplace", "ranks",
                       "gpus_per_process", "pair"}};
}

}  // namespace ys::bench::coll
