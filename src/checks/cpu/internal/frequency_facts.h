// What the cpu.frequency.* units read: the active cpufreq policies and the global turbo
// controls, grouped by value (reference: docs/node-checks.md §frequency). Read once per unit; each
// unit judges one concern of it under site policy cpu.turbo and cpu.governor.
#ifndef YARDSTICK_CHECKS_CPU_INTERNAL_FREQUENCY_FACTS_H_
#define YARDSTICK_CHECKS_CPU_INTERNAL_FREQUENCY_FACTS_H_

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "checks/check.h"
#include "core/cpu_set.h"
#include "host/cpufreq.h"

namespace ys::checks::frequency {

inline constexpr const char* kReference =
    "Documentation/admin-guide/pm/cpufreq.rst, intel_pstate.rst, amd-pstate.rst; "
    "docs/node-checks.md §frequency";
inline constexpr const char* kPolicyGlob = "/sys/devices/system/cpu/cpufreq/policy*";

using Policies = std::vector<host::CpufreqPolicy>;
using Groups = std::map<std::string, CpuSet>;

struct FrequencyFacts {
  Policies ps;  // the active policies
  host::TurboControls turbo;
  Groups drivers, governors, maxes, hw_maxes, epps;
  Evidence turbo_off;           // the controls that disable turbo
  std::optional<bool> allowed;  // turbo allowed; nullopt: no control found
  Evidence notes;               // what every cpu.frequency.* unit notes
};

std::string Mhz(int64_t khz);
// Value -> CPUs, over the policies for which `key` gives a value.
Groups GroupBy(const Policies& ps,
               const std::function<std::optional<std::string>(const host::CpufreqPolicy&)>& key);
CpuSet AllCpus(const Groups& g);
std::string Describe(const Groups& g);

// The facts, or the result the units give instead: a skip without an active policy, an error
// for unreadable files.
std::variant<FrequencyFacts, CheckResult> ReadFrequency(const CheckContext& ctx);

// What each concern flags; cpu.frequency.consistency leaves out a divergence these explain.
Groups WrongGovernors(const FrequencyFacts& f, const std::string& site_governor);
Groups CappedMaxFreq(const FrequencyFacts& f, Policy site_turbo);
Groups PowerPreference(const FrequencyFacts& f);

// A result that starts with the notes; Conclude sets the pass summary.
CheckResult StartResult(const FrequencyFacts& f);
void Conclude(const FrequencyFacts& f, CheckResult& r);

}  // namespace ys::checks::frequency

#endif  // YARDSTICK_CHECKS_CPU_INTERNAL_FREQUENCY_FACTS_H_
