// host.busy_clock: the clock each physical core sustains while one thread keeps it busy (the
// dependent-add chain of host/busy_core_clock.h), as a benchmark: per-core MHz and the node's
// median. The check cpu.busy_clock judges the same figure against the site's expectation; this unit
// reports it with its spread for fleet comparison.
#include <fmt/format.h>

#include "bench/benchmark.h"
#include "host/busy_core_clock.h"

namespace ys::bench {
namespace {

class BusyClockBenchmark final : public Benchmark {
 public:
  BenchmarkResult Run(const BenchContext& ctx) const override {
    const auto& topo = ctx.topology();
    if (!topo.ok()) return BenchmarkResult::Error(topo.status());
    auto allowed = host::AllowedCpusOfThisProcess();
    if (!allowed.ok()) return BenchmarkResult::Error(allowed.status());
    int max_cpus = ctx.quick() ? 8 : 64;
    CpuSet cpus = host::SelectBusyClockCpus(*topo, *allowed, max_cpus);
    int ms = ctx.Iters(ctx.quick() ? 20 : 100);  // timed 1 ms windows per core
    auto mhz = host::MeasureBusyClockMhz(cpus, ms);
    if (!mhz.ok()) return BenchmarkResult::Error(mhz.status());
    BenchmarkResult r;
    std::vector<double> per_core;
    ResultTable table{
        .title = "busy-core clock (fastest 1 ms window of " + std::to_string(ms) + ")",
        .columns = {"cpu", "MHz"}};
    for (const auto& [cpu, value] : *mhz) {
      per_core.push_back(value);
      table.rows.push_back({std::to_string(cpu), fmt::format("{:.0f}", value)});
      r.measurements.push_back(MakeMeasurement(
          "host.busy_clock.cpu", "MHz", Better::kHigher, {value},
          {{"device", "cpu" + std::to_string(cpu)}, {"windows_ms", std::to_string(ms)}}));
    }
    Measurement node =
        MakeMeasurement("host.busy_clock", "MHz", Better::kHigher, per_core,
                        {{"device", "cpu"}, {"cores", std::to_string(per_core.size())}});
    r.summary = fmt::format("median {:.0f} MHz over {} cores (min {:.0f}, max {:.0f})", node.value,
                            per_core.size(), node.stats.min, node.stats.max);
    r.measurements.insert(r.measurements.begin(), std::move(node));
    r.tables.push_back(std::move(table));
    return r;
  }
};

}  // namespace

YS_REGISTER(BusyClockBenchmark,
            {.id = "host.busy_clock",
             .summary = "Clock each core sustains under a one-thread busy loop (MHz)",
             .needs = {Need::kLiveHost},
             .measures = {
                 .kind = FigureKind::kClock,
                 .figures = {{"", "MHz", Better::kHigher}, {"cpu", "MHz", Better::kHigher}},
                 .identity = {"device", "cores", "windows_ms"}}})

}  // namespace ys::bench
