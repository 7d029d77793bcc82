// cpu.frequency.max_freq: scaling_max_freq below what the hardware and the turbo setting allow (a
// cap set by a tuned profile, a power-capping daemon, a boot script).
#include "checks/check.h"
#include "checks/cpu/internal/frequency_facts.h"

namespace ys::checks::frequency {
namespace {

class MaxFreqCheck : public Check {
 public:
  CheckResult Run(const CheckContext& ctx) const override {
    auto read = ReadFrequency(ctx);
    if (auto* early = std::get_if<CheckResult>(&read)) return std::move(*early);
    const FrequencyFacts& q = std::get<FrequencyFacts>(read);
    CheckResult r = StartResult(q);
    Groups capped = CappedMaxFreq(q, ctx.expect().cpu.turbo);
    if (!capped.empty()) {
      CpuSet cpus = AllCpus(capped);
      Finding f = MakeFinding("YS-CPU-012", "cpu" + cpus.ToString(),
                              "scaling_max_freq capped: " + Describe(capped));
      f.evidence = {{std::string(kPolicyGlob) + "/scaling_max_freq", Describe(q.maxes)},
                    {std::string(kPolicyGlob) + "/cpuinfo_max_freq", Describe(q.hw_maxes)}};
      f.fix =
          "for p in /sys/devices/system/cpu/cpufreq/policy*; do cat $p/cpuinfo_max_freq > "
          "$p/scaling_max_freq; done (or cpupower frequency-set -u <max>); then find what set "
          "the cap (a tuned profile, a power-capping daemon, a boot script)";
      f.reference = kReference;
      r.Add(std::move(f));
    }
    Conclude(q, r);
    return r;
  }
};

}  // namespace

YS_REGISTER(
    MaxFreqCheck,
    {.id = "cpu.frequency.max_freq",
     .summary =
         "No CPU has scaling_max_freq capped below what the hardware and the turbo setting allow.",
     .needs = {},
     .codes = {
         {"YS-CPU-012", Severity::kFail, "scaling_max_freq capped below the hardware maximum"}}})

}  // namespace ys::checks::frequency
