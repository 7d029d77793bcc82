// cpu.cstates.idle_framework: whether CPU idle management can reach C6-class states at all: the
// kernel command line (idle=poll|halt, cpuidle.off=1) and the cpuidle driver (none registered,
// or a VM guest whose idle states are not physical). Site policy cpu.deep_cstates decides.
#include "checks/check.h"
#include "checks/cpu/internal/cstates_facts.h"
#include "core/text.h"

namespace ys::checks::cstates {
namespace {

CheckResult CommandLineOff(const IdleFramework& fw) {
  CheckResult r;
  r.evidence = fw.notes;
  std::string tokens = Join(fw.off_tokens, " ");
  if (fw.policy == Policy::kOff) {
    r.summary = "deep C-states off by " + tokens + ", as site policy asks";
    return r;
  }
  Finding f = MakeFinding(
      "YS-CPU-001", "node",
      tokens + " on the kernel command line: CPUs never enter C6-class states" +
          (fw.cmdline.Has("idle=poll") ? " and idle CPUs spin, taking turbo headroom from busy ones"
                                       : ""));
  f.evidence = {{"/proc/cmdline", tokens}, {"cpuidle current_driver", fw.drv}};
  f.fix = "Remove " + tokens + ": " + kCmdlineFix;
  f.expected_recovery = kExemplarRecovery;
  f.reference = kReference;
  r.Add(std::move(f));
  return r;
}

CheckResult NoDriver(const IdleFramework& fw) {
  CheckResult r;
  r.evidence = fw.notes;
  if (fw.guest) {
    CheckResult skip = CheckResult::Skip(
        "VM guest without a cpuidle driver: physical C-states are set on the hypervisor "
        "host; check cpu.cstates there");
    skip.evidence = r.evidence;
    skip.Note("guest", *fw.guest);
    return skip;
  }
  if (fw.policy == Policy::kOff) {
    r.summary = "no cpuidle driver: CPUs idle in C1 only, as site policy asks";
    return r;
  }
  Finding f = MakeFinding("YS-CPU-001", "node",
                          "no cpuidle driver registered: idle CPUs use HLT/WFI (C1) only and "
                          "never reach C6-class states");
  f.evidence = {{std::string(host::kCpuIdleDir) + "/current_driver", "none"}};
  f.fix =
      "load the platform idle driver: intel_idle (remove intel_idle.max_cstate=0), "
      "acpi_idle (enable C-states / _CST in BIOS), psci_idle on Arm; then reboot";
  f.expected_recovery = kExemplarRecovery;
  f.reference = kReference;
  r.Add(std::move(f));
  return r;
}

class IdleFrameworkCheck : public Check {
 public:
  CheckResult Run(const CheckContext& ctx) const override {
    const host::Host& h = ctx.host();
    auto fw = ReadIdleFramework(ctx);
    if (!fw.ok()) return CheckResult::Error(fw.status());
    if (!fw->off_tokens.empty()) return CommandLineOff(*fw);
    if (fw->driver_error && h.IsDirectory(host::kCpuIdleDir)) {
      return CheckResult::Skip(fw->driver_error->message() + ": idle states not judged");
    }
    if (fw->driver_error) {
      return CheckResult::Skip(fw->driver_error->message() +
                               ": kernel without CPU idle support (CONFIG_CPU_IDLE); idle states "
                               "cannot be read");
    }
    if (fw->drv == "none") return NoDriver(*fw);
    if (fw->drv == "haltpoll" || fw->guest) {
      CheckResult skip = CheckResult::Skip(
          "VM guest (cpuidle driver " + fw->drv +
          "): guest idle states do not choose physical "
          "C-states; the host's C-states decide turbo headroom, check cpu.cstates there");
      skip.evidence = fw->notes;
      if (fw->guest) skip.Note("guest", *fw->guest);
      if (auto states = host::ReadIdleStates(h, 0); states.ok()) {
        skip.Note("cpu0 states", DescribeStates(*states));
      }
      return skip;
    }
    CheckResult r;
    r.evidence = fw->notes;
    r.summary = "cpuidle driver " + fw->drv + " manages the idle states";
    return r;
  }
};

}  // namespace

YS_REGISTER(IdleFrameworkCheck,
            {.id = "cpu.cstates.idle_framework",
             .summary = "CPU idle management on: no idle=poll|halt or cpuidle.off=1 on the "
                        "kernel command line, a cpuidle driver registered.",
             .needs = {},
             .codes = {{"YS-CPU-001", Severity::kWarn,
                        "CPU idle driver off: no deep C-states (idle=poll/halt, cpuidle.off)"}}})

}  // namespace ys::checks::cstates
