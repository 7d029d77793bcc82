#include "checks/runner.h"

#include "core/progress.h"
#include "core/text.h"
#include "core/unit_runner.h"
#include "host/needs.h"

namespace ys::checks {

bool MatchesFilters(std::string_view id, const std::vector<std::string>& filters) {
  return MatchesAnyGlob(id, filters);
}

Status CheckContextProvides(const CheckContext& ctx, Need need) {
  switch (need) {
    case Need::kGpu: {
      const Result<gpu::GpuSnapshot>& s = ctx.gpu();
      if (!s.ok()) return s.status();
      if (s->devices.empty()) return Status::Unsupported("NVML lists no GPU (" + s->source + ")");
      return Status::Ok();
    }
    case Need::kGpuState: {
      const Result<gpu::GpuSnapshot>& s = ctx.gpu();
      return s.ok() ? Status::Ok() : s.status();
    }
    case Need::kMpi:
      return Status::Unsupported("checks run in one process, without MPI");
    default:
      return host::HostProvides(ctx.host(), need);
  }
}

namespace {

CheckResult RunOne(const CheckContext& ctx, const RegisteredUnit& unit, bool allow_disruptive) {
  UnitGate gate{.provides = [&ctx](Need n) { return CheckContextProvides(ctx, n); },
                .allow_disruptive = allow_disruptive};
  auto call = [&] {
    auto made = unit.factory();
    const auto* check = dynamic_cast<const Check*>(made.get());
    return check != nullptr ? check->Run(ctx.ForUnit(unit.info))
                            : CheckResult::Error(Status::Internal("unit is not a check"));
  };
  auto unmet = [&](const Status& why) -> std::optional<CheckResult> {
    auto made = unit.factory();
    const auto* check = dynamic_cast<const Check*>(made.get());
    return check != nullptr ? check->Unmet(ctx.ForUnit(unit.info), why) : std::nullopt;
  };
  return RunUnit<CheckResult>(unit.info, gate, call, unmet);
}

}  // namespace

std::vector<CheckResult> RunChecks(const CheckContext& ctx, const RunOptions& options) {
  std::vector<const RegisteredUnit*> chosen;
  for (const RegisteredUnit* unit : UnitRegistry::Global().List(UnitKind::kCheck)) {
    if (MatchesFilters(unit->info.id, options.filters)) chosen.push_back(unit);
  }
  std::vector<CheckResult> out;
  for (const RegisteredUnit* unit : chosen) {
    Progress().Step("check", out.size() + 1, chosen.size(), unit->info.id);
    if (options.on_start) options.on_start(unit->info.id);
    out.push_back(RunOne(ctx, *unit, options.allow_disruptive));
    if (options.on_result) {
      Progress().Clear();
      options.on_result(out.back());
    }
  }
  Progress().Clear();
  return out;
}

CheckResult RunCheck(const CheckContext& ctx, std::string_view id, bool allow_disruptive) {
  const RegisteredUnit* unit = UnitRegistry::Global().Find(UnitKind::kCheck, id);
  if (unit == nullptr) {
    CheckResult r = CheckResult::Error(Status::NotFound("no check with id " + std::string(id)));
    r.unit_id = std::string(id);
    return r;
  }
  return RunOne(ctx, *unit, allow_disruptive);
}

}  // namespace ys::checks
