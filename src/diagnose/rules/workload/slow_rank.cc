// workload.slow_rank: a rank whose median step is slower than the other ranks' (from the step-time
// analysis, workloads/step_time.h). The job's step is its slowest rank's, so the job recovers
// that rank's excess over the median rank. Silent when a rank has fewer than kMinRankSteps steps
// ("too few steps", rule.h).
#include <fmt/format.h>

#include "diagnose/rule.h"

namespace ys::diagnose {
namespace {

class SlowRankRule : public Rule {
 public:
  std::vector<Diagnosis> Evaluate(const DiagnosisInput& in) const override {
    std::vector<Diagnosis> out;
    for (const auto& w : in.workloads) {
      if (!w.analysis || StepsBehind(*w.analysis, true) < kMinRankSteps) continue;
      for (const auto& r : w.analysis->ranks) {
        if (!r.slow) continue;
        Diagnosis d;
        d.rule = "workload.slow_rank";
        d.layer = "workload";
        d.entity = fmt::format("rank {}", r.rank);
        d.cause = fmt::format(
            "rank {} of {} steps {} slower than the median rank: every step "
            "waits for it",
            r.rank, w.id, Percent(r.excess_fraction));
        d.evidence = {{"rank median", fmt::format("{:.4g} s", r.median_s)},
                      {"job median", fmt::format("{:.4g} s", w.analysis->median_s)},
                      {"robust z", fmt::format("{:.1f}", r.robust_z)},
                      {"source", w.source}};
        d.recovery = Published(r.excess_fraction, r.excess_fraction,
                               fmt::format("measured: the rank's median step is {} over the median "
                                           "rank's; synchronous steps wait for it",
                                           Percent(r.excess_fraction)));
        d.fix =
            "run yardstick preflight on that rank's node and compare it with a healthy node's "
            "(GPU clocks and throttle reasons, NUMA placement, other processes on its cores); "
            "drain the node if it stays slow";
        d.confidence = r.robust_z >= 2 * 3.5 ? Confidence::kHigh : Confidence::kMedium;
        d.reference = "workloads/step_time.h slow-rank rule";
        out.push_back(std::move(d));
      }
    }
    return out;
  }
  std::vector<std::string> Unjudged(const DiagnosisInput& in) const override {
    return TooFewSteps(in, kMinRankSteps, "a slow rank", true);
  }
};

}  // namespace

YS_REGISTER(SlowRankRule, {.id = "workload.slow_rank",
                           .summary = "One rank's steps slower than the others': the job "
                                      "waits for it every step"});

}  // namespace ys::diagnose
