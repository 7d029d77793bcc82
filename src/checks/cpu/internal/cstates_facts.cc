#include "checks/cpu/internal/cstates_facts.h"

#include <algorithm>
#include <utility>

#include "core/text.h"
#include "host/sysfs_attr.h"
#include "host/virt.h"

namespace ys::checks::cstates {
namespace {

void SurveyCpu(int cpu, std::vector<host::IdleState> states, const std::string& driver,
               IdleSurvey& s) {
  auto unknown = std::find_if(states.begin(), states.end(), [](const host::IdleState& st) {
    return !st.empty_attribute.empty();
  });
  if (unknown != states.end()) {
    s.not_judged[unknown->empty_attribute].Insert(cpu);
    return;
  }
  const host::IdleState* deepest = nullptr;
  bool has_deep = false, deep_on = false;
  for (const auto& st : states) {
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
  s.states[cpu] = std::move(states);
}

Result<IdleSurvey> Survey(const host::Host& h, const CpuSet& online, const std::string& driver) {
  IdleSurvey s;
  for (int cpu : online.ids()) {
    auto states = host::ReadIdleStates(h, cpu);
    if (!states.ok()) {
      if (states.status().code() != StatusCode::kNotFound) return states.status();
      s.without_states.Insert(cpu);
      continue;
    }
    SurveyCpu(cpu, std::move(*states), driver, s);
  }
  return s;
}

// The skip the per-CPU units give when the framework decides, or nothing.
std::optional<CheckResult> FrameworkGate(const host::Host& h, const IdleFramework& fw) {
  const char* judged = ": judged by cpu.cstates.idle_framework";
  if (!fw.off_tokens.empty()) {
    return CheckResult::Skip("idle states not judged: " + Join(fw.off_tokens, " ") +
                             " on the kernel command line" + judged);
  }
  if (fw.driver_error && h.IsDirectory(host::kCpuIdleDir)) {
    return CheckResult::Skip(fw.driver_error->message() + ": idle states not judged");
  }
  if (fw.driver_error) {
    return CheckResult::Skip(fw.driver_error->message() +
                             ": kernel without CPU idle support (CONFIG_CPU_IDLE); idle states "
                             "cannot be read");
  }
  if (fw.drv == "none") {
    return CheckResult::Skip(std::string("no cpuidle driver: idle states not judged") + judged);
  }
  if (fw.drv == "haltpoll" || fw.guest) {
    return CheckResult::Skip("VM guest (cpuidle driver " + fw.drv +
                             "): guest idle states do not choose physical C-states; the host's "
                             "C-states decide turbo headroom, check cpu.cstates there");
  }
  return std::nullopt;
}

// max_cstate limits of the active driver, from the module parameter (which reflects the command
// line) and the command-line token itself.
Status ReadLimits(const host::Host& h, CstatesFacts& f, Evidence& notes) {
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
    if (!read.ok()) return read.status();
    const std::optional<int64_t>& v = *read;
    if (empty) notes.emplace_back(p.path, "empty file: the limit is not judged");
    if (v) notes.emplace_back(p.path, std::to_string(*v));
    auto token = f.fw.cmdline.Value(p.token);
    if (f.fw.drv != p.driver) continue;
    if ((v && *v < p.unrestricted) || token) {
      f.limit = token ? std::string(p.token) + "=" + *token
                      : std::string(p.path) + " = " + std::to_string(*v);
      if (v) f.limit_evidence.emplace_back(p.path, std::to_string(*v));
      if (token)
        f.limit_evidence.emplace_back("/proc/cmdline", std::string(p.token) + "=" + *token);
    }
  }
  return Status::Ok();
}

void Classify(CstatesFacts& f) {
  const IdleSurvey& s = f.s;
  f.deep_names = Join(std::vector<std::string>(s.deep_names.begin(), s.deep_names.end()), "/");
  if (s.deep_index) {
    f.state_path = "/sys/devices/system/cpu/cpu*/cpuidle/state" + std::to_string(*s.deep_index);
  }
  if (s.deep_present.empty()) {
    f.deep = DeepState::kNoneOffered;
  } else if (s.deep_enabled.empty()) {
    f.deep = DeepState::kDisabledEverywhere;
  } else if (!(s.deep_enabled == s.deep_present)) {
    f.deep = DeepState::kDiverging;
  } else {
    f.deep = DeepState::kEnabledEverywhere;
  }
}

// The skip when no CPU has states that can be judged, or nothing.
std::optional<CheckResult> SurveyGate(const IdleSurvey& s, const std::string& drv) {
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
  return std::nullopt;
}

}  // namespace

std::string CpuEntity(const CpuSet& cpus) { return "cpu" + cpus.ToString(); }

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

Result<IdleFramework> ReadIdleFramework(const CheckContext& ctx) {
  const host::Host& h = ctx.host();
  IdleFramework fw;
  fw.policy = ctx.expect().cpu.deep_cstates;
  auto cmdline_text = h.ReadFile("/proc/cmdline");
  if (!cmdline_text.ok() && cmdline_text.status().code() != StatusCode::kNotFound) {
    return cmdline_text.status();
  }
  fw.cmdline = host::KernelCmdline::Parse(cmdline_text.ok() ? *cmdline_text : "");
  auto driver = host::ReadIdleDriver(h);
  if (!driver.ok() && driver.status().code() != StatusCode::kNotFound) return driver.status();
  if (!driver.ok()) fw.driver_error = driver.status();
  fw.drv = driver.ok() ? driver->driver : "absent";
  fw.notes.emplace_back("cpuidle.driver", fw.drv);
  if (driver.ok() && !driver->governor.empty())
    fw.notes.emplace_back("cpuidle.governor", driver->governor);
  fw.notes.emplace_back("site.cpu.deep_cstates", PolicyName(fw.policy));
  for (const char* t : {"idle=poll", "idle=halt", "cpuidle.off=1"}) {
    if (fw.cmdline.Has(t)) fw.off_tokens.push_back(t);
  }
  if (!fw.off_tokens.empty()) fw.notes.emplace_back("/proc/cmdline", Join(fw.off_tokens, " "));
  fw.guest = host::VirtualMachineSign(h);
  return fw;
}

std::variant<CstatesFacts, CheckResult> ReadCstates(const CheckContext& ctx) {
  const host::Host& h = ctx.host();
  auto fw = ReadIdleFramework(ctx);
  if (!fw.ok()) return CheckResult::Error(fw.status());
  if (auto gate = FrameworkGate(h, *fw)) return *gate;
  const auto& topo = ctx.topology();
  if (!topo.ok()) return CheckResult::Error(topo.status());
  CstatesFacts f;
  f.fw = std::move(*fw);
  auto survey = Survey(h, topo->online_cpus, f.fw.drv);
  if (!survey.ok()) return CheckResult::Error(survey.status());
  f.s = std::move(*survey);
  if (auto gate = SurveyGate(f.s, f.fw.drv)) return *gate;
  Evidence& notes = f.fw.notes;
  notes.emplace_back("cpu" + std::to_string(f.s.states.begin()->first) + " states",
                     DescribeStates(f.s.states.begin()->second));
  notes.emplace_back("deepest enabled", DescribeDeepest(f.s));
  if (!f.s.without_states.empty())
    notes.emplace_back("CPUs without cpuidle states", CpuEntity(f.s.without_states));
  for (const auto& [attr, cpus] : f.s.not_judged)
    notes.emplace_back("CPUs not judged (empty cpuidle state " + attr + " file)", CpuEntity(cpus));
  if (Status st = ReadLimits(h, f, notes); !st.ok()) return CheckResult::Error(st);
  if (!f.limit.empty()) notes.emplace_back("max_cstate limit", f.limit);
  Classify(f);
  return f;
}

CheckResult StartResult(const CstatesFacts& f) {
  CheckResult r;
  r.evidence = f.fw.notes;
  return r;
}

void Conclude(const CstatesFacts& f, CheckResult& r) {
  if (r.findings.empty()) r.summary = f.fw.drv + ": deepest enabled " + DescribeDeepest(f.s);
}

}  // namespace ys::checks::cstates
