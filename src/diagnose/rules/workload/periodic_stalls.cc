// workload.periodic_stalls: regular spikes in the step times (the 50-100 ms stalls of Exemplar
// case 2), from the step-time analysis (workloads/step_time.h). They take a share f of the run's
// time (spikes x excess / total); removing them recovers 1 / (1 - f) - 1. Silent below
// kMinStallSteps steps ("too few steps", rule.h).
#include <fmt/format.h>

#include "diagnose/rule.h"

namespace ys::diagnose {
namespace {

class PeriodicStallsRule : public Rule {
 public:
  std::vector<Diagnosis> Evaluate(const DiagnosisInput& in) const override {
    std::vector<Diagnosis> out;
    for (const WorkloadEvidence* w : WorkloadsWhere(in, [](const workloads::StepTimeAnalysis& a) {
           return a.stalls.periodic && StepsBehind(a, false) >= kMinStallSteps;
         })) {
      const auto& a = *w->analysis;
      double total = a.mean_s * a.steps;
      if (total <= 0) continue;
      double share = a.stalls.spikes * a.stalls.typical_excess_s / total;
      double r = RecoveryFromShare(share);
      Diagnosis d;
      d.rule = "workload.periodic_stalls";
      d.layer = "workload";
      d.entity = w->id;
      d.cause = fmt::format("{} stalls periodically: {}", w->id, DescribeStalls(a));
      d.evidence = {
          {"step times", DescribeSpread(a)}, {"stalls", DescribeStalls(a)}, {"source", w->source}};
      d.recovery = Published(r, r,
                             fmt::format("measured: the spikes take {} of the run's time; removing "
                                         "them recovers 1 / (1 - {}) - 1 = {}",
                                         Percent(share), Percent(share), Percent(r)));
      d.fix =
          "find what runs at that period: housekeeping threads or daemons on the job's cores "
          "(move them off with cpusets), checkpoints or logging every N steps, garbage "
          "collection; perf sched / turbostat across a stall";
      d.confidence = Confidence::kMedium;
      d.reference = "Exemplar case 2 (50-100 ms stalls); workloads/step_time.h periodic-stall rule";
      out.push_back(std::move(d));
    }
    return out;
  }
  std::vector<std::string> Unjudged(const DiagnosisInput& in) const override {
    return TooFewSteps(in, kMinStallSteps, "periodic stalls");
  }
};

}  // namespace

YS_REGISTER(PeriodicStallsRule, {.id = "workload.periodic_stalls",
                                 .summary = "Regular spikes in the step times (Exemplar case "
                                            "2's 50-100 ms stalls)"});

}  // namespace ys::diagnose
