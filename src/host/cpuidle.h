// cpuidle: the CPU idle-state driver and the per-CPU idle states it offers
// (reference: docs/node-checks.md §cstates, Documentation/admin-guide/pm/cpuidle.rst).
//
//   /sys/devices/system/cpu/cpuidle/{current_driver,current_governor_ro,current_governor}
//   /sys/devices/system/cpu/cpu<N>/cpuidle/state<K>/{name,desc,latency,residency,disable,
//                                                     default_status,usage}
//
// Pure parsers on text plus readers through Host; every error names the resolved path.
#ifndef YARDSTICK_HOST_CPUIDLE_H_
#define YARDSTICK_HOST_CPUIDLE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "host/host.h"

namespace ys::host {

inline constexpr const char* kCpuIdleDir = "/sys/devices/system/cpu/cpuidle";

// One state<K> directory of one CPU. Deeper states have larger K.
struct IdleState {
  int index = 0;                        // K
  std::string name;                     // "POLL", "C1", "C1E", "C6", "haltpoll idle"
  std::string desc;                     // "MWAIT 0x20"; empty when absent
  int64_t latency_us = 0;               // exit latency
  std::optional<int64_t> residency_us;  // target residency
  bool disabled = false;                // `disable` == 1: the state is not entered now
  // A required attribute ("name", "latency" or "disable") whose file is empty: the state cannot
  // be judged and the fields it fills mean nothing. "" when every one was read.
  std::string empty_attribute;
  std::optional<bool> default_enabled;  // `default_status` (5.6+): the driver's default
  std::optional<int64_t> usage;         // times entered since boot
};

// The framework-wide driver and governor.
struct IdleDriver {
  std::string driver;    // "intel_idle", "acpi_idle", "haltpoll", "psci_idle", "none"
  std::string governor;  // "menu", "teo", "ladder", "haltpoll"; "" when not readable
};

// NotFound when /sys/devices/system/cpu/cpuidle is absent (kernel without CONFIG_CPU_IDLE, or
// cpuidle.off=1).
Result<IdleDriver> ReadIdleDriver(const Host& host);

// The states of one CPU, by index. NotFound when the CPU has no cpuidle directory (no driver
// registered for it). Invalid names the file when an attribute is malformed. An empty `name`,
// `latency` or `disable` is recorded in IdleState::empty_attribute; an empty `residency` or
// `usage` is absent.
Result<std::vector<IdleState>> ReadIdleStates(const Host& host, int cpu);

// "enabled" -> true, "disabled" -> false.
Result<bool> ParseDefaultStatus(std::string_view text);

// The C-number in a state name: "C6" -> 6, "C1E" -> 1, "C6SP" -> 6, "C3_ACPI" -> 3,
// "C10" -> 10; nullopt for "POLL", "haltpoll idle", "WFI".
std::optional<int> CStateNumber(std::string_view name);

// Exit latency from which a state without a C-number in its name (ACPI _CST/_LPI tables, PSCI)
// counts as C6-class.
inline constexpr int64_t kDeepLatencyUs = 100;

// Whether a state is C6-class (a core power-gating state that frees turbo headroom for busy
// neighbours): a native name C6 or deeper (C6, C6S, C7s, C8, C10); or, for a state from ACPI
// tables or another firmware interface (acpi_idle, "C<n>_ACPI" under intel_idle, psci_idle), an
// exit latency of at least kDeepLatencyUs. POLL, haltpoll and C1-class states are never deep.
bool IsDeepIdleState(const IdleState& state, std::string_view driver);

}  // namespace ys::host

#endif  // YARDSTICK_HOST_CPUIDLE_H_
