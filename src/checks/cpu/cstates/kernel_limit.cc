// cpu.cstates.kernel_limit: a max_cstate limit of the active idle driver (intel_idle.max_cstate,
// processor.max_cstate, on the command line or as the module parameter) that removes every
// C6-class state. Site policy cpu.deep_cstates decides.
#include "checks/check.h"
#include "checks/cpu/internal/cstates_facts.h"

namespace ys::checks::cstates {
namespace {

class KernelLimitCheck : public Check {
 public:
  CheckResult Run(const CheckContext& ctx) const override {
    auto read = ReadCstates(ctx);
    if (auto* early = std::get_if<CheckResult>(&read)) return std::move(*early);
    const CstatesFacts& c = std::get<CstatesFacts>(read);
    CheckResult r = StartResult(c);
    if (c.deep == DeepState::kNoneOffered && !c.limit.empty() && c.fw.policy != Policy::kOff) {
      Finding f = MakeFinding(
          "YS-CPU-004", "node",
          c.limit + " removes the C6-class states: deepest enabled is " + DescribeDeepest(c.s));
      f.evidence = c.limit_evidence;
      f.evidence.emplace_back("states offered", DescribeStates(c.s.states.begin()->second));
      f.fix = c.limit.find('=') != std::string::npos && c.limit.find(' ') == std::string::npos
                  ? "Remove " + c.limit + ": " + kCmdlineFix
                  : std::string(
                        "remove the max_cstate option (kernel command line or "
                        "/etc/modprobe.d) and reboot");
      f.expected_recovery = kExemplarRecovery;
      f.reference = kReference;
      r.Add(std::move(f));
    }
    Conclude(c, r);
    return r;
  }
};

}  // namespace

YS_REGISTER(KernelLimitCheck,
            {.id = "cpu.cstates.kernel_limit",
             .summary = "No max_cstate limit of the idle driver removes the C6-class states.",
             .needs = {},
             .codes = {{"YS-CPU-004", Severity::kWarn, "deep C-states removed by max_cstate"}}})

}  // namespace ys::checks::cstates
