#include "bench/session.h"

#include "core/text.h"

namespace ys::bench {

std::vector<std::string> SelectedBenchmarks(const BenchOptions& options) {
  std::vector<std::string> ids;
  for (const RegisteredUnit* unit : UnitRegistry::Global().List(UnitKind::kBenchmark)) {
    if (MatchesAnyGlob(unit->info.id, options.filters)) ids.emplace_back(unit->info.id);
  }
  return ids;
}

Status CheckSelection(const BenchOptions& options) {
  if (SelectedBenchmarks(options).empty()) {
    return Status::Invalid("--filter " + Join(options.filters, ", ") +
                           " selects no benchmark (see `yardstick list`)");
  }
  return Status::Ok();
}

std::vector<std::string> SessionWarnings(const BenchContext& ctx) {
  std::vector<std::string> out;
  if (auto core = ctx.host().env().Get("OPENBLAS_CORETYPE")) {
    out.push_back("OPENBLAS_CORETYPE=" + *core +
                  " forces OpenBLAS's kernel: CPU GEMM figures are that kernel's, not the best "
                  "this CPU could do");
  }
  return out;
}

Status RunBenchSession(const BenchContext& ctx, RunDocument& doc, const OnBenchmarkResult& on_result) {
  YS_RETURN_IF_ERROR(CheckSelection(ctx.options()));
  for (auto& w : SessionWarnings(ctx)) doc.warnings.push_back(std::move(w));
  auto results = RunBenchmarks(ctx, on_result);
  for (auto& r : results) doc.benchmarks.push_back(std::move(r));
  return Status::Ok();
}

}  // namespace ys::bench
