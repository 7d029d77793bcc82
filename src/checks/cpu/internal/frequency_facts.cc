#include "checks/cpu/internal/frequency_facts.h"

#include <algorithm>
#include <cstdio>
#include <utility>

#include "host/virt.h"

namespace ys::checks::frequency {
namespace {

// Turbo permission: global controls and per-policy boost.
void ReadTurboPermission(FrequencyFacts& f) {
  if (f.turbo.no_turbo && *f.turbo.no_turbo) {
    f.turbo_off.emplace_back("/sys/devices/system/cpu/intel_pstate/no_turbo", "1");
  }
  if (f.turbo.boost && !*f.turbo.boost)
    f.turbo_off.emplace_back("/sys/devices/system/cpu/cpufreq/boost", "0");
  Groups boost_off = GroupBy(f.ps, [](const auto& p) -> std::optional<std::string> {
    if (p.boost && !*p.boost) return std::string("0");
    return std::nullopt;
  });
  if (!boost_off.empty()) {
    f.turbo_off.emplace_back(std::string(kPolicyGlob) + "/boost",
                             "0 on cpu" + AllCpus(boost_off).ToString());
  }
  f.allowed = f.turbo.TurboAllowed();
  if (!f.turbo_off.empty()) f.allowed = false;
}

void Group(FrequencyFacts& f, const std::string& inactive) {
  const Policies& ps = f.ps;
  if (!inactive.empty()) f.notes.emplace_back("inactive policies", inactive);
  f.drivers = GroupBy(ps, [](const auto& p) { return p.driver; });
  f.governors = GroupBy(ps, [](const auto& p) { return p.governor; });
  f.maxes = GroupBy(ps, [](const auto& p) { return Mhz(p.scaling_max_khz); });
  f.hw_maxes = GroupBy(ps, [](const auto& p) { return Mhz(p.cpuinfo_max_khz); });
  f.epps = GroupBy(ps, [](const auto& p) { return p.epp; });
  f.notes.emplace_back("scaling_driver", Describe(f.drivers));
  f.notes.emplace_back("scaling_governor", Describe(f.governors));
  f.notes.emplace_back("scaling_max_freq", Describe(f.maxes));
  f.notes.emplace_back("cpuinfo_max_freq", Describe(f.hw_maxes));
  if (!f.epps.empty()) f.notes.emplace_back("energy_performance_preference", Describe(f.epps));
  if (f.turbo.intel_pstate_status)
    f.notes.emplace_back("intel_pstate/status", *f.turbo.intel_pstate_status);
  if (f.turbo.amd_pstate_status)
    f.notes.emplace_back("amd_pstate/status", *f.turbo.amd_pstate_status);
}

}  // namespace

std::string Mhz(int64_t khz) {
  char buf[32];
  if (khz % 1000 == 0) {
    std::snprintf(buf, sizeof buf, "%lld MHz", static_cast<long long>(khz / 1000));
  } else {
    std::snprintf(buf, sizeof buf, "%.1f MHz", static_cast<double>(khz) / 1000.0);
  }
  return buf;
}

Groups GroupBy(const Policies& ps,
               const std::function<std::optional<std::string>(const host::CpufreqPolicy&)>& key) {
  Groups g;
  for (const auto& p : ps) {
    if (auto k = key(p)) g[*k] = g[*k].Union(p.cpus);
  }
  return g;
}

CpuSet AllCpus(const Groups& g) {
  CpuSet out;
  for (const auto& [_, cpus] : g) out = out.Union(cpus);
  return out;
}

std::string Describe(const Groups& g) {
  std::string out;
  for (const auto& [value, cpus] : g) {
    out += (out.empty() ? "" : "; ") + value + " on cpu" + cpus.ToString();
  }
  return out;
}

std::variant<FrequencyFacts, CheckResult> ReadFrequency(const CheckContext& ctx) {
  const host::Host& h = ctx.host();
  auto all_policies = host::ReadCpufreqPolicies(h);
  if (!all_policies.ok()) return CheckResult::Error(all_policies.status());
  // Inactive policies (offline CPUs, attributes the kernel left empty) say nothing about the
  // clock of the CPUs that run: noted, not judged.
  FrequencyFacts f;
  std::string inactive;
  for (auto& p : *all_policies) {
    if (p.inactive) {
      inactive += (inactive.empty() ? "" : "; ") + p.name + " (cpu" + p.cpus.ToString() +
                  "): " + *p.inactive;
    } else {
      f.ps.push_back(std::move(p));
    }
  }
  if (f.ps.empty() && !inactive.empty()) {
    return CheckResult::Skip("no active cpufreq policy: " + inactive);
  }
  if (f.ps.empty()) {
    CheckResult skip = CheckResult::Skip(
        "no cpufreq driver (" + h.Resolve(host::kCpufreqDir) +
        " has no policy): the clock cannot be read from sysfs, typical of a VM where the "
        "hypervisor host sets it; cpu.busy_clock measures it instead");
    if (auto guest = host::VirtualMachineSign(h)) skip.Note("guest", *guest);
    return skip;
  }
  auto turbo = host::ReadTurboControls(h);
  if (!turbo.ok()) return CheckResult::Error(turbo.status());
  f.turbo = *turbo;
  Group(f, inactive);
  ReadTurboPermission(f);
  f.notes.emplace_back("turbo", !f.allowed   ? "no control found"
                                : *f.allowed ? "allowed"
                                             : "disabled");
  return f;
}

Groups WrongGovernors(const FrequencyFacts& f, const std::string& site_governor) {
  if (site_governor == "any") return {};
  return GroupBy(f.ps, [&](const auto& p) -> std::optional<std::string> {
    if (p.governor != site_governor) return p.governor;
    return std::nullopt;
  });
}

// scaling_max_freq below what the hardware and the turbo setting allow.
Groups CappedMaxFreq(const FrequencyFacts& f, Policy site_turbo) {
  bool turbo_disabled = f.allowed.has_value() && !*f.allowed;
  return GroupBy(f.ps, [&](const auto& p) -> std::optional<std::string> {
    int64_t expected = p.cpuinfo_max_khz;
    if (turbo_disabled) {
      // no_turbo/boost=0 itself lowers scaling_max_freq to the base clock; that is the turbo
      // finding's business. Below the base is always a cap; between base and maximum is a
      // cap only when the site wants turbo.
      if (!p.base_khz) return std::nullopt;
      if (site_turbo != Policy::kOn || p.scaling_max_khz <= *p.base_khz) expected = *p.base_khz;
    }
    if (p.scaling_max_khz >= expected) return std::nullopt;
    return Mhz(p.scaling_max_khz) + " (of " + Mhz(expected) + ")";
  });
}

Groups PowerPreference(const FrequencyFacts& f) {
  return GroupBy(f.ps, [](const auto& p) -> std::optional<std::string> {
    if (p.epp && (*p.epp == "power" || *p.epp == "balance_power")) return *p.epp;
    return std::nullopt;
  });
}

CheckResult StartResult(const FrequencyFacts& f) {
  CheckResult r;
  r.evidence = f.notes;
  return r;
}

void Conclude(const FrequencyFacts& f, CheckResult& r) {
  if (!r.findings.empty()) return;
  r.summary = Describe(f.drivers) + ", governor " + Describe(f.governors) + ", turbo " +
              (!f.allowed   ? "control absent"
               : *f.allowed ? "allowed"
                            : "disabled") +
              ", max " + Describe(f.maxes);
}

}  // namespace ys::checks::frequency
