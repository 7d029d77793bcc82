#include "host/cpu_vulnerabilities.h"

#include "core/text.h"

namespace ys::host {

const char* VulnStateName(VulnState s) {
  switch (s) {
    case VulnState::kNotAffected:
      return "not affected";
    case VulnState::kMitigated:
      return "mitigated";
    case VulnState::kVulnerable:
      return "vulnerable";
    case VulnState::kUnknown:
      return "unknown";
  }
  return "unknown";
}

Result<Vulnerability> ParseVulnerability(std::string_view name, std::string_view text) {
  Vulnerability v;
  v.name = std::string(name);
  std::string_view lines = Trim(text);
  if (lines.empty()) {
    // The kernel always writes a line; an empty file is a copy that could not read it (or a
    // tree edited by hand): no status, rather than a reason to judge nothing at all.
    v.text = "(empty file)";
    v.state = VulnState::kUnknown;
    return v;
  }
  if (lines.find('\n') != std::string_view::npos) {
    return Status::Invalid("expected one status line, got several");
  }
  v.text = std::string(lines);
  std::string_view s = lines;
  if (StartsWith(s, "KVM: ")) s.remove_prefix(5);
  auto starts = [&](std::string_view word) {
    return s == word || StartsWith(s, std::string(word) + ":") ||
           StartsWith(s, std::string(word) + ";");
  };
  if (s == "Not affected") {
    v.state = VulnState::kNotAffected;
  } else if (starts("Mitigation")) {
    v.state = VulnState::kMitigated;
  } else if (starts("Vulnerable")) {
    v.state = VulnState::kVulnerable;
  } else if (starts("Unknown")) {
    v.state = VulnState::kUnknown;
  } else {
    return Status::Invalid(
        "expected \"Not affected\", \"Vulnerable[: ...]\", \"Mitigation: ...\" "
        "or \"Unknown: ...\", got \"" +
        std::string(s.substr(0, 60)) + "\"");
  }
  std::string lower = ToLower(s);
  v.needs_microcode = v.state == VulnState::kVulnerable &&
                      (lower.find("no microcode") != std::string::npos || name == "old_microcode");
  return v;
}

Result<std::vector<Vulnerability>> ReadVulnerabilities(const Host& host) {
  if (!host.IsDirectory(kVulnerabilitiesDir)) {
    return Status::NotFound(host.Resolve(kVulnerabilitiesDir) + ": no vulnerabilities directory");
  }
  auto names = host.ListDir(kVulnerabilitiesDir);
  if (!names.ok()) return names.status();
  std::vector<Vulnerability> out;
  for (const std::string& name : *names) {
    if (StartsWith(name, ".")) continue;
    std::string path = std::string(kVulnerabilitiesDir) + "/" + name;
    auto text = host.ReadFile(path);
    if (!text.ok()) return text.status();
    auto v = ParseVulnerability(name, *text);
    if (!v.ok()) return Status::Invalid(host.Resolve(path) + ": " + v.status().message());
    out.push_back(std::move(*v));
  }
  return out;
}

}  // namespace ys::host
