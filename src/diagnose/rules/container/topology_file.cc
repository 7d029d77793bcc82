// Exemplar case 4: NCCL_TOPO_FILE names a file that is absent inside the container (it was not
// mounted). NCCL silently falls back to detection, which inside a VM or container gets the
// topology wrong: collectives ran 2-4x slower and the workloads were 13-53% below the reference.
// Closing a gap g is worth 1 / (1 - g) - 1: 15% to 113%.
#include <fmt/format.h>

#include "diagnose/rule.h"

namespace ys::diagnose {
namespace {

constexpr double kGapLow = 0.13, kGapHigh = 0.53;

class TopologyFileRule : public Rule {
 public:
  std::vector<Diagnosis> Evaluate(const DiagnosisInput& in) const override {
    auto found = FindingsWithCode(in, "YS-ENV-001");
    if (found.empty()) return {};
    bool container = found.front().finding->message.find("container") != std::string::npos;
    Diagnosis d =
        DiagnosisFromFindings("container.topology_file", container ? "container" : "host", found);
    // The check's message reads "NCCL_TOPO_FILE <path> does not exist ...".
    std::string path;
    const std::string& msg = found.front().finding->message;
    if (msg.rfind("NCCL_TOPO_FILE ", 0) == 0) {
      path = " " + msg.substr(15, msg.find(' ', 15) - 15);
    }
    d.cause = "NCCL_TOPO_FILE" + path + " is absent " +
              (container ? "inside the container (not mounted)" : "on this node") +
              ": NCCL falls back to topology detection without an error";
    d.recovery = Published(RecoveryFromShare(kGapLow), RecoveryFromShare(kGapHigh),
                           "Exemplar case 4: without the topology file collectives ran 2-4x slower "
                           "and workloads were 13-53% below the reference; closing that gap is "
                           "worth 1 / (1 - gap) - 1 = 15-113%");
    d.confidence = Confidence::kHigh;
    // A workload below its threshold is the symptom the case showed.
    for (const auto& w : in.workloads) {
      if (w.score && w.threshold && *w.score < *w.threshold) {
        d.evidence.emplace_back(w.id + " score",
                                fmt::format("{:.3f} (threshold {:.2f})", *w.score, *w.threshold));
      }
    }
    if (d.reference.empty()) d.reference = "Exemplar case 4";
    return {d};
  }
};

}  // namespace

YS_REGISTER(TopologyFileRule,
            {.id = "container.topology_file",
             .summary = "NCCL_TOPO_FILE absent in the container: the bind mount is missing "
                        "(Exemplar case 4, 13-53% gap)"});

}  // namespace ys::diagnose
