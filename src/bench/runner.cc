#include "bench/runner.h"

#include "core/progress.h"
#include "core/text.h"
#include "core/unit_runner.h"
#include "gpu/cuda_api.h"
#include "host/needs.h"

namespace ys::bench {

Status BenchContextProvides(const BenchContext& ctx, Need need) {
  switch (need) {
    case Need::kGpu:
    case Need::kGpuState: {
      if (!ctx.Allows(Backend::kGpu)) return Status::Unsupported("--backend cpu");
      auto api = gpu::CudaApi::Get();
      return api.ok() ? Status::Ok() : Status::Unsupported(api.status().message());
    }
    case Need::kLiveHost:
      return ctx.host().live() ? Status::Ok() : Status::Unsupported(host::kNotLiveNothingToMeasure);
    case Need::kMpi:
      return ctx.comm().size() > 1
                 ? Status::Ok()
                 : Status::Unsupported("one process: not launched under MPI with several ranks");
    default:
      return host::HostProvides(ctx.host(), need);
  }
}

namespace {

BenchmarkResult RunOne(const BenchContext& ctx, const RegisteredUnit& unit,
                       const Benchmark* bench) {
  UnitGate gate{.provides = [&ctx](Need n) { return BenchContextProvides(ctx, n); },
                .allow_disruptive = ctx.options().allow_disruptive};
  return RunUnit<BenchmarkResult>(unit.info, gate, [&] {
    return bench != nullptr ? bench->Run(ctx.ForUnit(unit.info))
                            : BenchmarkResult::Error(Status::Internal("unit is not a benchmark"));
  });
}

}  // namespace

bool RunsOnThisRank(const Benchmark* bench, const BenchContext& ctx) {
  bool all_ranks = bench != nullptr && bench->reach() != Benchmark::Reach::kNode;
  return all_ranks || ctx.launch().local_rank == 0;
}

std::vector<BenchmarkResult> RunBenchmarks(const BenchContext& ctx,
                                           const OnBenchmarkResult& on_result) {
  std::vector<const RegisteredUnit*> chosen;
  for (const RegisteredUnit* unit : UnitRegistry::Global().List(UnitKind::kBenchmark)) {
    if (MatchesAnyGlob(unit->info.id, ctx.options().filters)) chosen.push_back(unit);
  }
  std::vector<BenchmarkResult> out;
  size_t index = 0;
  for (const RegisteredUnit* unit : chosen) {
    ++index;
    auto made = unit->factory();
    const auto* bench = dynamic_cast<const Benchmark*>(made.get());
    if (!RunsOnThisRank(bench, ctx)) continue;
    Progress().Step("benchmark", index, chosen.size(), unit->info.id);
    out.push_back(RunOne(ctx, *unit, bench));
    if (on_result) {
      Progress().Clear();
      on_result(out.back());
    }
  }
  Progress().Clear();
  return out;
}

BenchmarkResult RunBenchmark(const BenchContext& ctx, std::string_view id) {
  const RegisteredUnit* unit = UnitRegistry::Global().Find(UnitKind::kBenchmark, id);
  if (unit == nullptr) {
    auto r = BenchmarkResult::Error(Status::NotFound("no benchmark unit " + std::string(id)));
    r.unit_id = std::string(id);
    return r;
  }
  auto made = unit->factory();
  return RunOne(ctx, *unit, dynamic_cast<const Benchmark*>(made.get()));
}

}  // namespace ys::bench
