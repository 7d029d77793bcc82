// numa.placement.devices: the locality of the GPUs and NICs the process uses: devices without NUMA
// affinity, and GPUs or NICs on other nodes than the process's CPUs (see
// checks/numa/internal/placement_facts.h for how the used devices are identified).
#include "checks/check.h"
#include "checks/numa/internal/placement_facts.h"

namespace ys::checks::placement {
namespace {

class DevicesCheck : public Check {
 public:
  CheckResult Run(const CheckContext& ctx) const override {
    auto read = ReadPlacement(ctx);
    if (auto* early = std::get_if<CheckResult>(&read)) return std::move(*early);
    const PlacementFacts& q = std::get<PlacementFacts>(read);
    CheckResult r = StartResult(q);
    CheckDevices(ctx, *q.topo, q.use, q.ps, r);
    Conclude(q, r);
    return r;
  }
};

}  // namespace

YS_REGISTER(
    DevicesCheck,
    {.id = "numa.placement.devices",
     .summary = "Locality of the GPUs and NICs the process uses: NUMA "
                "affinity known, devices on the process's nodes.",
     .needs = {},
     .codes = {
         {"YS-NUMA-003", Severity::kFail, "process CPUs not local to its GPUs or NICs"},
         {"YS-NUMA-004", Severity::kFail, "process memory nodes exclude the devices' local node"},
         {"YS-NUMA-005", Severity::kWarn, "device without NUMA affinity on a multi-node host"}}})

}  // namespace ys::checks::placement
