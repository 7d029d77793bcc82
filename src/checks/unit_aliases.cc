#include "checks/unit_aliases.h"

#include <algorithm>
#include <utility>

#include "checks/runner.h"
#include "core/text.h"

namespace ys::checks {

const std::vector<UnitAlias>& UnitAliases() {
  static const std::vector<UnitAlias> kAliases = [] {
    std::vector<UnitAlias> a = {
        {"cpu.cstates",
         {"cpu.cstates.idle_framework", "cpu.cstates.kernel_limit", "cpu.cstates.deep_offered",
          "cpu.cstates.deepest_enabled", "cpu.cstates.deep_entered"}},
        {"cpu.frequency",
         {"cpu.frequency.governor", "cpu.frequency.turbo", "cpu.frequency.max_freq",
          "cpu.frequency.energy_preference", "cpu.frequency.pstate_cap", "cpu.frequency.bios_limit",
          "cpu.frequency.consistency"}},
        {"env.runtime",
         {"env.runtime.topo_file", "env.runtime.ib_hca", "env.runtime.qps_per_connection",
          "env.runtime.forced_algorithm", "env.runtime.debug_logging", "env.runtime.fast_paths",
          "env.runtime.gpudirect"}},
        {"numa.placement",
         {"numa.placement.devices", "numa.placement.memory", "numa.placement.kernel_policy"}},
        {"virt.iommu",
         {"virt.iommu.passthrough", "virt.iommu.strict", "virt.iommu.grace_page_size",
          "virt.iommu.grace_cmdqv"}},
    };
    std::sort(a.begin(), a.end(),
              [](const UnitAlias& x, const UnitAlias& y) { return x.old_id < y.old_id; });
    return a;
  }();
  return kAliases;
}

const UnitAlias* FindUnitAlias(std::string_view old_id) {
  for (const UnitAlias& a : UnitAliases()) {
    if (a.old_id == old_id) return &a;
  }
  return nullptr;
}

std::vector<std::string> ExpandAliasFilters(const std::vector<std::string>& filters) {
  std::vector<std::string> out;
  for (const std::string& f : filters) {
    out.push_back(f);
    for (const UnitAlias& a : UnitAliases()) {
      if (!GlobMatch(f, a.old_id)) continue;
      for (std::string_view id : a.ids) out.emplace_back(id);
    }
  }
  return out;
}

CheckResult MergeAliasResults(std::string_view old_id, const std::vector<CheckResult>& results) {
  CheckResult merged;
  merged.unit_id = std::string(old_id);
  const CheckResult* first_pass = nullptr;
  bool all_skipped = !results.empty();
  for (const CheckResult& r : results) {
    if (r.outcome == Outcome::kError) {
      CheckResult e = r;
      e.unit_id = merged.unit_id;
      return e;
    }
    if (r.outcome != Outcome::kSkip) {
      all_skipped = false;
      if (first_pass == nullptr && r.findings.empty()) first_pass = &r;
    }
    for (const auto& kv : r.evidence) {
      if (std::find(merged.evidence.begin(), merged.evidence.end(), kv) == merged.evidence.end())
        merged.evidence.push_back(kv);
    }
    for (const Finding& f : r.findings) merged.findings.push_back(f);
    merged.duration_ms += r.duration_ms;
    merged.recordings.insert(r.recordings.begin(), r.recordings.end());
  }
  if (all_skipped) {
    merged.outcome = Outcome::kSkip;
    merged.summary = results.front().summary;
    return merged;
  }
  if (merged.findings.empty() && first_pass != nullptr) merged.summary = first_pass->summary;
  merged.Finalize();
  return merged;
}

CheckResult RunCheckOrAlias(const CheckContext& ctx, std::string_view id) {
  const UnitAlias* alias = FindUnitAlias(id);
  if (alias == nullptr) return RunCheck(ctx, id);
  std::vector<CheckResult> results;
  for (std::string_view member : alias->ids) results.push_back(RunCheck(ctx, member));
  return MergeAliasResults(id, results);
}

}  // namespace ys::checks
