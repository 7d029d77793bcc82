// numa.placement.kernel_policy: automatic NUMA balancing (kernel.numa_balancing) against site
// policy numa.balancing, and zone reclaim (vm.zone_reclaim_mode) on a multi-node machine.
#include "checks/check.h"
#include "checks/numa/internal/placement_facts.h"

namespace ys::checks::placement {
namespace {

class KernelPolicyCheck : public Check {
 public:
  CheckResult Run(const CheckContext& ctx) const override {
    auto read = ReadPlacement(ctx);
    if (auto* early = std::get_if<CheckResult>(&read)) return std::move(*early);
    const PlacementFacts& q = std::get<PlacementFacts>(read);
    CheckResult r = StartResult(q);
    if (Status s = CheckSysctls(ctx, *q.topo, r); !s.ok()) return CheckResult::Error(s);
    Conclude(q, r);
    return r;
  }
};

}  // namespace

YS_REGISTER(
    KernelPolicyCheck,
    {.id = "numa.placement.kernel_policy",
     .summary = "Automatic NUMA balancing and zone reclaim as site policy asks.",
     .needs = {},
     .codes = {{"YS-NUMA-002", Severity::kWarn, "automatic NUMA balancing enabled"},
               {"YS-NUMA-006", Severity::kWarn, "zone_reclaim_mode enabled"}},
     .params = {{.name = "balancing",
                 .type = ParamType::kPolicy,
                 .default_value = Policy::kOff,
                 .meaning = "automatic NUMA balancing (kernel.numa_balancing) on a multi-node host",
                 .site_table = "numa"}}})

}  // namespace ys::checks::placement
