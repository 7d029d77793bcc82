// cpu.frequency.energy_preference: the energy-performance preference of every CPU (power or
// balance_power lowers the clock under load).
#include "checks/check.h"
#include "checks/cpu/internal/frequency_facts.h"

namespace ys::checks::frequency {
namespace {

class EnergyPreferenceCheck : public Check {
 public:
  CheckResult Run(const CheckContext& ctx) const override {
    auto read = ReadFrequency(ctx);
    if (auto* early = std::get_if<CheckResult>(&read)) return std::move(*early);
    const FrequencyFacts& q = std::get<FrequencyFacts>(read);
    CheckResult r = StartResult(q);
    Groups powery = PowerPreference(q);
    if (!powery.empty()) {
      CpuSet cpus = AllCpus(powery);
      Finding f = MakeFinding("YS-CPU-013", "cpu" + cpus.ToString(),
                              "energy-performance preference favours power: " + Describe(powery));
      f.evidence = {
          {std::string(kPolicyGlob) + "/energy_performance_preference", Describe(q.epps)}};
      f.fix =
          "echo performance | tee /sys/devices/system/cpu/cpufreq/policy*/"
          "energy_performance_preference (intel_pstate's performance governor sets it too)";
      f.reference = kReference;
      r.Add(std::move(f));
    }
    Conclude(q, r);
    return r;
  }
};

}  // namespace

YS_REGISTER(EnergyPreferenceCheck,
            {.id = "cpu.frequency.energy_preference",
             .summary = "No CPU has an energy-performance preference that favours power.",
             .needs = {},
             .codes = {
                 {"YS-CPU-013", Severity::kWarn, "energy-performance preference favours power"}}})

}  // namespace ys::checks::frequency
