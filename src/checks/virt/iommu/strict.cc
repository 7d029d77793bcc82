// virt.iommu.strict: strict IOMMU invalidation (iommu.strict=1 on the command line, or GPU/NIC
// domains of type "DMA"), where every DMA unmap waits for an IOTLB invalidation; in a VM the
// invalidations also trap to the host.
#include <algorithm>

#include "checks/check.h"
#include "checks/virt/internal/iommu_facts.h"

namespace ys::checks::iommu {
namespace {

class StrictCheck : public Check {
 public:
  CheckResult Run(const CheckContext& ctx) const override {
    auto read = ReadIommu(ctx);
    if (auto* early = std::get_if<CheckResult>(&read)) return std::move(*early);
    const IommuFacts& q = std::get<IommuFacts>(read);
    CheckResult r = StartResult(q);
    const host::IommuCmdline& ic = q.ic;
    bool iommu_present =
        !q.units.empty() || std::any_of(q.devices.begin(), q.devices.end(),
                                        [](const Device& d) { return d.iommu.group.has_value(); });
    if (iommu_present && !ic.disabled && !q.all_identity &&
        (ic.strict || !q.strict_domains.empty())) {
      Finding f =
          MakeFinding("YS-VIRT-005", "node",
                      ic.strict ? "IOMMU in strict mode (" + ic.strict_token +
                                      "): every DMA unmap waits for an IOTLB invalidation"
                                : std::to_string(q.strict_domains.size()) +
                                      " GPU/NIC domains are strict \"DMA\": every unmap waits "
                                      "for an IOTLB invalidation");
      if (ic.strict) f.evidence.emplace_back("/proc/cmdline", ic.strict_token);
      for (size_t i : q.strict_domains)
        f.evidence.emplace_back(q.devices[i].iommu.type_path, "DMA");
      if (q.virt.vm)
        f.evidence.emplace_back("virtualization",
                                q.virt.hypervisor + " guest: invalidations trap to the host");
      f.fix = "remove " + (ic.strict ? ic.strict_token : std::string("the strict default")) +
              ": iommu.strict=0 (lazy invalidation, DMA-FQ), or passthrough (iommu=pt / "
              "iommu.passthrough=1) where the site allows it";
      f.reference = "kernel-parameters.txt iommu.strict; docs/node-checks.md §iommu";
      r.Add(std::move(f));
    }
    Conclude(q, r);
    return r;
  }
};

}  // namespace

YS_REGISTER(StrictCheck,
            {.id = "virt.iommu.strict",
             .summary = "IOMMU invalidation not strict for GPU and NIC domains (lazy "
                        "DMA-FQ or passthrough).",
             .needs = {},
             .codes = {{"YS-VIRT-005", Severity::kWarn, "IOMMU in strict invalidation mode"}}})

}  // namespace ys::checks::iommu
