// What the cpu.cstates.* units read: the kernel command line, the cpuidle driver, the per-CPU
// idle states and the max_cstate limits (reference: docs/node-checks.md §cstates). Read once per
// unit; each unit judges one concern of it.
//
// Why it matters: a core in C6 is power-gated, which leaves the package power and current budget
// to the busy cores, so they turbo higher. With idle cores held in C1, busy cores lose that
// headroom.
#ifndef YARDSTICK_CHECKS_CPU_INTERNAL_CSTATES_FACTS_H_
#define YARDSTICK_CHECKS_CPU_INTERNAL_CSTATES_FACTS_H_

#include <map>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "checks/check.h"
#include "core/cpu_set.h"
#include "host/cpuidle.h"
#include "host/procfs.h"

namespace ys::checks::cstates {

inline constexpr const char* kReference =
    "Documentation/admin-guide/pm/cpuidle.rst, intel_idle.rst; docs/node-checks.md §cstates";
inline constexpr const char* kExemplarRecovery =
    "about 4% of step time (Exemplar case: with C6 disabled in BIOS, idle cores stayed in C1 and "
    "busy cores could not turbo past 3.0 GHz on a 3.8 GHz part; allowing C6 recovered about 4%)";
inline constexpr const char* kCmdlineFix =
    "remove it from the kernel command line (GRUB_CMDLINE_LINUX in /etc/default/grub, then "
    "update-grub or grub2-mkconfig, and reboot)";
// Raised by cpu.cstates.deep_offered, deep_entered and deepest_enabled: each declares it.
inline constexpr FindingCodeInfo kDeepStatePolicyCode{"YS-CPU-005", Severity::kWarn,
                                                      "deepest C-state differs from site policy"};

// The idle framework as the kernel command line and the cpuidle driver leave it.
struct IdleFramework {
  Policy policy = Policy::kAny;  // site cpu.deep_cstates
  host::KernelCmdline cmdline;
  std::optional<Status> driver_error;   // the driver could not be read (not found)
  std::string drv;                      // the driver's name, "absent" when unreadable
  std::vector<std::string> off_tokens;  // idle=poll, idle=halt, cpuidle.off=1
  std::optional<std::string> guest;     // the sign that this is a VM guest
  Evidence notes;
};

// What the per-CPU states say, folded over the CPUs.
struct IdleSurvey {
  std::map<int, std::vector<host::IdleState>> states;  // CPUs with a cpuidle directory
  CpuSet without_states;
  std::map<std::string, CpuSet> not_judged;       // empty state attribute -> CPUs set aside for it
  CpuSet deep_present;                            // CPUs offering a C6-class state
  CpuSet deep_enabled;                            // ... with at least one of them enabled
  std::map<std::string, CpuSet> deepest_enabled;  // state name -> CPUs whose deepest enabled it is
  std::set<std::string> deep_names;
  std::optional<int> deep_index;       // index of the first deep state (on the first CPU with one)
  bool deep_default_disabled = false;  // a disabled deep state is disabled by driver default
  bool deep_usage_known = true;        // every enabled deep state reports `usage`
  bool deep_ever_entered = false;      // some enabled deep state has usage > 0
};

// Where the C6-class states stand across the CPUs.
enum class DeepState { kNoneOffered, kDisabledEverywhere, kDiverging, kEnabledEverywhere };

struct CstatesFacts {
  IdleFramework fw;
  IdleSurvey s;
  DeepState deep = DeepState::kNoneOffered;
  std::string limit;  // the max_cstate limit of the active driver, "" for none
  Evidence limit_evidence;
  std::string deep_names;  // "C6/C6P"
  std::string state_path;  // /sys/devices/system/cpu/cpu*/cpuidle/stateN of the first deep state
};

// An error only when a file exists but cannot be read.
Result<IdleFramework> ReadIdleFramework(const CheckContext& ctx);

// The facts the per-CPU units judge, or the result they give instead: the skip when the idle
// framework is off or the driver does not choose physical states (cpu.cstates.idle_framework
// judges those), or when no CPU has states that can be judged; an error for unreadable files.
std::variant<CstatesFacts, CheckResult> ReadCstates(const CheckContext& ctx);

// A result that starts with what every cpu.cstates.* unit notes, and its pass summary.
CheckResult StartResult(const CstatesFacts& f);
void Conclude(const CstatesFacts& f, CheckResult& r);

std::string CpuEntity(const CpuSet& cpus);
std::string DescribeStates(const std::vector<host::IdleState>& states);
std::string DescribeDeepest(const IdleSurvey& s);

}  // namespace ys::checks::cstates

#endif  // YARDSTICK_CHECKS_CPU_INTERNAL_CSTATES_FACTS_H_
