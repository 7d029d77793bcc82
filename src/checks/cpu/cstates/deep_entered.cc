// cpu.cstates.deep_entered: C6-class states enabled everywhere yet never entered since boot
// (usage 0 on every CPU): a PM QoS latency request or the firmware keeps the cores out. Judged
// when site policy cpu.deep_cstates is on and every enabled deep state reports its usage.
#include "checks/check.h"
#include "checks/cpu/internal/cstates_facts.h"

namespace ys::checks::cstates {
namespace {

class DeepEnteredCheck : public Check {
 public:
  CheckResult Run(const CheckContext& ctx) const override {
    auto read = ReadCstates(ctx);
    if (auto* early = std::get_if<CheckResult>(&read)) return std::move(*early);
    const CstatesFacts& c = std::get<CstatesFacts>(read);
    CheckResult r = StartResult(c);
    if (c.deep == DeepState::kEnabledEverywhere && c.fw.policy == Policy::kOn &&
        c.s.deep_usage_known && !c.s.deep_ever_entered) {
      Finding f = MakeFinding("YS-CPU-005", "node",
                              c.deep_names +
                                  " enabled but never entered since boot on any CPU "
                                  "(usage 0): a PM QoS latency request or the firmware keeps "
                                  "cores out");
      f.evidence = {{c.state_path + "/usage", "0 on cpu" + c.s.deep_enabled.ToString()},
                    {c.state_path + "/disable", "0"}};
      f.fix =
          "find the process holding /dev/cpu_dma_latency open (e.g. tuned's latency-performance "
          "profile: tuned-adm profile throughput-performance) and check the BIOS C-state limit";
      f.expected_recovery = kExemplarRecovery;
      f.reference = kReference;
      r.Add(std::move(f));
    }
    Conclude(c, r);
    return r;
  }
};

}  // namespace

YS_REGISTER(DeepEnteredCheck,
            {.id = "cpu.cstates.deep_entered",
             .summary = "Enabled C6-class idle states are entered (usage above 0 since "
                        "boot).",
             .needs = {},
             .codes = {kDeepStatePolicyCode}})

}  // namespace ys::checks::cstates
