#include "checks/runner.h"

#include <chrono>
#include <exception>

#include "core/text.h"

namespace ys::checks {

bool MatchesFilters(std::string_view id, const std::vector<std::string>& filters) {
  return MatchesAnyGlob(id, filters);
}

namespace {

CheckResult RunOne(const CheckContext& ctx, const RegisteredUnit& unit) {
  auto t0 = std::chrono::steady_clock::now();
  CheckResult r;
  try {
    auto made = unit.factory();
    auto* check = dynamic_cast<Check*>(made.get());
    if (check == nullptr) {
      r = CheckResult::Error(Status::Internal("unit is not a check"));
    } else {
      r = check->Run(ctx);
    }
  } catch (const std::exception& e) {
    r = CheckResult::Error(Status::Internal(std::string("unexpected exception: ") + e.what()));
  } catch (...) {
    r = CheckResult::Error(Status::Internal("unexpected exception"));
  }
  r.Seal(unit.info.id);
  r.duration_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace

std::vector<CheckResult> RunChecks(const CheckContext& ctx, const RunOptions& options) {
  std::vector<CheckResult> out;
  for (const RegisteredUnit* unit : UnitRegistry::Global().List(UnitKind::kCheck)) {
    if (!MatchesFilters(unit->info.id, options.filters)) continue;
    if (options.on_start) options.on_start(unit->info.id);
    out.push_back(RunOne(ctx, *unit));
    if (options.on_result) options.on_result(out.back());
  }
  return out;
}

CheckResult RunCheck(const CheckContext& ctx, std::string_view id) {
  const RegisteredUnit* unit = UnitRegistry::Global().Find(id);
  if (unit == nullptr || unit->kind != UnitKind::kCheck) {
    CheckResult r = CheckResult::Error(Status::NotFound("no check with id " + std::string(id)));
    r.unit_id = std::string(id);
    return r;
  }
  return RunOne(ctx, *unit);
}

}  // namespace ys::checks
