// numa.placement.memory: the share of the checked process's data on NUMA nodes other than its home
// node (Exemplar case 2: 18% of accesses remote); see checks/numa/internal/placement_facts.h for
// the home node and what is counted.
#include "checks/check.h"
#include "checks/numa/internal/placement_facts.h"

namespace ys::checks::placement {
namespace {

class MemoryCheck : public Check {
 public:
  CheckResult Run(const CheckContext& ctx) const override {
    auto read = ReadPlacement(ctx);
    if (auto* early = std::get_if<CheckResult>(&read)) return std::move(*early);
    const PlacementFacts& q = std::get<PlacementFacts>(read);
    CheckResult r = StartResult(q);
    if (Status s = CheckMemory(ctx, *q.topo, q.home, q.home_why, r); !s.ok()) {
      return CheckResult::Error(s);
    }
    Conclude(q, r);
    return r;
  }
};

}  // namespace

YS_REGISTER(
    MemoryCheck,
    {.id = "numa.placement.memory",
     .summary = "Share of the process's memory on remote NUMA nodes "
                "(from numa_maps) below the site's maximum.",
     .needs = {},
     .codes = {{"YS-NUMA-001", Severity::kFail,
                "process memory on remote NUMA nodes above threshold"}},
     .params = {
         {.name = "max_remote_share",
          .type = ParamType::kDouble,
          .default_value = 0.10,
          .lo = 0,
          .hi = 1,
          .meaning = "largest share of the process's resident data pages on remote NUMA nodes",
          .site_table = "numa"}}})

}  // namespace ys::checks::placement
