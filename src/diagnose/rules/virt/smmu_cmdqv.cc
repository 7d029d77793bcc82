// Exemplar case 1: Grace in a VM whose SMMUv3 runs without CMDQV (command-queue virtualisation).
// Every IOMMU invalidation then goes through one shared command queue; on MoE training in a VM the
// invalidations took 24% of host CPU cycles and cost about 12% of throughput.
#include <fmt/format.h>

#include "diagnose/rule.h"

namespace ys::diagnose {
namespace {

constexpr double kCase1Recovery = 0.12;

class SmmuCmdqvRule : public Rule {
 public:
  std::vector<Diagnosis> Evaluate(const DiagnosisInput& in) const override {
    auto found = FindingsWithAnyCode(in, {"YS-VIRT-002", "YS-VIRT-003"});
    if (found.empty()) return {};
    Diagnosis d = DiagnosisFromFindings("virt.smmu_cmdqv", "virtualisation", found);
    const Finding& f = *found.front().finding;
    bool vm = false, identity_only = true;
    for (const auto& lf : found) {
      vm = vm || EvidenceValue(lf.finding->evidence, "virtualization").has_value();
      // A warn YS-VIRT-002 means the GPUs and NICs are in identity (passthrough) domains, which
      // issue few invalidations: the case's loss is then an upper bound.
      identity_only = identity_only && lf.finding->code == "YS-VIRT-002" &&
                      lf.finding->severity == Severity::kWarn;
    }
    d.cause = f.code == "YS-VIRT-003"
                  ? "Grace CMDQV is disabled by a module parameter: every SMMU invalidation goes "
                    "through one shared command queue"
                  : "Grace SMMUv3 runs without CMDQV" + std::string(vm ? " in this VM" : "") +
                        ": every SMMU invalidation goes through one shared command queue";
    if (identity_only) {
      d.recovery = Published(0, kCase1Recovery,
                             "Exemplar case 1: about 12% on MoE training in a VM without CMDQV; "
                             "up to that here, because the GPUs and NICs are in identity domains "
                             "and issue fewer invalidations");
      d.confidence = Confidence::kLow;
    } else {
      d.recovery = Published(kCase1Recovery, kCase1Recovery,
                             "Exemplar case 1: SMMU command-queue invalidations took 24% of host "
                             "CPU cycles and cost about 12% on MoE training in a VM");
      d.confidence = vm ? Confidence::kHigh : Confidence::kMedium;
    }
    if (d.reference.empty()) d.reference = "Exemplar case 1";
    return {d};
  }
};

}  // namespace

YS_REGISTER(SmmuCmdqvRule,
            {.id = "virt.smmu_cmdqv",
             .summary = "Grace SMMUv3 without CMDQV (in a VM): IOMMU invalidations serialise "
                        "on one command queue (Exemplar case 1, about 12%)"});

}  // namespace ys::diagnose
