// mem.latency: host memory load-to-use latency by pointer chasing: a chain of dependent loads
// through a random cyclic permutation of cache lines, so that neither the hardware prefetcher
// nor out-of-order execution can overlap two loads (the method of lmbench's lat_mem_rd and of
// Intel Memory Latency Checker's idle latency). One figure per working-set size, in ns per load;
// a size far beyond the last-level cache gives the DRAM latency of the node the memory sits on.
// The thread is not pinned: on a multi-socket node the figure is that of the NUMA node the kernel
// placed the pages on (mem.stream reports bandwidth per node).
#include <fmt/format.h>

#include <chrono>
#include <cstdint>
#include <random>

#include "bench/benchmark.h"

namespace ys::bench {
namespace {

constexpr size_t kLine = 64;
// Working sets: inside L1, L2, the last-level cache, and beyond it.
constexpr uint64_t kDefaultSizes[] = {32ULL << 10, 256ULL << 10, 4ULL << 20, 64ULL << 20};
// Loads per timed pass: enough that the clock's resolution and the loop's own cost vanish.
constexpr size_t kLoadsPerPass = size_t{1} << 22;

struct alignas(kLine) Line {
  size_t next = 0;
};

// One cycle through all lines in a random order (Sattolo's algorithm), seeded for repeatability.
std::vector<Line> CyclicChain(size_t lines, uint64_t seed) {
  std::vector<size_t> order(lines);
  for (size_t i = 0; i < lines; ++i) order[i] = i;
  std::mt19937_64 rng(seed);
  for (size_t i = lines - 1; i > 0; --i) {
    std::uniform_int_distribution<size_t> pick(0, i - 1);
    std::swap(order[i], order[pick(rng)]);
  }
  std::vector<Line> chain(lines);
  for (size_t i = 0; i < lines; ++i) chain[order[i]].next = order[(i + 1) % lines];
  return chain;
}

// Follows the chain for `loads` steps; the end index is returned so the loads cannot be elided.
size_t Walk(const std::vector<Line>& chain, size_t loads) {
  size_t at = 0;
  for (size_t i = 0; i < loads; ++i) at = chain[at].next;
  return at;
}

std::string Bytes(uint64_t b) {
  return b >= (1ULL << 20) ? fmt::format("{} MiB", b >> 20) : fmt::format("{} KiB", b >> 10);
}

class MemLatencyBenchmark final : public Benchmark {
 public:
  BenchmarkResult Run(const BenchContext& ctx) const override {
    if (!ctx.Allows(Backend::kCpu))
      return BenchmarkResult::Skip("--backend gpu: host memory latency not selected");
    std::vector<uint64_t> sizes(std::begin(kDefaultSizes), std::end(kDefaultSizes));
    if (const auto& sweep = ctx.options().sizes) sizes = sweep->Sizes();
    int warmup = ctx.Warmup(1);
    int iters = ctx.Iters(ctx.quick() ? 3 : 5);
    BenchmarkResult r;
    ResultTable table{.title = fmt::format("pointer chase, median of {} passes", iters),
                      .columns = {"working set", "ns per load", "min", "max"}};
    volatile size_t sink = 0;
    for (uint64_t bytes : sizes) {
      size_t lines = std::max<size_t>(2, bytes / kLine);
      std::vector<Line> chain = CyclicChain(lines, lines);
      for (int i = 0; i < warmup; ++i) sink = sink + Walk(chain, lines);
      std::vector<double> ns;
      for (int i = 0; i < iters; ++i) {
        auto t0 = std::chrono::steady_clock::now();
        sink = sink + Walk(chain, kLoadsPerPass);
        double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        ns.push_back(s * 1e9 / static_cast<double>(kLoadsPerPass));
      }
      Measurement m = MakeMeasurement(
          "mem.latency", "ns", Better::kLower, std::move(ns),
          {{"device", "cpu"},
           {"bytes", std::to_string(lines * kLine)},
           {"loads", std::to_string(kLoadsPerPass)},
           {"method", "dependent loads through a random cyclic permutation of 64 B lines"}});
      table.rows.push_back({Bytes(lines * kLine), fmt::format("{:.2f}", m.value),
                            fmt::format("{:.2f}", m.stats.min),
                            fmt::format("{:.2f}", m.stats.max)});
      r.measurements.push_back(std::move(m));
    }
    if (!r.measurements.empty()) {
      const Measurement& last = r.measurements.back();
      r.summary = fmt::format("{:.1f} ns per load at {}", last.value,
                              Bytes(std::stoull(last.params.at("bytes"))));
    }
    r.tables.push_back(std::move(table));
    return r;
  }
};

}  // namespace

YS_REGISTER(MemLatencyBenchmark,
            {.id = "mem.latency",
             .summary = "Host memory load-to-use latency by pointer chasing (ns per load)",
             .needs = {Need::kLiveHost},
             .measures = {.kind = FigureKind::kStream,
                          .figures = {{"", "ns", Better::kLower}},
                          .identity = {"device", "bytes"}}})

}  // namespace ys::bench
