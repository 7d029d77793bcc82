// cpu.mitigations: speculative-execution vulnerabilities and their mitigations per issue, with
// the mitigations= kernel parameter, against site policy cpu.mitigations; and mitigations that
// cannot work for lack of microcode (reference: docs/node-checks.md §mitigations).
#include <string>
#include <vector>

#include "checks/check.h"
#include "core/text.h"
#include "host/cpu_vulnerabilities.h"
#include "host/procfs.h"

namespace ys::checks {
namespace {

constexpr const char* kMitigationsReference =
    "Documentation/admin-guide/hw-vuln/index.rst, attack_vector_controls.rst; "
    "docs/node-checks.md §mitigations";

std::string Names(const std::vector<const host::Vulnerability*>& vs) {
  std::string out;
  for (const auto* v : vs) out += (out.empty() ? "" : ", ") + v->name;
  return out;
}

Evidence PerFile(const std::vector<const host::Vulnerability*>& vs) {
  Evidence e;
  for (const auto* v : vs)
    e.emplace_back(std::string(host::kVulnerabilitiesDir) + "/" + v->name, v->text);
  return e;
}

using Vulns = std::vector<const host::Vulnerability*>;

// The vulnerabilities by state; those that need microcode apart from the other vulnerable ones.
struct ByState {
  Vulns mitigated, vulnerable, microcode, unknown;
  int not_affected = 0;
};

ByState SortByState(const std::vector<host::Vulnerability>& vulns) {
  ByState b;
  for (const auto& v : vulns) {
    switch (v.state) {
      case host::VulnState::kNotAffected:
        ++b.not_affected;
        break;
      case host::VulnState::kMitigated:
        b.mitigated.push_back(&v);
        break;
      case host::VulnState::kVulnerable:
        (v.needs_microcode ? b.microcode : b.vulnerable).push_back(&v);
        break;
      case host::VulnState::kUnknown:
        b.unknown.push_back(&v);
        break;
    }
  }
  return b;
}

// YS-CPU-022: mitigations that lack the microcode they need.
Finding MicrocodeFinding(const Vulns& microcode) {
  Finding f = MakeFinding("YS-CPU-022", "node",
                          std::to_string(microcode.size()) + " vulnerabilit" +
                              (microcode.size() == 1 ? "y lacks" : "ies lack") +
                              " the microcode its mitigation needs: " + Names(microcode));
  f.evidence = PerFile(microcode);
  f.fix =
      "update the CPU microcode (intel-microcode or amd64-microcode package, or a BIOS "
      "update) and reboot; in a VM the host's microcode and the CPU features it passes "
      "through decide";
  f.reference = kMitigationsReference;
  return f;
}

class MitigationsCheck : public Check {
 public:
  CheckResult Run(const CheckContext& ctx) const override {
    const host::Host& h = ctx.host();
    const Policy policy = ctx.param<Policy>("mitigations");
    auto vulns = host::ReadVulnerabilities(h);
    if (!vulns.ok()) {
      if (vulns.status().code() == StatusCode::kNotFound) {
        return CheckResult::Skip(vulns.status().message() +
                                 ": this kernel or architecture reports no vulnerability status");
      }
      return CheckResult::Error(vulns.status());
    }
    if (vulns->empty()) {
      return CheckResult::Skip(h.Resolve(host::kVulnerabilitiesDir) +
                               " is empty: no status to judge");
    }
    auto cmdline_text = h.ReadFile("/proc/cmdline");
    if (!cmdline_text.ok() && cmdline_text.status().code() != StatusCode::kNotFound) {
      return CheckResult::Error(cmdline_text.status());
    }
    auto cmdline = host::KernelCmdline::Parse(cmdline_text.ok() ? *cmdline_text : "");
    std::optional<std::string> mode = cmdline.Value("mitigations");
    bool mitigations_off = mode && (*mode == "off" || StartsWith(*mode, "off,"));

    CheckResult r;
    auto [mitigated, vulnerable, microcode, unknown, not_affected] = SortByState(*vulns);
    r.Note("mitigations=", mode ? *mode : "(not set: kernel default, auto)");
    r.Note("site.cpu.mitigations", PolicyName(policy));
    const std::string counts = std::to_string(not_affected) + " not affected, " +
                               std::to_string(mitigated.size()) + " mitigated, " +
                               std::to_string(vulnerable.size() + microcode.size()) +
                               " vulnerable, " + std::to_string(unknown.size()) + " unknown";
    r.Note("status", counts);
    for (const auto& v : *vulns) {
      if (v.state != host::VulnState::kNotAffected) r.Note(v.name, v.text);
    }

    if (policy != Policy::kOff && !microcode.empty()) r.Add(MicrocodeFinding(microcode));
    if (policy == Policy::kOn && !vulnerable.empty()) {
      Finding f = MakeFinding(
          "YS-CPU-021", "node",
          std::to_string(vulnerable.size()) + " vulnerabilit" +
              (vulnerable.size() == 1 ? "y is" : "ies are") +
              " not mitigated; site policy cpu.mitigations is on: " + Names(vulnerable));
      f.evidence = PerFile(vulnerable);
      if (mode) f.evidence.emplace_back("/proc/cmdline", "mitigations=" + *mode);
      f.fix =
          "boot with the default mitigations: remove mitigations=off and per-issue "
          "...=off switches from the kernel command line (spec_store_bypass is mitigated "
          "per process with prctl, or spec_store_bypass_disable=on)";
      f.reference = kMitigationsReference;
      r.Add(std::move(f));
    } else if (policy == Policy::kOff && !mitigated.empty() && !mitigations_off) {
      Finding f =
          MakeFinding("YS-CPU-021", "node",
                      std::to_string(mitigated.size()) +
                          " mitigations active; site policy "
                          "cpu.mitigations is off: they slow syscall- and context-switch-heavy "
                          "host work (data loaders, small I/O, NCCL socket transport): " +
                          Names(mitigated));
      f.evidence = PerFile(mitigated);
      f.evidence.emplace_back("/proc/cmdline",
                              mode ? "mitigations=" + *mode : "no mitigations= (auto)");
      f.fix =
          "add mitigations=off to the kernel command line (single-tenant nodes, per site "
          "policy) and reboot";
      f.reference = kMitigationsReference;
      r.Add(std::move(f));
    }
    if (r.findings.empty()) {
      r.summary = counts + " (mitigations=" + (mode ? *mode : "auto") + ")";
    }
    return r;
  }
};

}  // namespace

YS_REGISTER(MitigationsCheck,
            {.id = "cpu.mitigations",
             .summary = "Speculative-execution mitigations per vulnerability against site "
                        "policy, and mitigations missing their microcode.",
             .needs = {},
             .codes = {{"YS-CPU-021", Severity::kWarn,
                        "speculative-execution mitigations differ from site policy"},
                       {"YS-CPU-022", Severity::kWarn, "CPU vulnerable for lack of microcode"}},
             .params = {{.name = "mitigations",
                         .type = ParamType::kPolicy,
                         .default_value = Policy::kAny,
                         .meaning = "on: mitigations must be active; off: the site runs "
                                    "mitigations=off; any: report only",
                         .site_table = "cpu"}}})

}  // namespace ys::checks
