// cpu.frequency.bios_limit: a firmware limit on the clock (cpufreq bios_limit below
// cpuinfo_max_freq).
#include "checks/check.h"
#include "checks/cpu/internal/frequency_facts.h"

namespace ys::checks::frequency {
namespace {

class BiosLimitCheck : public Check {
 public:
  CheckResult Run(const CheckContext& ctx) const override {
    auto read = ReadFrequency(ctx);
    if (auto* early = std::get_if<CheckResult>(&read)) return std::move(*early);
    const FrequencyFacts& q = std::get<FrequencyFacts>(read);
    CheckResult r = StartResult(q);
    Groups bios = GroupBy(q.ps, [](const auto& p) -> std::optional<std::string> {
      if (p.bios_limit_khz && *p.bios_limit_khz < p.cpuinfo_max_khz) {
        return Mhz(*p.bios_limit_khz) + " (of " + Mhz(p.cpuinfo_max_khz) + ")";
      }
      return std::nullopt;
    });
    if (!bios.empty()) {
      CpuSet cpus = AllCpus(bios);
      Finding f = MakeFinding("YS-CPU-015", "cpu" + cpus.ToString(),
                              "firmware limits the clock: bios_limit " + Describe(bios));
      f.evidence = {{std::string(kPolicyGlob) + "/bios_limit", Describe(bios)}};
      f.fix =
          "set the BIOS power profile to maximum performance and lift the BMC power cap "
          "(ipmitool dcmi power get_limit)";
      f.reference = kReference;
      r.Add(std::move(f));
    }
    Conclude(q, r);
    return r;
  }
};

}  // namespace

YS_REGISTER(
    BiosLimitCheck,
    {.id = "cpu.frequency.bios_limit",
     .summary = "The firmware does not limit the CPU clock below its maximum (cpufreq bios_limit).",
     .needs = {},
     .codes = {{"YS-CPU-015", Severity::kWarn,
                "firmware frequency limit (bios_limit) below the maximum"}}})

}  // namespace ys::checks::frequency
