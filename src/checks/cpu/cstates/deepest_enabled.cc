// cpu.cstates.deepest_enabled: the deepest idle state each CPU may enter: C6-class states
// disabled through cpuidle `disable` on every CPU or on some of them, or enabled where site
// policy cpu.deep_cstates is off.
#include "checks/check.h"
#include "checks/cpu/internal/cstates_facts.h"

namespace ys::checks::cstates {
namespace {

// Offered, and disabled on every CPU.
Finding DisabledEverywhere(const CstatesFacts& c) {
  const IdleSurvey& s = c.s;
  std::string idx = std::to_string(*s.deep_index);
  Finding f =
      MakeFinding("YS-CPU-002", "node",
                  c.deep_names + " disabled on all " + std::to_string(s.deep_present.size()) +
                      " CPUs: deepest enabled is " + DescribeDeepest(s));
  f.evidence = {{"cpuidle current_driver", c.fw.drv},
                {c.state_path + "/name", c.deep_names},
                {c.state_path + "/disable", "1 on cpu" + s.deep_present.ToString()},
                {c.state_path + "/default_status",
                 s.deep_default_disabled ? "disabled (driver default, e.g. intel_idle.states_off)"
                                         : "enabled (disabled at run time)"}};
  f.fix = "enable it: cpupower idle-set -e " + idx + " (or echo 0 | tee " + c.state_path +
          "/disable); then find what disabled it (a tuned profile, a systemd unit, "
          "intel_idle.states_off=) so that it stays enabled after reboot";
  f.expected_recovery = kExemplarRecovery;
  f.reference = kReference;
  return f;
}

// Some CPUs may enter it, others may not: per-CPU divergence, whatever the policy.
Finding Diverging(const CstatesFacts& c) {
  const IdleSurvey& s = c.s;
  CpuSet off = s.deep_present.Minus(s.deep_enabled);
  Finding f = MakeFinding("YS-CPU-003", CpuEntity(off),
                          c.deep_names + " disabled on " + std::to_string(off.size()) + " of " +
                              std::to_string(s.deep_present.size()) + " CPUs (cpu" +
                              off.ToString() + "), enabled on cpu" + s.deep_enabled.ToString());
  f.evidence = {{c.state_path + "/disable",
                 "1 on cpu" + off.ToString() + ", 0 on cpu" + s.deep_enabled.ToString()},
                {"deepest enabled", DescribeDeepest(s)},
                {"site.cpu.deep_cstates", PolicyName(c.fw.policy)}};
  std::string idx = std::to_string(*s.deep_index);
  f.fix = c.fw.policy == Policy::kOff
              ? "disable it everywhere: cpupower idle-set -d " + idx
              : "enable it everywhere: cpupower -c " + off.ToString() + " idle-set -e " + idx +
                    "; apply one idle policy to every CPU";
  f.reference = kReference;
  return f;
}

// Enabled on every CPU while the site wants them off.
Finding EnabledAgainstPolicy(const CstatesFacts& c) {
  Finding f =
      MakeFinding("YS-CPU-005", "node",
                  c.deep_names + " enabled on every CPU; site policy cpu.deep_cstates is off");
  f.evidence = {{c.state_path + "/disable", "0 on cpu" + c.s.deep_enabled.ToString()},
                {"site.cpu.deep_cstates", "off"}};
  f.fix = "disable it to match the site: cpupower idle-set -d " + std::to_string(*c.s.deep_index) +
          " (run time), or a max_cstate limit on the kernel command line";
  f.reference = kReference;
  return f;
}

class DeepestEnabledCheck : public Check {
 public:
  CheckResult Run(const CheckContext& ctx) const override {
    auto read = ReadCstates(ctx);
    if (auto* early = std::get_if<CheckResult>(&read)) return std::move(*early);
    const CstatesFacts& c = std::get<CstatesFacts>(read);
    CheckResult r = StartResult(c);
    if (c.deep == DeepState::kDisabledEverywhere && c.fw.policy != Policy::kOff) {
      r.Add(DisabledEverywhere(c));
    } else if (c.deep == DeepState::kDiverging) {
      r.Add(Diverging(c));
    } else if (c.deep == DeepState::kEnabledEverywhere && c.fw.policy == Policy::kOff) {
      r.Add(EnabledAgainstPolicy(c));
    }
    Conclude(c, r);
    return r;
  }
};

}  // namespace

YS_REGISTER(DeepestEnabledCheck,
            {.id = "cpu.cstates.deepest_enabled",
             .summary = "C6-class idle states enabled on every CPU (or disabled on every "
                        "CPU where site policy is off).",
             .needs = {},
             .codes = {{"YS-CPU-002", Severity::kWarn, "deep C-state disabled on every CPU"},
                       {"YS-CPU-003", Severity::kWarn, "deep C-state disabled on some CPUs only"},
                       kDeepStatePolicyCode}})

}  // namespace ys::checks::cstates
