// gpu.throttling: a GPU's clocks are held down (clock-event reasons YS-GPU-010..014, a power limit
// below the default YS-GPU-015, temperature at or near the slowdown threshold YS-GPU-020/021).
//
// What it costs, from the evidence at hand:
// - the check's SM clock and maximum: a compute-bound step runs at clock / max of its speed and
//   recovers max / clock - 1;
// - else a workload's step times drifting upwards (thermal slowdown over the run) by a total of p:
//   the run averaged p / 2 slower than its start and ended p slower: recovery p / 2 .. p;
// - else not quantified.
// A drift in the step times also raises the confidence: the clocks fell while the job ran.
#include <fmt/format.h>

#include <algorithm>

#include "core/text.h"
#include "diagnose/rule.h"

namespace ys::diagnose {
namespace {

// The GPU clock-event, power-limit and temperature findings (gpu.clocks, gpu.power, gpu.thermal
// declare them).
const std::vector<std::string_view> kThrottleCodes = {"YS-GPU-010", "YS-GPU-011", "YS-GPU-012",
                                                      "YS-GPU-013", "YS-GPU-014", "YS-GPU-015",
                                                      "YS-GPU-020", "YS-GPU-021"};

class GpuThrottlingRule : public Rule {
 public:
  std::vector<Diagnosis> Evaluate(const DiagnosisInput& in) const override {
    auto found = FindingsWithAnyCode(in, kThrottleCodes);
    if (found.empty()) return {};
    Diagnosis d = DiagnosisFromFindings("gpu.throttling", "gpu", found);
    std::vector<std::string> gpus;
    bool fail = false;
    double clock_loss = 0;  // largest max / clock - 1 over the findings
    for (const auto& lf : found) {
      if (std::find(gpus.begin(), gpus.end(), lf.finding->entity) == gpus.end())
        gpus.push_back(lf.finding->entity);
      fail = fail || lf.finding->severity == Severity::kFail;
      auto sm = EvidenceValue(lf.finding->evidence, "sm_clock_mhz");
      auto max = EvidenceValue(lf.finding->evidence, "max_sm_clock_mhz");
      auto s = sm ? ParseDouble(*sm) : std::nullopt;
      auto m = max ? ParseDouble(*max) : std::nullopt;
      if (s && m && *s > 0 && *m > *s) clock_loss = std::max(clock_loss, *m / *s - 1);
    }
    d.cause = fmt::format("GPU clocks held down on {}: {}", Join(gpus, ", "),
                          found.front().finding->message);
    auto drifting = WorkloadsWhere(in, SlowingDown);
    for (const WorkloadEvidence* w : drifting) {
      d.evidence.emplace_back(w->id + " drift",
                              fmt::format("{:+.1f}% over {} steps (noise floor {:.1f}%)",
                                          w->analysis->drift.total_percent, w->analysis->steps,
                                          w->analysis->drift.noise_floor_percent));
    }
    if (clock_loss > 0) {
      d.recovery = Published(clock_loss, clock_loss,
                             fmt::format("measured: the SM clock is held {} below its maximum; a "
                                         "compute-bound step recovers max / clock - 1 = {}",
                                         Percent(1 - 1 / (1 + clock_loss)), Percent(clock_loss)));
    } else if (!drifting.empty()) {
      d.recovery = DriftRecovery(*drifting.front());
    } else {
      d.recovery = NotQuantified("the findings state no clocks and no step times drift");
    }
    d.confidence = !drifting.empty() ? Confidence::kHigh
                   : fail            ? Confidence::kMedium
                                     : Confidence::kLow;
    if (d.fix.empty()) {
      d.fix =
          "check cooling, power capping and the power supply of the GPU (nvidia-smi -q -d "
          "PERFORMANCE,POWER,TEMPERATURE)";
    }
    return {d};
  }
};

}  // namespace

YS_REGISTER(GpuThrottlingRule,
            {.id = "gpu.throttling",
             .summary = "GPU clocks held down by thermal, power or hardware slowdown "
                        "(YS-GPU-010..015, 020/021); a drift in step times strengthens it"});

}  // namespace ys::diagnose
