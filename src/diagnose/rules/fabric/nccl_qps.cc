// Exemplar case 3: NCCL_IB_QPS_PER_CONNECTION=1 on 400 Gb/s or faster links. One queue pair per
// connection cannot spread its traffic over the fabric's paths; the QP-limited collectives took
// 31% of iteration time. The case gives no after figure, so the recovery is a range: from nothing
// (the collectives were hidden behind compute after all) to the whole 31% given back
// (1 / (1 - 0.31) - 1 = 45%).
#include <fmt/format.h>

#include "diagnose/rule.h"

namespace ys::diagnose {
namespace {

constexpr double kCase3CollectiveShare = 0.31;

class NcclQpsRule : public Rule {
 public:
  std::vector<Diagnosis> Evaluate(const DiagnosisInput& in) const override {
    auto found = FindingsWithCode(in, "YS-ENV-003");
    if (found.empty()) return {};
    Diagnosis d = DiagnosisFromFindings("fabric.nccl_qps", "fabric", found);
    d.cause =
        "NCCL uses one queue pair per connection on 400 Gb/s+ links: each connection's traffic "
        "takes a single path through the fabric";
    d.recovery = Published(
        0, RecoveryFromShare(kCase3CollectiveShare),
        "Exemplar case 3: QP-limited collectives took 31% of iteration time on ConnectX-8; giving "
        "that time back is worth up to 1 / (1 - 0.31) - 1 = 45%, less where collectives overlap "
        "compute");
    d.confidence = Confidence::kHigh;
    if (d.reference.empty()) d.reference = "Exemplar case 3";
    return {d};
  }
};

}  // namespace

YS_REGISTER(NcclQpsRule,
            {.id = "fabric.nccl_qps",
             .summary = "NCCL_IB_QPS_PER_CONNECTION=1 on 400G+ links (Exemplar case 3: 31% "
                        "of iteration time in QP-limited collectives)"});

}  // namespace ys::diagnose
