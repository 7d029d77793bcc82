// fleet.slow_node and fleet.slow_gpu: a node (YS-FLEET-001) or a GPU, NIC or other device
// (YS-FLEET-002) far below its peers' median in this run. Synchronous training runs at the pace of
// its slowest member, so a member d below the median holds the whole job to (1 - d) of the pace
// it would have: replacing or repairing it recovers 1 / (1 - d) - 1, if the job is bound by what
// the fleet comparison measured. The two rules differ only in the code and the words, so one
// class serves both.
#include <fmt/format.h>

#include "diagnose/rule.h"

namespace ys::diagnose {
namespace {

class SlowMemberRule : public Rule {
 public:
  SlowMemberRule(const char* rule, const char* code, const char* what)
      : rule_(rule), code_(code), what_(what) {}

  std::vector<Diagnosis> Evaluate(const DiagnosisInput& in) const override {
    std::vector<Diagnosis> out;
    for (const LocatedFinding& lf : FindingsWithCode(in, code_)) {
      Diagnosis d = DiagnosisFromFindings(rule_, "fleet", {lf});
      d.entity = lf.finding->entity;  // the fleet check already names node (and device)
      auto deficit = EvidenceValue(lf.finding->evidence, "median deficit");
      auto share = deficit ? ParsePercent(*deficit) : std::nullopt;
      d.cause = fmt::format(
          "{} {} is {} below its peers' median: a synchronous job runs at its "
          "slowest member's pace",
          what_, d.entity, share ? Percent(*share) : "far");
      if (share && *share > 0 && *share < 1) {
        double r = RecoveryFromShare(*share);
        d.recovery = Published(r, r,
                               fmt::format("measured: {} below the fleet median; the job waits "
                                           "for it every step, so fixing it is worth 1 / (1 - {}) "
                                           "- 1 = {} if the job is bound by the figures compared "
                                           "(then it runs at the next slowest member's pace)",
                                           Percent(*share), Percent(*share), Percent(r)));
        d.confidence = Confidence::kMedium;
      } else {
        d.recovery = NotQuantified("the finding states no median deficit");
        d.confidence = Confidence::kLow;
      }
      out.push_back(std::move(d));
    }
    return out;
  }

 private:
  const char* rule_;
  const char* code_;
  const char* what_;
};

class SlowNodeRule : public SlowMemberRule {
 public:
  SlowNodeRule() : SlowMemberRule("fleet.slow_node", "YS-FLEET-001", "node") {}
};

class SlowGpuRule : public SlowMemberRule {
 public:
  SlowGpuRule() : SlowMemberRule("fleet.slow_gpu", "YS-FLEET-002", "device") {}
};

}  // namespace

YS_REGISTER(SlowNodeRule, {.id = "fleet.slow_node",
                           .summary = "A node far below its peers' median (YS-FLEET-001) "
                                      "holds a synchronous job to its pace"});
YS_REGISTER(SlowGpuRule, {.id = "fleet.slow_gpu",
                          .summary = "A GPU, NIC or other device far below its peers' median "
                                     "(YS-FLEET-002) holds a synchronous job to its pace"});

}  // namespace ys::diagnose
