// cpu.frequency: how the cpufreq driver lets busy cores clock: governor, turbo permission,
// caps below the hardware maximum (scaling_max_freq, intel_pstate max_perf_pct, bios_limit),
// energy-performance preference, and policies that differ across CPUs. Site policy cpu.turbo and
// cpu.governor decide (reference: linux-node-knobs.md §2).
#include <algorithm>
#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "checks/check.h"
#include "host/cpufreq.h"
#include "host/virt.h"

namespace ys::checks {
namespace {

constexpr const char* kReference =
    "Documentation/admin-guide/pm/cpufreq.rst, intel_pstate.rst, amd-pstate.rst; "
    "linux-node-knobs.md §2";
constexpr const char* kPolicyGlob = "/sys/devices/system/cpu/cpufreq/policy*";

std::string Mhz(int64_t khz) {
  char buf[32];
  if (khz % 1000 == 0) {
    std::snprintf(buf, sizeof buf, "%lld MHz", static_cast<long long>(khz / 1000));
  } else {
    std::snprintf(buf, sizeof buf, "%.1f MHz", static_cast<double>(khz) / 1000.0);
  }
  return buf;
}

using Policies = std::vector<host::CpufreqPolicy>;
using Groups = std::map<std::string, CpuSet>;

// Value -> CPUs, over the policies `keep` selects.
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

class FrequencyCheck : public Check {
 public:
  CheckResult Run(const CheckContext& ctx) const override {
    const host::Host& h = ctx.host();
    const auto& site = ctx.expect().cpu;
    auto all_policies = host::ReadCpufreqPolicies(h);
    if (!all_policies.ok()) return CheckResult::Error(all_policies.status());
    // Inactive policies (offline CPUs, attributes the kernel left empty) say nothing about the
    // clock of the CPUs that run: noted, not judged.
    Policies active;
    std::string inactive;
    for (auto& p : *all_policies) {
      if (p.inactive) {
        inactive += (inactive.empty() ? "" : "; ") + p.name + " (cpu" + p.cpus.ToString() +
                    "): " + *p.inactive;
      } else {
        active.push_back(std::move(p));
      }
    }
    if (active.empty() && !inactive.empty()) {
      return CheckResult::Skip("no active cpufreq policy: " + inactive);
    }
    const Policies* policies = &active;
    if (policies->empty()) {
      CheckResult skip = CheckResult::Skip(
          "no cpufreq driver (" + h.Resolve(host::kCpufreqDir) +
          " has no policy): the clock cannot be read from sysfs, typical of a VM where the "
          "hypervisor host sets it; cpu.busy_clock measures it instead");
      if (auto guest = host::VirtualMachineSign(h)) skip.Note("guest", *guest);
      return skip;
    }
    auto turbo = host::ReadTurboControls(h);
    if (!turbo.ok()) return CheckResult::Error(turbo.status());
    const Policies& ps = *policies;
    CheckResult r;
    if (!inactive.empty()) r.Note("inactive policies", inactive);

    Groups drivers = GroupBy(ps, [](const auto& p) { return p.driver; });
    Groups governors = GroupBy(ps, [](const auto& p) { return p.governor; });
    Groups maxes = GroupBy(ps, [](const auto& p) { return Mhz(p.scaling_max_khz); });
    Groups hw_maxes = GroupBy(ps, [](const auto& p) { return Mhz(p.cpuinfo_max_khz); });
    Groups epps = GroupBy(ps, [](const auto& p) { return p.epp; });
    r.Note("scaling_driver", Describe(drivers));
    r.Note("scaling_governor", Describe(governors));
    r.Note("scaling_max_freq", Describe(maxes));
    r.Note("cpuinfo_max_freq", Describe(hw_maxes));
    if (!epps.empty()) r.Note("energy_performance_preference", Describe(epps));
    if (turbo->intel_pstate_status) r.Note("intel_pstate/status", *turbo->intel_pstate_status);
    if (turbo->amd_pstate_status) r.Note("amd_pstate/status", *turbo->amd_pstate_status);

    // Turbo permission: global controls and per-policy boost.
    Evidence turbo_off;
    if (turbo->no_turbo && *turbo->no_turbo) {
      turbo_off.emplace_back("/sys/devices/system/cpu/intel_pstate/no_turbo", "1");
    }
    if (turbo->boost && !*turbo->boost)
      turbo_off.emplace_back("/sys/devices/system/cpu/cpufreq/boost", "0");
    Groups boost_off = GroupBy(ps, [](const auto& p) -> std::optional<std::string> {
      if (p.boost && !*p.boost) return std::string("0");
      return std::nullopt;
    });
    if (!boost_off.empty()) {
      turbo_off.emplace_back(std::string(kPolicyGlob) + "/boost",
                             "0 on cpu" + AllCpus(boost_off).ToString());
    }
    std::optional<bool> allowed = turbo->TurboAllowed();
    if (!turbo_off.empty()) allowed = false;
    r.Note("turbo", !allowed ? "no control found" : *allowed ? "allowed" : "disabled");
    bool attr_flagged_max = false, attr_flagged_gov = false, attr_flagged_epp = false;

    // Governor.
    if (site.governor != "any") {
      Groups wrong = GroupBy(ps, [&](const auto& p) -> std::optional<std::string> {
        if (p.governor != site.governor) return p.governor;
        return std::nullopt;
      });
      if (!wrong.empty()) {
        attr_flagged_gov = true;
        CpuSet cpus = AllCpus(wrong);
        Finding f =
            MakeFinding("YS-CPU-010", "cpu" + cpus.ToString(),
                        "scaling governor " + Describe(wrong) + " (" + std::to_string(cpus.size()) +
                            " CPUs); the site expects " + site.governor);
        f.evidence = {{std::string(kPolicyGlob) + "/scaling_governor", Describe(governors)},
                      {"scaling_driver", Describe(drivers)},
                      {"site.cpu.governor", site.governor}};
        f.fix = "cpupower frequency-set -g " + site.governor +
                "; keep it across reboots with "
                "tuned-adm profile throughput-performance or cpufreq.default_governor=" +
                site.governor + " on the kernel command line";
        f.reference = kReference;
        r.Add(std::move(f));
      }
    }

    // Turbo against site policy.
    if (allowed.has_value() && !*allowed && site.turbo == Policy::kOn) {
      int64_t base = 0, top = 0;
      for (const auto& p : ps) {
        if (p.base_khz) base = std::max(base, *p.base_khz);
        top = std::max(top, p.cpuinfo_max_khz);
      }
      Finding f = MakeFinding("YS-CPU-011", "node",
                              "turbo disabled: busy cores stay at or below the base clock" +
                                  (base ? " " + Mhz(base) : std::string()) + " instead of up to " +
                                  Mhz(top));
      f.evidence = turbo_off;
      if (base) f.evidence.emplace_back(std::string(kPolicyGlob) + "/base_frequency", Mhz(base));
      f.evidence.emplace_back(std::string(kPolicyGlob) + "/cpuinfo_max_freq", Mhz(top));
      f.fix = turbo->no_turbo ? "echo 0 > /sys/devices/system/cpu/intel_pstate/no_turbo"
                              : "echo 1 > /sys/devices/system/cpu/cpufreq/boost";
      f.fix += "; if it does not stay, enable Turbo Boost / Core Performance Boost in the BIOS";
      f.reference = kReference;
      r.Add(std::move(f));
    } else if (allowed.has_value() && *allowed && site.turbo == Policy::kOff) {
      Finding f = MakeFinding("YS-CPU-018", "node",
                              "turbo allowed; site policy cpu.turbo is off (fixed clocks for "
                              "repeatable step times)");
      f.evidence = {{"turbo", "allowed"}, {"site.cpu.turbo", "off"}};
      if (turbo->no_turbo)
        f.evidence.emplace_back("/sys/devices/system/cpu/intel_pstate/no_turbo", "0");
      if (turbo->boost) f.evidence.emplace_back("/sys/devices/system/cpu/cpufreq/boost", "1");
      f.fix = turbo->no_turbo ? "echo 1 > /sys/devices/system/cpu/intel_pstate/no_turbo"
                              : "echo 0 > /sys/devices/system/cpu/cpufreq/boost";
      f.reference = kReference;
      r.Add(std::move(f));
    }

    // scaling_max_freq below what the hardware and the turbo setting allow.
    bool turbo_disabled = allowed.has_value() && !*allowed;
    Groups capped = GroupBy(ps, [&](const auto& p) -> std::optional<std::string> {
      int64_t expected = p.cpuinfo_max_khz;
      if (turbo_disabled) {
        // no_turbo/boost=0 itself lowers scaling_max_freq to the base clock; that is the turbo
        // finding's business. Below the base is always a cap; between base and maximum is a
        // cap only when the site wants turbo.
        if (!p.base_khz) return std::nullopt;
        if (site.turbo != Policy::kOn || p.scaling_max_khz <= *p.base_khz) expected = *p.base_khz;
      }
      if (p.scaling_max_khz >= expected) return std::nullopt;
      return Mhz(p.scaling_max_khz) + " (of " + Mhz(expected) + ")";
    });
    if (!capped.empty()) {
      attr_flagged_max = true;
      CpuSet cpus = AllCpus(capped);
      Finding f = MakeFinding("YS-CPU-012", "cpu" + cpus.ToString(),
                              "scaling_max_freq capped: " + Describe(capped));
      f.evidence = {{std::string(kPolicyGlob) + "/scaling_max_freq", Describe(maxes)},
                    {std::string(kPolicyGlob) + "/cpuinfo_max_freq", Describe(hw_maxes)}};
      f.fix =
          "for p in /sys/devices/system/cpu/cpufreq/policy*; do cat $p/cpuinfo_max_freq > "
          "$p/scaling_max_freq; done (or cpupower frequency-set -u <max>); then find what set "
          "the cap (a tuned profile, a power-capping daemon, a boot script)";
      f.reference = kReference;
      r.Add(std::move(f));
    }

    // Energy-performance preference.
    Groups powery = GroupBy(ps, [](const auto& p) -> std::optional<std::string> {
      if (p.epp && (*p.epp == "power" || *p.epp == "balance_power")) return *p.epp;
      return std::nullopt;
    });
    if (!powery.empty()) {
      attr_flagged_epp = true;
      CpuSet cpus = AllCpus(powery);
      Finding f = MakeFinding("YS-CPU-013", "cpu" + cpus.ToString(),
                              "energy-performance preference favours power: " + Describe(powery));
      f.evidence = {{std::string(kPolicyGlob) + "/energy_performance_preference", Describe(epps)}};
      f.fix =
          "echo performance | tee /sys/devices/system/cpu/cpufreq/policy*/"
          "energy_performance_preference (intel_pstate's performance governor sets it too)";
      f.reference = kReference;
      r.Add(std::move(f));
    }

    // intel_pstate's global cap.
    if (turbo->max_perf_pct && *turbo->max_perf_pct < 100) {
      Finding f =
          MakeFinding("YS-CPU-014", "node",
                      "intel_pstate max_perf_pct is " + std::to_string(*turbo->max_perf_pct) +
                          ": every CPU is held below that share of its maximum performance");
      f.evidence = {{"/sys/devices/system/cpu/intel_pstate/max_perf_pct",
                     std::to_string(*turbo->max_perf_pct)}};
      f.fix = "echo 100 > /sys/devices/system/cpu/intel_pstate/max_perf_pct";
      f.reference = kReference;
      r.Add(std::move(f));
    }

    // Firmware limit.
    Groups bios = GroupBy(ps, [](const auto& p) -> std::optional<std::string> {
      if (p.bios_limit_khz && *p.bios_limit_khz < p.cpuinfo_max_khz) {
        return Mhz(*p.bios_limit_khz) + " (of " + Mhz(p.cpuinfo_max_khz) + ")";
      }
      return std::nullopt;
    });
    if (!bios.empty()) {
      CpuSet cpus = AllCpus(bios);
      Finding f = MakeFinding("YS-CPU-015", "cpu" + cpus.ToString(),
                              "firmware limits the clock: bios_limit " + Describe(bios));
      f.evidence = {{std::string(kPolicyGlob) + "/bios_limit", Describe(bios)}};
      f.fix =
          "set the BIOS power profile to maximum performance and lift the BMC power cap "
          "(ipmitool dcmi power get_limit)";
      f.reference = kReference;
      r.Add(std::move(f));
    }

    // One policy for all CPUs: divergence not already explained by a finding above.
    Evidence diverging;
    if (drivers.size() > 1) diverging.emplace_back("scaling_driver", Describe(drivers));
    if (governors.size() > 1 && !attr_flagged_gov)
      diverging.emplace_back("scaling_governor", Describe(governors));
    if (maxes.size() > 1 && !attr_flagged_max && hw_maxes.size() == 1) {
      diverging.emplace_back("scaling_max_freq", Describe(maxes));
    }
    if (epps.size() > 1 && !attr_flagged_epp)
      diverging.emplace_back("energy_performance_preference", Describe(epps));
    if (!diverging.empty()) {
      std::string what;
      for (const auto& [k, _] : diverging) what += (what.empty() ? "" : ", ") + k;
      Finding f =
          MakeFinding("YS-CPU-017", "node", "frequency policy differs across CPUs: " + what);
      f.evidence = diverging;
      f.fix =
          "apply one profile to every CPU (cpupower -c all frequency-set ..., or one tuned "
          "profile fleet-wide)";
      f.reference = kReference;
      r.Add(std::move(f));
    }

    if (r.findings.empty()) {
      r.summary = Describe(drivers) + ", governor " + Describe(governors) + ", turbo " +
                  (!allowed   ? "control absent"
                   : *allowed ? "allowed"
                              : "disabled") +
                  ", max " + Describe(maxes);
    }
    return r;
  }
};

}  // namespace

YS_REGISTER(FrequencyCheck,
            {.id = "cpu.frequency",
             .summary = "cpufreq governor, turbo permission, frequency caps and energy "
                        "preference, and their consistency across CPUs.",
             .needs = {}})

}  // namespace ys::checks
