// Step-time anomalies the analysis (workloads/step_time.h) finds, each quantified from the step
// times themselves:
// - workload.slow_rank: a rank whose median step is slower than the other ranks'. The job's step
//   is its slowest rank's, so the job recovers that rank's excess over the median rank.
// - workload.periodic_stalls: regular spikes (the 50-100 ms stalls of Exemplar case 2). They take
//   a share f of the run's time (spikes x excess / total); removing them recovers 1 / (1 - f) - 1.
// - workload.drift: the steps slow down over the run beyond what noise gives (thermal slowdown,
//   a clock or power cap that engages under sustained load, memory fragmentation). Recovery p / 2
//   .. p for a total rise p. Left to gpu.throttling when the preflight saw the GPUs' clocks held
//   down: that rule names the cause and quotes the drift.
#include <fmt/format.h>

#include "diagnose/rule.h"

namespace ys::diagnose {
namespace {

class SlowRankRule : public Rule {
 public:
  std::vector<Diagnosis> Evaluate(const DiagnosisInput& in) const override {
    std::vector<Diagnosis> out;
    for (const auto& w : in.workloads) {
      if (!w.analysis) continue;
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
};

class PeriodicStallsRule : public Rule {
 public:
  std::vector<Diagnosis> Evaluate(const DiagnosisInput& in) const override {
    std::vector<Diagnosis> out;
    for (const WorkloadEvidence* w :
         WorkloadsWhere(in, [](const auto& a) { return a.stalls.periodic; })) {
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
};

class DriftRule : public Rule {
 public:
  std::vector<Diagnosis> Evaluate(const DiagnosisInput& in) const override {
    if (!FindingsWithAnyCode(in, kThrottleCodes).empty()) return {};  // gpu.throttling's case
    std::vector<Diagnosis> out;
    for (const WorkloadEvidence* w : WorkloadsWhere(in, SlowingDown)) {
      const auto& a = *w->analysis;
      Diagnosis d;
      d.rule = "workload.drift";
      d.layer = "workload";
      d.entity = w->id;
      d.cause = fmt::format(
          "{} slows down over the run: step time {:+.1f}% from first to last step "
          "({:+.2f}% per 100 steps)",
          w->id, a.drift.total_percent, a.drift.percent_per_100_steps);
      d.evidence = {{"step times", DescribeSpread(a)},
                    {"drift", fmt::format("{:+.1f}% total, noise floor {:.1f}%",
                                          a.drift.total_percent, a.drift.noise_floor_percent)},
                    {"source", w->source}};
      d.recovery = DriftRecovery(*w);
      d.fix =
          "watch the clocks while it runs: nvidia-smi -q -d PERFORMANCE,TEMPERATURE,POWER (GPU "
          "throttle reasons) and turbostat (CPU); check cooling and power capping, then memory "
          "growth in the training process";
      d.confidence = Confidence::kLow;  // the symptom without its cause
      d.reference = "workloads/step_time.h drift rule (Theil-Sen)";
      out.push_back(std::move(d));
    }
    return out;
  }
};

}  // namespace

YS_REGISTER(DriftRule, {.id = "workload.drift",
                        .summary = "Step times slowing down over the run (thermal or power "
                                   "slowdown) with no throttling finding to name the cause"});
YS_REGISTER(SlowRankRule, {.id = "workload.slow_rank",
                           .summary = "One rank's steps slower than the others': the job "
                                      "waits for it every step"});
YS_REGISTER(PeriodicStallsRule, {.id = "workload.periodic_stalls",
                                 .summary = "Regular spikes in the step times (Exemplar case "
                                            "2's 50-100 ms stalls)"});

}  // namespace ys::diagnose
