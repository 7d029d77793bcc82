// cpufreq: frequency-scaling policies, turbo permission and the intel_pstate / amd_pstate
// driver state (reference: docs/node-checks.md §frequency,
// Documentation/admin-guide/pm/cpufreq.rst, intel_pstate.rst, amd-pstate.rst). All frequencies are
// in kHz, as sysfs writes them.
//
//   /sys/devices/system/cpu/cpufreq/policy<X>/{scaling_driver,scaling_governor,scaling_max_freq,
//       cpuinfo_max_freq,scaling_min_freq,cpuinfo_min_freq,base_frequency,bios_limit,
//       energy_performance_preference,affected_cpus,boost}
//   /sys/devices/system/cpu/cpufreq/boost
//   /sys/devices/system/cpu/intel_pstate/{status,no_turbo,max_perf_pct}
//   /sys/devices/system/cpu/amd_pstate/status
#ifndef YARDSTICK_HOST_CPUFREQ_H_
#define YARDSTICK_HOST_CPUFREQ_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/cpu_set.h"
#include "core/status.h"
#include "host/host.h"

namespace ys::host {

inline constexpr const char* kCpufreqDir = "/sys/devices/system/cpu/cpufreq";

struct CpufreqPolicy {
  std::string name;      // "policy0"
  CpuSet cpus;           // affected_cpus; {X} of policyX when that file is absent
  std::string driver;    // scaling_driver: "intel_pstate", "acpi-cpufreq", "cppc_cpufreq", ...
  std::string governor;  // scaling_governor
  int64_t scaling_max_khz = 0;
  int64_t cpuinfo_max_khz = 0;  // the hardware maximum, turbo included
  std::optional<int64_t> scaling_min_khz;
  std::optional<int64_t> base_khz;        // base_frequency (intel_pstate with HWP)
  std::optional<int64_t> bios_limit_khz;  // bios_limit (acpi-cpufreq and others)
  std::optional<std::string> epp;         // energy_performance_preference
  std::optional<bool> boost;              // per-policy boost (newer kernels)
  // Set when the policy is inactive: every CPU it covers is offline (affected_cpus is empty, or
  // `online` lists none of them) or the kernel left its attributes absent or empty, as it does
  // for the policy of an offline CPU (reads answer EBUSY; a copy of the tree keeps an empty file
  // or none). The reason names what was seen; only `name` and `cpus` (related_cpus, else {X})
  // are filled in then.
  std::optional<std::string> inactive;
};

// Every policy<X> directory, in numeric order. Empty when the cpufreq directory is absent or
// holds no policy (no cpufreq driver, as in most VMs). An active policy has scaling_driver,
// scaling_governor, scaling_max_freq and cpuinfo_max_freq; one that lacks any of them (absent or
// empty) is returned with `inactive` set. A present attribute that is malformed is an Invalid
// status naming the file.
Result<std::vector<CpufreqPolicy>> ReadCpufreqPolicies(const Host& host);

// Whether turbo (boost) may be used, from every interface that says so. Absent files stay unset.
struct TurboControls {
  std::optional<std::string> intel_pstate_status;  // "active", "passive", "off"
  std::optional<bool> no_turbo;                    // intel_pstate/no_turbo
  std::optional<int64_t> max_perf_pct;             // intel_pstate/max_perf_pct
  std::optional<bool> boost;                       // cpufreq/boost (acpi-cpufreq, amd-pstate, ...)
  std::optional<std::string> amd_pstate_status;    // "active", "passive", "guided", "disable"

  // false when a control forbids turbo; true when one allows it and none forbids; nullopt when
  // no control exists.
  std::optional<bool> TurboAllowed() const;
};
Result<TurboControls> ReadTurboControls(const Host& host);

// "0 1 2 3" (cpufreq's affected_cpus / related_cpus: space-separated CPU numbers).
Result<CpuSet> ParseCpuWords(std::string_view text);

// The highest cpuinfo_max_freq over the policies covering `cpus` (all policies when `cpus` is
// empty or none covers them); nullopt when there is no cpufreq policy. Reads only that attribute
// so that a caller interested in the rated maximum does not depend on the rest of the policy.
Result<std::optional<int64_t>> ReadRatedMaxKhz(const Host& host, const CpuSet& cpus);

}  // namespace ys::host

#endif  // YARDSTICK_HOST_CPUFREQ_H_
