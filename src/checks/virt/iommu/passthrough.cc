// virt.iommu.passthrough: on bare metal, GPUs and NICs in identity (passthrough) IOMMU domains,
// as site policy virt.iommu_passthrough asks; in a VM the domain types are evidence only.
#include "checks/check.h"
#include "checks/virt/internal/iommu_facts.h"
#include "core/text.h"

namespace ys::checks::iommu {
namespace {

Finding Translated(const IommuFacts& q) {
  const std::vector<size_t>& t = q.translated;
  Finding f = MakeFinding("YS-VIRT-001", t.size() == 1 ? q.devices[t[0]].iommu.bdf : "node",
                          std::to_string(t.size()) + " of " + std::to_string(q.devices.size()) +
                              " GPUs/NICs sit in translated IOMMU domains on bare metal: every DMA "
                              "is translated and RDMA registration pays IOTLB misses");
  for (size_t i : t) {
    const Device& d = q.devices[i];
    f.evidence.emplace_back(d.iommu.type_path + " (" + d.kind + " " + d.iommu.bdf + ")",
                            host::IommuDomainTypeName(*d.iommu.type));
  }
  f.evidence.emplace_back("/proc/cmdline IOMMU parameters",
                          q.ic.tokens.empty() ? "none" : Join(q.ic.tokens, " "));
  f.evidence.emplace_back("site.virt.iommu_passthrough", "on");
  f.fix = std::string(q.arch == host::CpuArch::kArm64 ? "iommu.passthrough=1" : "iommu=pt") +
          " on the kernel command line (GRUB_CMDLINE_LINUX, then update-grub and reboot); or, "
          "per group with the device unbound: echo identity > /sys/kernel/iommu_groups/<N>/type";
  f.reference = kReference;
  return f;
}

class PassthroughCheck : public Check {
 public:
  CheckResult Run(const CheckContext& ctx) const override {
    auto read = ReadIommu(ctx);
    if (auto* early = std::get_if<CheckResult>(&read)) return std::move(*early);
    const IommuFacts& q = std::get<IommuFacts>(read);
    CheckResult r = StartResult(q);
    if (!q.translated.empty() && !q.virt.vm &&
        ctx.param<Policy>("iommu_passthrough") == Policy::kOn) {
      r.Add(Translated(q));
    } else if (q.virt.vm) {
      r.Note("iommu.policy",
             "passthrough policy not applied in a VM: the guest's IOMMU is the one the "
             "hypervisor gives it; the host's translation cannot be seen from inside");
    }
    Conclude(q, r);
    return r;
  }
};

}  // namespace

YS_REGISTER(
    PassthroughCheck,
    {.id = "virt.iommu.passthrough",
     .summary = "VM detection, and on bare metal GPUs and NICs in passthrough "
                "(identity) IOMMU domains as site policy asks.",
     .needs = {},
     .codes = {{"YS-VIRT-001", Severity::kWarn, "IOMMU translates DMA for GPUs or NICs"}},
     .params = {
         {.name = "iommu_passthrough",
          .type = ParamType::kPolicy,
          .default_value = Policy::kOn,
          .meaning =
              "on: GPUs and NICs must be in identity (passthrough) IOMMU domains on bare metal",
          .site_table = "virt"}}})

}  // namespace ys::checks::iommu
