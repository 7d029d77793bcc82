#include "bench/session.h"

#include <fmt/format.h>

#include "core/text.h"

namespace ys::bench {

std::vector<std::string> SelectedBenchmarks(const BenchOptions& options) {
  std::vector<std::string> ids;
  for (const RegisteredUnit* unit : UnitRegistry::Global().List(UnitKind::kBenchmark)) {
    if (MatchesAnyGlob(unit->info.id, options.filters)) ids.emplace_back(unit->info.id);
  }
  return ids;
}

Status RunBenchSession(const BenchContext& ctx, RunDocument& doc, const OnBenchmarkResult& on_result) {
  if (SelectedBenchmarks(ctx.options()).empty()) {
    return Status::Invalid("--filter " + Join(ctx.options().filters, ", ") +
                           " selects no benchmark (see `yardstick list`)");
  }
  if (auto core = ctx.host().env().Get("OPENBLAS_CORETYPE")) {
    doc.warnings.push_back("OPENBLAS_CORETYPE=" + *core +
                           " forces OpenBLAS's kernel: CPU GEMM figures are that kernel's, not the "
                           "best this CPU could do");
  }
  if (ctx.comm().size() > 1) {
    doc.warnings.push_back(fmt::format("{} ranks ({} launcher); node-local benchmarks ran on each "
                                       "node's first rank, this document holds rank 0's",
                                       ctx.comm().size(), ctx.launch().launcher));
  }
  auto results = RunBenchmarks(ctx, on_result);
  for (auto& r : results) doc.benchmarks.push_back(std::move(r));
  return Status::Ok();
}

}  // namespace ys::bench
