// cpu.frequency.pstate_cap: intel_pstate's global cap, max_perf_pct below 100.
#include "checks/check.h"
#include "checks/cpu/internal/frequency_facts.h"

namespace ys::checks::frequency {
namespace {

class PstateCapCheck : public Check {
 public:
  CheckResult Run(const CheckContext& ctx) const override {
    auto read = ReadFrequency(ctx);
    if (auto* early = std::get_if<CheckResult>(&read)) return std::move(*early);
    const FrequencyFacts& q = std::get<FrequencyFacts>(read);
    CheckResult r = StartResult(q);
    if (q.turbo.max_perf_pct && *q.turbo.max_perf_pct < 100) {
      Finding f =
          MakeFinding("YS-CPU-014", "node",
                      "intel_pstate max_perf_pct is " + std::to_string(*q.turbo.max_perf_pct) +
                          ": every CPU is held below that share of its maximum performance");
      f.evidence = {{"/sys/devices/system/cpu/intel_pstate/max_perf_pct",
                     std::to_string(*q.turbo.max_perf_pct)}};
      f.fix = "echo 100 > /sys/devices/system/cpu/intel_pstate/max_perf_pct";
      f.reference = kReference;
      r.Add(std::move(f));
    }
    Conclude(q, r);
    return r;
  }
};

}  // namespace

YS_REGISTER(
    PstateCapCheck,
    {.id = "cpu.frequency.pstate_cap",
     .summary = "intel_pstate max_perf_pct does not hold the CPUs below their maximum performance.",
     .needs = {},
     .codes = {{"YS-CPU-014", Severity::kFail, "intel_pstate max_perf_pct below 100"}}})

}  // namespace ys::checks::frequency
