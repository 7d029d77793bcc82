// fabric.downtrained_link: a link trained below what it can do: PCIe width or speed (YS-PCI-001/
// 002, a GPU's YS-GPU-055/056), an InfiniBand port rate below the site minimum (YS-IB-003), an
// NVLink link inactive (YS-GPU-045). One diagnosis per link. The cost to the workload depends on
// how much of its traffic crosses that link, which no figure here measures: not quantified; the
// finding's evidence gives the link's state against its maximum.
#include <fmt/format.h>

#include "diagnose/rule.h"

namespace ys::diagnose {
namespace {

class DowntrainedLinkRule : public Rule {
 public:
  std::vector<Diagnosis> Evaluate(const DiagnosisInput& in) const override {
    std::vector<Diagnosis> out;
    for (const LocatedFinding& lf : FindingsWithAnyCode(
             in,
             {"YS-PCI-001", "YS-PCI-002", "YS-GPU-055", "YS-GPU-056", "YS-IB-003", "YS-GPU-045"})) {
      Diagnosis d = DiagnosisFromFindings("fabric.downtrained_link", "fabric", {lf});
      d.cause = "link below its trained maximum: " + lf.finding->message;
      d.recovery = NotQuantified(
          "transfers over this link are slowed by the ratio in the evidence; what that costs the "
          "step depends on the traffic crossing it (compare the coll.* and copy.* bandwidths)");
      d.confidence =
          lf.finding->severity == Severity::kFail ? Confidence::kHigh : Confidence::kMedium;
      out.push_back(std::move(d));
    }
    return out;
  }
};

}  // namespace

YS_REGISTER(DowntrainedLinkRule,
            {.id = "fabric.downtrained_link",
             .summary = "A PCIe, InfiniBand or NVLink link trained below its maximum "
                        "(YS-PCI-001/002, YS-GPU-055/056, YS-IB-003, YS-GPU-045)"});

}  // namespace ys::diagnose
