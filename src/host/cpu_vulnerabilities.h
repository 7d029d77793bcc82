// Speculative-execution vulnerability status, one file per issue under
// /sys/devices/system/cpu/vulnerabilities (reference: docs/node-checks.md §mitigations,
// Documentation/ABI/testing/sysfs-devices-system-cpu). One line each:
//   "Not affected" | "Vulnerable" | "Vulnerable: <detail>" | "Mitigation: <detail>" |
//   "Unknown: <detail>", optionally behind a "KVM: " prefix (itlb_multihit).
#ifndef YARDSTICK_HOST_CPU_VULNERABILITIES_H_
#define YARDSTICK_HOST_CPU_VULNERABILITIES_H_

#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "host/host.h"

namespace ys::host {

inline constexpr const char* kVulnerabilitiesDir = "/sys/devices/system/cpu/vulnerabilities";

enum class VulnState { kNotAffected, kMitigated, kVulnerable, kUnknown };
const char* VulnStateName(VulnState s);

struct Vulnerability {
  std::string name;  // file name: "spectre_v2"
  VulnState state = VulnState::kUnknown;
  std::string text;  // the whole line, trimmed
  // The kernel says the mitigation needs microcode this CPU lacks ("Vulnerable: Safe RET, no
  // microcode", "Vulnerable: No microcode"), or old_microcode reports "Vulnerable".
  bool needs_microcode = false;
};

// Parses one file's content. An empty file is kUnknown with the text "(empty file)"; Invalid when
// not one of the forms above.
Result<Vulnerability> ParseVulnerability(std::string_view name, std::string_view text);

// Every file of the directory, sorted by name. NotFound when the directory is absent; Invalid
// naming the file when one is malformed.
Result<std::vector<Vulnerability>> ReadVulnerabilities(const Host& host);

}  // namespace ys::host

#endif  // YARDSTICK_HOST_CPU_VULNERABILITIES_H_
