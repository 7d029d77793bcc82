// cpu.frequency.turbo: turbo permission (intel_pstate no_turbo, cpufreq boost, per-policy boost)
// against site policy cpu.turbo.
#include <algorithm>

#include "checks/check.h"
#include "checks/cpu/internal/frequency_facts.h"

namespace ys::checks::frequency {
namespace {

Finding TurboDisabled(const FrequencyFacts& q) {
  int64_t base = 0, top = 0;
  for (const auto& p : q.ps) {
    if (p.base_khz) base = std::max(base, *p.base_khz);
    top = std::max(top, p.cpuinfo_max_khz);
  }
  Finding f =
      MakeFinding("YS-CPU-011", "node",
                  "turbo disabled: busy cores stay at or below the base clock" +
                      (base ? " " + Mhz(base) : std::string()) + " instead of up to " + Mhz(top));
  f.evidence = q.turbo_off;
  if (base) f.evidence.emplace_back(std::string(kPolicyGlob) + "/base_frequency", Mhz(base));
  f.evidence.emplace_back(std::string(kPolicyGlob) + "/cpuinfo_max_freq", Mhz(top));
  f.fix = q.turbo.no_turbo ? "echo 0 > /sys/devices/system/cpu/intel_pstate/no_turbo"
                           : "echo 1 > /sys/devices/system/cpu/cpufreq/boost";
  f.fix += "; if it does not stay, enable Turbo Boost / Core Performance Boost in the BIOS";
  f.reference = kReference;
  return f;
}

class TurboCheck : public Check {
 public:
  CheckResult Run(const CheckContext& ctx) const override {
    auto read = ReadFrequency(ctx);
    if (auto* early = std::get_if<CheckResult>(&read)) return std::move(*early);
    const FrequencyFacts& q = std::get<FrequencyFacts>(read);
    CheckResult r = StartResult(q);
    const Policy want = ctx.expect().cpu.turbo;
    if (q.allowed.has_value() && !*q.allowed && want == Policy::kOn) {
      r.Add(TurboDisabled(q));
    } else if (q.allowed.has_value() && *q.allowed && want == Policy::kOff) {
      Finding f = MakeFinding("YS-CPU-018", "node",
                              "turbo allowed; site policy cpu.turbo is off (fixed clocks for "
                              "repeatable step times)");
      f.evidence = {{"turbo", "allowed"}, {"site.cpu.turbo", "off"}};
      if (q.turbo.no_turbo)
        f.evidence.emplace_back("/sys/devices/system/cpu/intel_pstate/no_turbo", "0");
      if (q.turbo.boost) f.evidence.emplace_back("/sys/devices/system/cpu/cpufreq/boost", "1");
      f.fix = q.turbo.no_turbo ? "echo 1 > /sys/devices/system/cpu/intel_pstate/no_turbo"
                               : "echo 0 > /sys/devices/system/cpu/cpufreq/boost";
      f.reference = kReference;
      r.Add(std::move(f));
    }
    Conclude(q, r);
    return r;
  }
};

}  // namespace

YS_REGISTER(
    TurboCheck,
    {.id = "cpu.frequency.turbo",
     .summary =
         "Turbo permission (intel_pstate no_turbo, cpufreq boost) as site policy cpu.turbo asks.",
     .needs = {},
     .codes = {{"YS-CPU-011", Severity::kFail, "turbo/boost disabled"},
               {"YS-CPU-018", Severity::kWarn, "turbo allowed against site policy (turbo off)"}}})

}  // namespace ys::checks::frequency
