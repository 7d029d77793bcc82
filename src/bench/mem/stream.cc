// mem.stream: McCalpin's STREAM (copy, scale, add, triad) on the CPU, per NUMA node and over the
// whole node. See stream_kernels.h for the arithmetic and the validation.
//
// Placement: one thread per physical core (the first allowed thread of each core; SMT siblings
// share the core's load/store units and add nothing to bandwidth), pinned, initialising its own
// share of the arrays so its pages land on its node. Per node, the node's cores run on arrays
// placed there; the whole-node run uses all cores, each thread's share on its own node. With one
// NUMA node the two are the same run, which is reported once (numa_node "all").
//
// Sizes: each array is at least four times the summed last-level caches of the CPUs that run
// (STREAM's rule; the site file's [unit."mem.stream"] cache_multiple sets the multiple), unless
// --sizes sets the bytes per array (its largest size), which tests use.
#include <fmt/format.h>

#include <algorithm>
#include <climits>

#include "bench/available_memory.h"
#include "bench/benchmark.h"
#include "bench/mem/internal/stream_kernels.h"
#include "core/finding_codes.h"
#include "host/busy_core_clock.h"
#include "host/cpu_cache.h"
#include "host/procfs.h"

namespace ys::bench {
namespace {

struct Scope {
  std::string numa_node;  // "0", "1", ... or "all"
  std::vector<int> cpus;
};

std::vector<int> ToVector(const CpuSet& s) { return {s.ids().begin(), s.ids().end()}; }

// One thread per core of each node with allowed CPUs, then the whole node when there are several.
std::vector<Scope> Scopes(const host::Topology& topo, const CpuSet& allowed) {
  std::vector<Scope> out;
  CpuSet all;
  for (const auto& node : topo.nodes) {
    CpuSet cpus = host::SelectBusyClockCpus(topo, node.cpus.Intersect(allowed), INT_MAX);
    if (cpus.empty()) continue;
    all = all.Union(cpus);
    out.push_back({std::to_string(node.id), ToVector(cpus)});
  }
  if (out.size() == 1) out.clear();  // the single node's run is the whole-node run
  if (all.empty()) all = host::SelectBusyClockCpus(topo, allowed, INT_MAX);
  out.push_back({"all", ToVector(all)});
  return out;
}

std::string Gb(double v) { return fmt::format("{:.2f}", v); }

// The CPU caches from the host; none (and no error) when they cannot be read but --sizes gives
// the bytes per array, where they only say whether the arrays are below STREAM's rule.
Result<std::vector<host::CpuCache>> LoadStreamCaches(const BenchContext& ctx) {
  auto loaded = host::LoadCpuCaches(ctx.host());
  if (loaded.ok()) return std::move(*loaded);
  if (ctx.options().sizes) return std::vector<host::CpuCache>{};
  return Status::Unsupported(loaded.status().message() +
                             ": cannot size the arrays past the last-level cache; "
                             "give the bytes per array with --sizes (e.g. --sizes 1G)");
}

// The arrays of one scope: the last-level cache of its CPUs (0 when unknown) and the bytes and
// elements of each array.
struct StreamArrays {
  uint64_t llc = 0;
  uint64_t array_bytes = 0;
  uint64_t elements = 0;
};

// Sizes the arrays for the CPUs of one scope, and refuses when the cache is unknown without
// --sizes or the three arrays would not fit in 80% of the available memory.
Result<StreamArrays> SizeStreamArrays(const BenchContext& ctx, const CpuSet& cpu_set,
                                      const std::vector<host::CpuCache>& caches,
                                      const Result<uint64_t>& avail, int multiple) {
  StreamArrays a;
  a.llc = caches.empty() ? 0 : host::LastLevelCacheBytes(caches, cpu_set);
  a.array_bytes =
      ctx.options().sizes ? ctx.options().sizes->max_bytes : StreamArrayBytes(a.llc, multiple);
  if (!ctx.options().sizes && a.llc == 0) {
    return Status::Unsupported("no last-level cache listed for cpus " + cpu_set.ToString() +
                               ": give the bytes per array with --sizes (e.g. --sizes 1G)");
  }
  a.elements = a.array_bytes / sizeof(double);
  if (avail.ok() && 3 * a.array_bytes > *avail / 10 * 8) {
    return Status::Unsupported(fmt::format(
        "STREAM needs 3 arrays of {} bytes but only {} bytes are available (MemAvailable); "
        "give a smaller array with --sizes",
        a.array_bytes, *avail));
  }
  return a;
}

// The params every kernel's measurement of one scope shares.
std::map<std::string, std::string> StreamScopeParams(const BenchContext& ctx, const Scope& scope,
                                                     const CpuSet& cpu_set, const StreamArrays& a,
                                                     int warmup, int multiple) {
  std::map<std::string, std::string> params{
      {"backend", "cpu"},
      {"device", "cpu"},
      {"numa_node", scope.numa_node},
      {"threads", std::to_string(scope.cpus.size())},
      {"cpus", cpu_set.ToString()},
      {"array_bytes", std::to_string(a.elements * sizeof(double))},
      {"elements", std::to_string(a.elements)},
      {"warmup", std::to_string(warmup)},
      {"array_rule", !ctx.options().sizes ? fmt::format("{} x last-level cache", multiple)
                     : a.llc != 0 && a.array_bytes < StreamArrayBytes(a.llc)
                         ? "--sizes, below 4 x last-level cache: the rates include cache hits"
                         : "--sizes"}};
  if (a.llc != 0) params["llc_bytes"] = std::to_string(a.llc);
  return params;
}

// One measurement and one table row per kernel of a scope's run.
void AddStreamKernelResults(const StreamRun& run, const Scope& scope, uint64_t elements,
                            const std::map<std::string, std::string>& params, BenchmarkResult& r,
                            ResultTable& table) {
  for (StreamKernel k : kStreamKernels) {
    const auto& secs = run.seconds[static_cast<int>(k)];
    uint64_t bytes = StreamBytes(k, elements);
    std::vector<double> rates;
    for (double s : secs) rates.push_back(static_cast<double>(bytes) / s / 1e9);
    auto p = params;
    p["bytes_per_pass"] = std::to_string(bytes);
    Measurement m = MakeMeasurement(std::string("mem.stream.") + StreamKernelName(k), "GB/s",
                                    Better::kHigher, std::move(rates), std::move(p));
    m.params["best"] = Gb(m.stats.max);  // STREAM's "Best Rate" column
    SampleStats t = ComputeStats(secs);
    table.rows.push_back({scope.numa_node, std::to_string(scope.cpus.size()),
                          FormatByteSize(elements * sizeof(double)), StreamKernelName(k),
                          Gb(m.stats.max), Gb(m.value), fmt::format("{:.6f}", t.mean),
                          fmt::format("{:.6f}", t.min), fmt::format("{:.6f}", t.max)});
    r.measurements.push_back(std::move(m));
  }
}

// YS-BENCH-011 for an array that holds wrong values after `passes` iterations.
Finding StreamMismatchFinding(const StreamMismatch& bad, const Scope& scope, const CpuSet& cpu_set,
                              int passes) {
  Finding f =
      MakeFinding("YS-BENCH-011", scope.numa_node == "all" ? "node" : "numa" + scope.numa_node,
                  fmt::format("STREAM array {} holds {} wrong elements after {} iterations",
                              bad.array, bad.wrong_elements, passes));
  f.evidence = {{"array", bad.array},
                {"wrong_elements", std::to_string(bad.wrong_elements)},
                {"first_wrong_index", std::to_string(bad.first_index)},
                {"expected", fmt::format("{:.17g}", bad.expected)},
                {"actual", fmt::format("{:.17g}", bad.actual)},
                {"avg_rel_error", fmt::format("{:.3g}", bad.avg_rel_error)},
                {"cpus", cpu_set.ToString()}};
  f.fix =
      "rerun; if it repeats, test the memory (e.g. memtester or the vendor's DIMM "
      "diagnostics) and check the EDAC counters and the kernel log for memory errors";
  f.reference = "stream.c checkSTREAMresults";
  return f;
}

class StreamBenchmark final : public Benchmark {
 public:
  BenchmarkResult Run(const BenchContext& ctx) const override {
    if (!ctx.Allows(Backend::kCpu))
      return BenchmarkResult::Skip("--backend gpu: CPU memory benchmark not selected");
    const auto& topo = ctx.topology();
    if (!topo.ok()) return BenchmarkResult::Error(topo.status());
    auto allowed = host::AllowedCpusOfThisProcess();
    if (!allowed.ok()) return BenchmarkResult::Error(allowed.status());
    auto caches = LoadStreamCaches(ctx);
    if (!caches.ok()) return BenchmarkResult::Error(caches.status());
    auto avail = AvailableMemoryBytes(ctx.host());
    int warmup = ctx.Warmup(1);  // stream.c times NTIMES and drops the first
    int iters = ctx.Iters(ctx.quick() ? 5 : 20);

    BenchmarkResult r;
    ResultTable table{.title = "STREAM (McCalpin): best rate as stream.c reports it, median over " +
                               std::to_string(iters) + " iterations",
                      .columns = {"numa", "threads", "array", "kernel", "best GB/s", "median GB/s",
                                  "avg time s", "min time s", "max time s"}};
    const int multiple = ctx.param<int>("cache_multiple");
    for (const Scope& scope : Scopes(*topo, *allowed)) {
      CpuSet cpu_set(std::set<int>(scope.cpus.begin(), scope.cpus.end()));
      auto arrays = SizeStreamArrays(ctx, cpu_set, *caches, avail, multiple);
      if (!arrays.ok()) return BenchmarkResult::Error(arrays.status());
      auto run = RunStream(scope.cpus, arrays->elements, warmup, iters);
      if (!run.ok()) return BenchmarkResult::Error(run.status());
      AddStreamKernelResults(*run, scope, arrays->elements,
                             StreamScopeParams(ctx, scope, cpu_set, *arrays, warmup, multiple), r,
                             table);
      for (const StreamMismatch& bad : run->mismatches)
        r.Add(StreamMismatchFinding(bad, scope, cpu_set, warmup + iters));
      r.Note(
          "numa " + scope.numa_node,
          fmt::format("{} threads on cpus {}, 3 arrays of {} bytes{}", scope.cpus.size(),
                      cpu_set.ToString(), arrays->elements * 8,
                      arrays->llc ? fmt::format(" (last-level cache {} bytes)", arrays->llc) : ""));
    }
    r.Note("byte counting",
           "stream.c: copy, scale 16 B/element; add, triad 24 B/element; GB = 1e9 B");
    if (!r.measurements.empty()) {
      const Measurement& triad = r.measurements.back();
      r.summary = fmt::format("triad {} GB/s best, {} median ({} threads, 3 x {} arrays){}",
                              Gb(triad.stats.max), Gb(triad.value), triad.params.at("threads"),
                              FormatByteSize(std::stoull(triad.params.at("array_bytes"))),
                              r.findings.empty() ? "" : "; VALIDATION FAILED");
    }
    r.tables.push_back(std::move(table));
    return r;
  }
};

}  // namespace

YS_REGISTER(StreamBenchmark,
            {.id = "mem.stream",
             .summary = "STREAM copy, scale, add, triad per NUMA node and node-wide (GB/s)",
             .needs = {Need::kLiveHost},
             .codes = {{"YS-BENCH-011", Severity::kFail,
                        "STREAM arrays hold wrong values after the kernels (validation failed)"}},
             .params = {{.name = "cache_multiple",
                         .type = ParamType::kInt,
                         .default_value = kStreamCacheMultiple,
                         .lo = 1,
                         .hi = 64,
                         .meaning = "bytes per array as a multiple of the last-level caches of "
                                    "the CPUs that run (STREAM's rule: at least 4; --sizes "
                                    "overrides)"}},
             .measures = {
                 .kind = FigureKind::kStream,
                 .figures = {{"copy", "GB/s", Better::kHigher, PeakKind::kCpuMemory},
                             {"scale", "GB/s", Better::kHigher, PeakKind::kCpuMemory},
                             {"add", "GB/s", Better::kHigher, PeakKind::kCpuMemory},
                             {"triad", "GB/s", Better::kHigher, PeakKind::kCpuMemory}},
                 .identity = {"backend", "device", "numa_node", "threads", "array_bytes"}}})

}  // namespace ys::bench
