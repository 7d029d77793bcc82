// cpu.frequency.governor: the scaling governor of every CPU against site policy cpu.governor
// ("any": not judged).
#include "checks/check.h"
#include "checks/cpu/internal/frequency_facts.h"

namespace ys::checks::frequency {
namespace {

class GovernorCheck : public Check {
 public:
  CheckResult Run(const CheckContext& ctx) const override {
    auto read = ReadFrequency(ctx);
    if (auto* early = std::get_if<CheckResult>(&read)) return std::move(*early);
    const FrequencyFacts& q = std::get<FrequencyFacts>(read);
    CheckResult r = StartResult(q);
    const auto& site = ctx.expect().cpu;
    Groups wrong = WrongGovernors(q, site.governor);
    if (!wrong.empty()) {
      CpuSet cpus = AllCpus(wrong);
      Finding f =
          MakeFinding("YS-CPU-010", "cpu" + cpus.ToString(),
                      "scaling governor " + Describe(wrong) + " (" + std::to_string(cpus.size()) +
                          " CPUs); the site expects " + site.governor);
      f.evidence = {{std::string(kPolicyGlob) + "/scaling_governor", Describe(q.governors)},
                    {"scaling_driver", Describe(q.drivers)},
                    {"site.cpu.governor", site.governor}};
      f.fix = "cpupower frequency-set -g " + site.governor +
              "; keep it across reboots with "
              "tuned-adm profile throughput-performance or cpufreq.default_governor=" +
              site.governor + " on the kernel command line";
      f.reference = kReference;
      r.Add(std::move(f));
    }
    Conclude(q, r);
    return r;
  }
};

}  // namespace

YS_REGISTER(GovernorCheck,
            {.id = "cpu.frequency.governor",
             .summary = "Every CPU runs the scaling governor the site expects (cpu.governor).",
             .needs = {},
             .codes = {{"YS-CPU-010", Severity::kFail, "CPU frequency governor not performance"}}})

}  // namespace ys::checks::frequency
