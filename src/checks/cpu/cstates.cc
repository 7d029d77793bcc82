// cpu.cstates: the deepest idle state each CPU may enter, and what keeps C6-class states out of
// reach: the kernel command line (idle=poll|halt, cpuidle.off=1), max_cstate limits, states
// disabled through cpuidle `disable`, or no C6-class state at all (BIOS). Site policy
// cpu.deep_cstates decides (reference: linux-node-knobs.md §1).
//
// Why it matters: a core in C6 is power-gated, which leaves the package power and current budget
// to the busy cores, so they turbo higher. With idle cores held in C1, busy cores lose that
// headroom.
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "checks/check.h"
#include "core/text.h"
#include "host/cpuidle.h"
#include "host/procfs.h"
#include "host/sysfs_attr.h"
#include "host/virt.h"

namespace ys::checks {
namespace {

constexpr const char* kReference =
    "Documentation/admin-guide/pm/cpuidle.rst, intel_idle.rst; linux-node-knobs.md §1";
constexpr const char* kExemplarRecovery =
    "about 4% of step time (Exemplar case: with C6 disabled in BIOS, idle cores stayed in C1 and "
    "busy cores could not turbo past 3.0 GHz on a 3.8 GHz part; allowing C6 recovered about 4%)";
constexpr const char* kCmdlineFix =
    "remove it from the kernel command line (GRUB_CMDLINE_LINUX in /etc/default/grub, then "
    "update-grub or grub2-mkconfig, and reboot)";

std::string CpuEntity(const CpuSet& cpus) { return "cpu" + cpus.ToString(); }

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

Result<IdleSurvey> Survey(const host::Host& h, const CpuSet& online, const std::string& driver) {
  IdleSurvey s;
  for (int cpu : online.ids()) {
    auto states = host::ReadIdleStates(h, cpu);
    if (!states.ok()) {
      if (states.status().code() == StatusCode::kNotFound) {
        s.without_states.Insert(cpu);
        continue;
      }
      return states.status();
    }
    auto unknown = std::find_if(states->begin(), states->end(), [](const host::IdleState& st) {
      return !st.empty_attribute.empty();
    });
    if (unknown != states->end()) {
      s.not_judged[unknown->empty_attribute].Insert(cpu);
      continue;
    }
    const host::IdleState* deepest = nullptr;
    bool has_deep = false, deep_on = false;
    for (const auto& st : *states) {
      if (!st.disabled) deepest = &st;
      if (!host::IsDeepIdleState(st, driver)) continue;
      has_deep = true;
      s.deep_names.insert(st.name);
      if (!s.deep_index) s.deep_index = st.index;
      if (st.disabled) {
        if (st.default_enabled.has_value() && !*st.default_enabled) s.deep_default_disabled = true;
        continue;
      }
      deep_on = true;
      if (!st.usage) s.deep_usage_known = false;
      if (st.usage && *st.usage > 0) s.deep_ever_entered = true;
    }
    if (has_deep) s.deep_present.Insert(cpu);
    if (deep_on) s.deep_enabled.Insert(cpu);
    s.deepest_enabled[deepest ? deepest->name : std::string("(none enabled)")].Insert(cpu);
    s.states[cpu] = std::move(*states);
  }
  return s;
}

std::string DescribeStates(const std::vector<host::IdleState>& states) {
  std::vector<std::string> parts;
  for (const auto& st : states) {
    std::string p = st.name + " " + std::to_string(st.latency_us);
    if (st.residency_us) p += "/" + std::to_string(*st.residency_us);
    p += " us";
    if (st.disabled) p += " (disabled)";
    parts.push_back(p);
  }
  return Join(parts) + " (exit latency/target residency)";
}

std::string DescribeDeepest(const IdleSurvey& s) {
  std::vector<std::string> parts;
  for (const auto& [name, cpus] : s.deepest_enabled)
    parts.push_back(name + " on cpu" + cpus.ToString());
  return Join(parts, "; ");
}

class CstatesCheck : public Check {
 public:
  CheckResult Run(const CheckContext& ctx) const override {
    const host::Host& h = ctx.host();
    const Policy policy = ctx.expect().cpu.deep_cstates;
    CheckResult r;

    auto cmdline_text = h.ReadFile("/proc/cmdline");
    if (!cmdline_text.ok() && cmdline_text.status().code() != StatusCode::kNotFound) {
      return CheckResult::Error(cmdline_text.status());
    }
    auto cmdline = host::KernelCmdline::Parse(cmdline_text.ok() ? *cmdline_text : "");

    auto driver = host::ReadIdleDriver(h);
    if (!driver.ok() && driver.status().code() != StatusCode::kNotFound) {
      return CheckResult::Error(driver.status());
    }
    std::string drv = driver.ok() ? driver->driver : "absent";
    r.Note("cpuidle.driver", drv);
    if (driver.ok() && !driver->governor.empty()) r.Note("cpuidle.governor", driver->governor);
    r.Note("site.cpu.deep_cstates", PolicyName(policy));

    // 1. The whole idle framework off from the command line.
    std::vector<std::string> off_tokens;
    for (const char* t : {"idle=poll", "idle=halt", "cpuidle.off=1"}) {
      if (cmdline.Has(t)) off_tokens.push_back(t);
    }
    if (!off_tokens.empty()) {
      r.Note("/proc/cmdline", Join(off_tokens, " "));
      if (policy == Policy::kOff) {
        r.summary = "deep C-states off by " + Join(off_tokens, " ") + ", as site policy asks";
        return r;
      }
      Finding f = MakeFinding("YS-CPU-001", "node",
                              Join(off_tokens, " ") +
                                  " on the kernel command line: CPUs never "
                                  "enter C6-class states" +
                                  (cmdline.Has("idle=poll")
                                       ? " and idle CPUs spin, taking turbo headroom from busy ones"
                                       : ""));
      f.evidence = {{"/proc/cmdline", Join(off_tokens, " ")}, {"cpuidle current_driver", drv}};
      f.fix = "Remove " + Join(off_tokens, " ") + ": " + kCmdlineFix;
      f.expected_recovery = kExemplarRecovery;
      f.reference = kReference;
      r.Add(std::move(f));
      return r;
    }
    if (!driver.ok() && h.IsDirectory(host::kCpuIdleDir)) {
      return CheckResult::Skip(driver.status().message() + ": idle states not judged");
    }
    if (!driver.ok()) {
      return CheckResult::Skip(driver.status().message() +
                               ": kernel without CPU idle support (CONFIG_CPU_IDLE); idle states "
                               "cannot be read");
    }

    // 2. No driver, or a VM guest: the host's C-states are what matter.
    std::optional<std::string> guest = host::VirtualMachineSign(h);
    if (drv == "none") {
      if (guest) {
        CheckResult skip = CheckResult::Skip(
            "VM guest without a cpuidle driver: physical C-states are set on the hypervisor "
            "host; check cpu.cstates there");
        skip.evidence = r.evidence;
        skip.Note("guest", *guest);
        return skip;
      }
      if (policy == Policy::kOff) {
        r.summary = "no cpuidle driver: CPUs idle in C1 only, as site policy asks";
        return r;
      }
      Finding f = MakeFinding("YS-CPU-001", "node",
                              "no cpuidle driver registered: idle CPUs use HLT/WFI (C1) only and "
                              "never reach C6-class states");
      f.evidence = {{std::string(host::kCpuIdleDir) + "/current_driver", "none"}};
      f.fix =
          "load the platform idle driver: intel_idle (remove intel_idle.max_cstate=0), "
          "acpi_idle (enable C-states / _CST in BIOS), psci_idle on Arm; then reboot";
      f.expected_recovery = kExemplarRecovery;
      f.reference = kReference;
      r.Add(std::move(f));
      return r;
    }
    if (drv == "haltpoll" || guest) {
      CheckResult skip = CheckResult::Skip(
          "VM guest (cpuidle driver " + drv +
          "): guest idle states do not choose physical "
          "C-states; the host's C-states decide turbo headroom, check cpu.cstates there");
      skip.evidence = r.evidence;
      if (guest) skip.Note("guest", *guest);
      if (auto states = host::ReadIdleStates(h, 0); states.ok()) {
        skip.Note("cpu0 states", DescribeStates(*states));
      }
      return skip;
    }

    // 3. The per-CPU states.
    const auto& topo = ctx.topology();
    if (!topo.ok()) return CheckResult::Error(topo.status());
    auto survey = Survey(h, topo->online_cpus, drv);
    if (!survey.ok()) return CheckResult::Error(survey.status());
    const IdleSurvey& s = *survey;
    if (s.states.empty() && !s.not_judged.empty()) {
      std::vector<std::string> why;
      for (const auto& [attr, cpus] : s.not_judged)
        why.push_back("empty cpuidle state " + attr + " file on " + CpuEntity(cpus));
      return CheckResult::Skip(Join(why, "; ") + ": idle states not judged");
    }
    if (s.states.empty()) {
      return CheckResult::Skip("cpuidle driver " + drv +
                               " registered, but no online CPU has "
                               "cpuidle states under /sys/devices/system/cpu/cpu*/cpuidle");
    }
    r.Note("cpu" + std::to_string(s.states.begin()->first) + " states",
           DescribeStates(s.states.begin()->second));
    r.Note("deepest enabled", DescribeDeepest(s));
    if (!s.without_states.empty())
      r.Note("CPUs without cpuidle states", CpuEntity(s.without_states));
    for (const auto& [attr, cpus] : s.not_judged)
      r.Note("CPUs not judged (empty cpuidle state " + attr + " file)", CpuEntity(cpus));

    // max_cstate limits of the active driver, from the module parameter (which reflects the
    // command line) and the command-line token itself.
    std::string limit;
    Evidence limit_evidence;
    struct Param {
      const char* driver;
      const char* path;
      const char* token;
      int64_t unrestricted;
    };
    for (const Param& p : {Param{"intel_idle", "/sys/module/intel_idle/parameters/max_cstate",
                                 "intel_idle.max_cstate", 9},
                           Param{"acpi_idle", "/sys/module/processor/parameters/max_cstate",
                                 "processor.max_cstate", 8}}) {
      // An empty parameter file (a copy that could not read it) sets no limit that can be judged.
      bool empty = false;
      auto read = host::ReadOptionalIntOrEmpty(h, p.path, empty);
      if (!read.ok()) return CheckResult::Error(read.status());
      const std::optional<int64_t>& v = *read;
      if (empty) r.Note(p.path, "empty file: the limit is not judged");
      if (v) r.Note(p.path, std::to_string(*v));
      auto token = cmdline.Value(p.token);
      if (drv != p.driver) continue;
      if ((v && *v < p.unrestricted) || token) {
        limit = token ? std::string(p.token) + "=" + *token
                      : std::string(p.path) + " = " + std::to_string(*v);
        if (v) limit_evidence.emplace_back(p.path, std::to_string(*v));
        if (token)
          limit_evidence.emplace_back("/proc/cmdline", std::string(p.token) + "=" + *token);
      }
    }

    std::string deep_names =
        Join(std::vector<std::string>(s.deep_names.begin(), s.deep_names.end()), "/");
    std::string state_path =
        s.deep_index ? "/sys/devices/system/cpu/cpu*/cpuidle/state" + std::to_string(*s.deep_index)
                     : "";

    if (s.deep_present.empty()) {
      // No C6-class state offered at all.
      if (!limit.empty()) {
        if (policy != Policy::kOff) {
          Finding f = MakeFinding(
              "YS-CPU-004", "node",
              limit + " removes the C6-class states: deepest enabled is " + DescribeDeepest(s));
          f.evidence = limit_evidence;
          f.evidence.emplace_back("states offered", DescribeStates(s.states.begin()->second));
          f.fix = limit.find('=') != std::string::npos && limit.find(' ') == std::string::npos
                      ? "Remove " + limit + ": " + kCmdlineFix
                      : std::string(
                            "remove the max_cstate option (kernel command line or "
                            "/etc/modprobe.d) and reboot");
          f.expected_recovery = kExemplarRecovery;
          f.reference = kReference;
          r.Add(std::move(f));
        }
      } else if (policy == Policy::kOn) {
        Finding f = MakeFinding("YS-CPU-005", "node",
                                "driver " + drv + " offers no C6-class idle state (deepest: " +
                                    DescribeDeepest(s) + "); site policy wants deep C-states");
        f.evidence = {{"cpuidle current_driver", drv},
                      {"states offered", DescribeStates(s.states.begin()->second)},
                      {"site.cpu.deep_cstates", "on"}};
        f.fix =
            "enable C6 in the BIOS power settings (\"CPU C6 report\", \"C-States: Enabled\", "
            "\"Package C-State\" at least C6) and reboot";
        f.expected_recovery = kExemplarRecovery;
        f.reference = kReference;
        r.Add(std::move(f));
      }
    } else if (s.deep_enabled.empty()) {
      // Offered, and disabled on every CPU.
      if (policy != Policy::kOff) {
        std::string idx = std::to_string(*s.deep_index);
        Finding f =
            MakeFinding("YS-CPU-002", "node",
                        deep_names + " disabled on all " + std::to_string(s.deep_present.size()) +
                            " CPUs: deepest enabled is " + DescribeDeepest(s));
        f.evidence = {
            {"cpuidle current_driver", drv},
            {state_path + "/name", deep_names},
            {state_path + "/disable", "1 on cpu" + s.deep_present.ToString()},
            {state_path + "/default_status",
             s.deep_default_disabled ? "disabled (driver default, e.g. intel_idle.states_off)"
                                     : "enabled (disabled at run time)"}};
        f.fix = "enable it: cpupower idle-set -e " + idx + " (or echo 0 | tee " + state_path +
                "/disable); then find what disabled it (a tuned profile, a systemd unit, "
                "intel_idle.states_off=) so that it stays enabled after reboot";
        f.expected_recovery = kExemplarRecovery;
        f.reference = kReference;
        r.Add(std::move(f));
      }
    } else if (!(s.deep_enabled == s.deep_present)) {
      // Some CPUs may enter it, others may not: per-CPU divergence, whatever the policy.
      CpuSet off = s.deep_present.Minus(s.deep_enabled);
      Finding f = MakeFinding("YS-CPU-003", CpuEntity(off),
                              deep_names + " disabled on " + std::to_string(off.size()) + " of " +
                                  std::to_string(s.deep_present.size()) + " CPUs (cpu" +
                                  off.ToString() + "), enabled on cpu" + s.deep_enabled.ToString());
      f.evidence = {{state_path + "/disable",
                     "1 on cpu" + off.ToString() + ", 0 on cpu" + s.deep_enabled.ToString()},
                    {"deepest enabled", DescribeDeepest(s)},
                    {"site.cpu.deep_cstates", PolicyName(policy)}};
      std::string idx = std::to_string(*s.deep_index);
      f.fix = policy == Policy::kOff
                  ? "disable it everywhere: cpupower idle-set -d " + idx
                  : "enable it everywhere: cpupower -c " + off.ToString() + " idle-set -e " + idx +
                        "; apply one idle policy to every CPU";
      f.reference = kReference;
      r.Add(std::move(f));
    } else if (policy == Policy::kOff) {
      Finding f =
          MakeFinding("YS-CPU-005", "node",
                      deep_names + " enabled on every CPU; site policy cpu.deep_cstates is off");
      f.evidence = {{state_path + "/disable", "0 on cpu" + s.deep_enabled.ToString()},
                    {"site.cpu.deep_cstates", "off"}};
      f.fix = "disable it to match the site: cpupower idle-set -d " +
              std::to_string(*s.deep_index) +
              " (run time), or a max_cstate limit on the kernel command line";
      f.reference = kReference;
      r.Add(std::move(f));
    } else if (policy == Policy::kOn && s.deep_usage_known && !s.deep_ever_entered) {
      // Enabled everywhere yet never entered since boot: something keeps the cores out of it.
      Finding f =
          MakeFinding("YS-CPU-005", "node",
                      deep_names +
                          " enabled but never entered since boot on any CPU "
                          "(usage 0): a PM QoS latency request or the firmware keeps cores out");
      f.evidence = {{state_path + "/usage", "0 on cpu" + s.deep_enabled.ToString()},
                    {state_path + "/disable", "0"}};
      f.fix =
          "find the process holding /dev/cpu_dma_latency open (e.g. tuned's latency-performance "
          "profile: tuned-adm profile throughput-performance) and check the BIOS C-state limit";
      f.expected_recovery = kExemplarRecovery;
      f.reference = kReference;
      r.Add(std::move(f));
    }
    if (!limit.empty()) r.Note("max_cstate limit", limit);

    if (r.findings.empty()) {
      r.summary = drv + ": deepest enabled " + DescribeDeepest(s);
    }
    return r;
  }
};

}  // namespace

YS_REGISTER(CstatesCheck,
            {.id = "cpu.cstates",
             .summary = "Deepest enabled CPU idle state per CPU: C6-class states disabled, "
                        "limited by max_cstate or idle= on the kernel command line.",
             .needs = {}})

}  // namespace ys::checks
