#include "bench/runner.h"

#include <chrono>
#include <exception>

#include "core/text.h"

namespace ys::bench {
namespace {

BenchmarkResult RunOne(const BenchContext& ctx, const RegisteredUnit& unit, const Benchmark* bench) {
  auto t0 = std::chrono::steady_clock::now();
  BenchmarkResult r;
  try {
    r = bench != nullptr ? bench->Run(ctx)
                         : BenchmarkResult::Error(Status::Internal("unit is not a benchmark"));
  } catch (const std::exception& e) {
    r = BenchmarkResult::Error(Status::Internal(std::string("unexpected exception: ") + e.what()));
  } catch (...) {
    r = BenchmarkResult::Error(Status::Internal("unexpected exception"));
  }
  r.Seal(unit.info.id);
  r.duration_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace

bool RunsOnThisRank(const Benchmark* bench, const BenchContext& ctx) {
  bool all_ranks = bench != nullptr && bench->reach() != Benchmark::Reach::kNode;
  return all_ranks || ctx.launch().local_rank == 0;
}

std::vector<BenchmarkResult> RunBenchmarks(const BenchContext& ctx, const OnBenchmarkResult& on_result) {
  std::vector<BenchmarkResult> out;
  for (const RegisteredUnit* unit : UnitRegistry::Global().List(UnitKind::kBenchmark)) {
    if (!MatchesAnyGlob(unit->info.id, ctx.options().filters)) continue;
    auto made = unit->factory();
    const auto* bench = dynamic_cast<const Benchmark*>(made.get());
    if (!RunsOnThisRank(bench, ctx)) continue;
    out.push_back(RunOne(ctx, *unit, bench));
    if (on_result) on_result(out.back());
  }
  return out;
}

BenchmarkResult RunBenchmark(const BenchContext& ctx, std::string_view id) {
  const RegisteredUnit* unit = UnitRegistry::Global().Find(id);
  if (unit == nullptr || unit->kind != UnitKind::kBenchmark) {
    auto r = BenchmarkResult::Error(Status::NotFound("no benchmark unit " + std::string(id)));
    r.unit_id = std::string(id);
    return r;
  }
  auto made = unit->factory();
  return RunOne(ctx, *unit, dynamic_cast<const Benchmark*>(made.get()));
}

}  // namespace ys::bench
