// workload.drift: the steps slow down over the run beyond what noise gives (thermal slowdown, a
// clock or power cap that engages under sustained load, memory fragmentation), from the
// step-time analysis (workloads/step_time.h). Recovery p / 2 .. p for a total rise p. Left to
// gpu.throttling when the preflight saw the GPUs' clocks held down: that rule names the cause and
// quotes the drift. Silent below kMinDriftSteps steps ("too few steps", rule.h).
#include <fmt/format.h>

#include "diagnose/rule.h"

namespace ys::diagnose {
namespace {

// gpu.throttling has a case (the preflight saw the GPUs' clocks held down): that rule names the
// cause and quotes the drift.
bool GpuThrottlingSpeaks(const DiagnosisInput& in) {
  const RegisteredUnit* u = UnitRegistry::Global().Find(UnitKind::kRule, "gpu.throttling");
  if (u == nullptr) return false;
  std::unique_ptr<Unit> rule = u->factory();
  return !static_cast<const Rule&>(*rule).Evaluate(in).empty();
}

class DriftRule : public Rule {
 public:
  std::vector<Diagnosis> Evaluate(const DiagnosisInput& in) const override {
    if (GpuThrottlingSpeaks(in)) return {};
    std::vector<Diagnosis> out;
    auto enough = [](const workloads::StepTimeAnalysis& a) {
      return SlowingDown(a) && StepsBehind(a, false) >= kMinDriftSteps;
    };
    bool gpus = in.run != nullptr && in.run->host.gpu_source.rfind("none", 0) != 0 &&
                !in.run->host.gpu_source.empty();
    for (const WorkloadEvidence* w : WorkloadsWhere(in, enough)) {
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
      // A CPU proxy on a node without GPUs gets the CPU's tools only.
      d.fix =
          gpus ? "watch the clocks while it runs: nvidia-smi -q -d PERFORMANCE,TEMPERATURE,POWER "
                 "(GPU throttle reasons) and turbostat (CPU); check cooling and power capping, "
                 "then memory growth in the training process"
               : "watch the CPU clocks while it runs (turbostat --interval 5) and what else "
                 "runs on its cores (top, pidstat 5); check cooling and power capping, then "
                 "memory growth in the process";
      d.confidence = Confidence::kLow;  // the symptom without its cause
      d.reference = "workloads/step_time.h drift rule (Theil-Sen)";
      out.push_back(std::move(d));
    }
    return out;
  }
  std::vector<std::string> Unjudged(const DiagnosisInput& in) const override {
    return TooFewSteps(in, kMinDriftSteps, "drift");
  }
};

}  // namespace

YS_REGISTER(DriftRule, {.id = "workload.drift",
                        .summary = "Step times slowing down over the run (thermal or power "
                                   "slowdown) with no throttling finding to name the cause"});

}  // namespace ys::diagnose
