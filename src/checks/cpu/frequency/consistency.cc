// cpu.frequency.consistency: one frequency policy for all CPUs: a divergence of driver, governor,
// scaling_max_freq or energy preference that no other cpu.frequency.* finding already explains.
#include "checks/check.h"
#include "checks/cpu/internal/frequency_facts.h"

namespace ys::checks::frequency {
namespace {

class ConsistencyCheck : public Check {
 public:
  CheckResult Run(const CheckContext& ctx) const override {
    auto read = ReadFrequency(ctx);
    if (auto* early = std::get_if<CheckResult>(&read)) return std::move(*early);
    const FrequencyFacts& q = std::get<FrequencyFacts>(read);
    CheckResult r = StartResult(q);
    const auto& site = ctx.expect().cpu;
    Evidence diverging;
    if (q.drivers.size() > 1) diverging.emplace_back("scaling_driver", Describe(q.drivers));
    if (q.governors.size() > 1 && WrongGovernors(q, site.governor).empty())
      diverging.emplace_back("scaling_governor", Describe(q.governors));
    if (q.maxes.size() > 1 && CappedMaxFreq(q, site.turbo).empty() && q.hw_maxes.size() == 1) {
      diverging.emplace_back("scaling_max_freq", Describe(q.maxes));
    }
    if (q.epps.size() > 1 && PowerPreference(q).empty())
      diverging.emplace_back("energy_performance_preference", Describe(q.epps));
    if (!diverging.empty()) {
      std::string what;
      for (const auto& [k, _] : diverging) what += (what.empty() ? "" : ", ") + k;
      Finding f =
          MakeFinding("YS-CPU-017", "node", "frequency policy differs across CPUs: " + what);
      f.evidence = diverging;
      f.fix =
          "apply one profile to every CPU (cpupower -c all frequency-set ..., or one tuned "
          "profile fleet-wide)";
      f.reference = kReference;
      r.Add(std::move(f));
    }
    Conclude(q, r);
    return r;
  }
};

}  // namespace

YS_REGISTER(ConsistencyCheck,
            {.id = "cpu.frequency.consistency",
             .summary = "One frequency policy for all CPUs: driver, "
                        "governor, maximum and energy preference agree.",
             .needs = {},
             .codes = {{"YS-CPU-017", Severity::kWarn, "frequency policy differs across CPUs"}}})

}  // namespace ys::checks::frequency
