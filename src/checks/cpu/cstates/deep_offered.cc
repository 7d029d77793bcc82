// cpu.cstates.deep_offered: whether the idle driver offers a C6-class state at all (with no
// max_cstate limit to blame, the BIOS hides it). Judged when site policy cpu.deep_cstates is on.
#include "checks/check.h"
#include "checks/cpu/internal/cstates_facts.h"

namespace ys::checks::cstates {
namespace {

class DeepOfferedCheck : public Check {
 public:
  CheckResult Run(const CheckContext& ctx) const override {
    auto read = ReadCstates(ctx);
    if (auto* early = std::get_if<CheckResult>(&read)) return std::move(*early);
    const CstatesFacts& c = std::get<CstatesFacts>(read);
    CheckResult r = StartResult(c);
    if (c.deep == DeepState::kNoneOffered && c.limit.empty() && c.fw.policy == Policy::kOn) {
      Finding f = MakeFinding("YS-CPU-005", "node",
                              "driver " + c.fw.drv + " offers no C6-class idle state (deepest: " +
                                  DescribeDeepest(c.s) + "); site policy wants deep C-states");
      f.evidence = {{"cpuidle current_driver", c.fw.drv},
                    {"states offered", DescribeStates(c.s.states.begin()->second)},
                    {"site.cpu.deep_cstates", "on"}};
      f.fix =
          "enable C6 in the BIOS power settings (\"CPU C6 report\", \"C-States: Enabled\", "
          "\"Package C-State\" at least C6) and reboot";
      f.expected_recovery = kExemplarRecovery;
      f.reference = kReference;
      r.Add(std::move(f));
    }
    Conclude(c, r);
    return r;
  }
};

}  // namespace

YS_REGISTER(DeepOfferedCheck,
            {.id = "cpu.cstates.deep_offered",
             .summary = "The idle driver offers a C6-class state (the BIOS does not hide "
                        "it).",
             .needs = {},
             .codes = {kDeepStatePolicyCode}})

}  // namespace ys::checks::cstates
