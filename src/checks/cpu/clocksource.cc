// cpu.clocksource: the kernel's current clocksource. With tsc (x86), kvm-clock (a KVM guest) or
// arch_sys_counter (arm64) clock_gettime() is read in user space through the vDSO in tens of
// nanoseconds; with hpet, acpi_pm, jiffies or xen every read is a system call or an MMIO access
// of about a microsecond or more. Training loops, NCCL's proxy thread and every profiler read the
// clock constantly, so a node that fell back to such a clocksource (the kernel marks the TSC
// unstable and switches, often after a firmware or hypervisor change) runs slower than its peers.
#include <string>
#include <vector>

#include "checks/check.h"
#include "core/text.h"

namespace ys::checks {
namespace {

constexpr const char* kDir = "/sys/devices/system/clocksource/clocksource0";
// Clocksources whose reads stay in user space (the vDSO can use them).
constexpr std::string_view kFast[] = {"tsc", "kvm-clock", "arch_sys_counter",
                                      "hyperv_clocksource_tsc_page"};

bool IsFast(std::string_view name) {
  for (std::string_view f : kFast) {
    if (name == f) return true;
  }
  return false;
}

class ClocksourceCheck : public Check {
 public:
  CheckResult Run(const CheckContext& ctx) const override {
    const host::Host& h = ctx.host();
    const std::string dir = kDir;
    auto current = h.ReadLine(dir + "/current_clocksource");
    if (!current.ok()) {
      if (current.status().code() == StatusCode::kNotFound) {
        return CheckResult::Skip(current.status().message() + ": no clocksource in sysfs");
      }
      return CheckResult::Error(current.status());
    }
    std::string name(Trim(*current));
    auto available_text = h.ReadLine(dir + "/available_clocksource");
    std::string available = available_text.ok() ? std::string(Trim(*available_text)) : "?";
    CheckResult r;
    r.Note(dir + "/current_clocksource", name);
    r.Note(dir + "/available_clocksource", available);
    if (IsFast(name)) {
      r.summary = "clocksource " + name + ": clock reads stay in user space";
      return r;
    }
    Finding f = MakeFinding(
        "YS-CPU-030", "node",
        "clocksource is " + name + ": every clock read is a system call or device access");
    f.evidence = {{dir + "/current_clocksource", name},
                  {dir + "/available_clocksource", available}};
    bool tsc = (" " + available + " ").find(" tsc ") != std::string::npos;
    f.fix =
        tsc ? "echo tsc > " + dir +
                  "/current_clocksource now; if the kernel marked the TSC unstable (dmesg | grep "
                  "-i clocksource), fix the firmware or hypervisor setting, or boot with "
                  "tsc=reliable clocksource=tsc where the TSC is known to be synchronised"
            : "select a clocksource the vDSO can read (tsc, kvm-clock) in the kernel or "
              "hypervisor configuration";
    f.reference =
        "Documentation/admin-guide/kernel-parameters.txt (clocksource=, tsc=); "
        "Documentation/ABI/testing/sysfs-devices-system-clocksource";
    r.Add(std::move(f));
    return r;
  }
};

}  // namespace

YS_REGISTER(ClocksourceCheck,
            {.id = "cpu.clocksource",
             .summary = "The kernel's current clocksource: one the vDSO reads in user space (tsc, "
                        "kvm-clock, arch_sys_counter) or one that makes every clock read a system "
                        "call (hpet, acpi_pm, xen).",
             .codes = {{"YS-CPU-030", Severity::kWarn,
                        "slow clocksource: every clock read is a system call"}}})

}  // namespace ys::checks
