#include "bench/session.h"

#include "core/text.h"

namespace ys::bench {

std::vector<std::string> SelectedBenchmarks(const BenchOptions& options) {
  std::vector<std::string> ids;
  for (const RegisteredUnit* unit : UnitRegistry::Global().List(UnitKind::kBenchmark)) {
    if (options.profile == Profile::kQuick && options.filters.empty() &&
        !unit->info.in_quick_profile) {
      continue;
    }
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

}  // namespace ys::bench
