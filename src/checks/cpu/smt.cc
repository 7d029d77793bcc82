// cpu.smt: SMT (hyper-threading) control and state against site policy cpu.smt
// (reference: docs/node-checks.md §smt).
#include "host/smt.h"

#include <string>

#include "checks/check.h"
#include "core/text.h"
#include "host/procfs.h"

namespace ys::checks {
namespace {

constexpr const char* kSmtReference =
    "Documentation/ABI/testing/sysfs-devices-system-cpu (smt/control, smt/active); "
    "docs/node-checks.md §smt";

// The nosmt token of the kernel command line, "" for none.
std::string NosmtToken(const host::Host& h) {
  auto cmdline_text = h.ReadFile("/proc/cmdline");
  auto cmdline = host::KernelCmdline::Parse(cmdline_text.ok() ? *cmdline_text : "");
  std::string nosmt;
  for (const auto& t : cmdline.tokens()) {
    if (t == "nosmt" || t == "nosmt=force" ||
        (StartsWith(t, "mitigations=") && EndsWith(t, ",nosmt"))) {
      nosmt = t;
    }
  }
  return nosmt;
}

// YS-CPU-020 when site policy wants SMT and it is not active.
Finding SmtInactive(const host::SmtState& state, bool active, const std::string& nosmt) {
  const std::string dir = host::kSmtDir;
  bool forced = state.control == host::SmtControl::kForceOff;
  std::string why = state.control == host::SmtControl::kOn
                        ? "SMT control is on but no sibling thread is online"
                        : "SMT is " + state.control_text;
  Finding f = MakeFinding("YS-CPU-020", "node", why + "; site policy cpu.smt is on");
  f.evidence = {{dir + "/control", state.control_text},
                {dir + "/active", active ? "1" : "0"},
                {"site.cpu.smt", "on"}};
  if (!nosmt.empty()) f.evidence.emplace_back("/proc/cmdline", nosmt);
  if (state.control == host::SmtControl::kOn) {
    f.fix = "bring the sibling threads online: echo 1 > /sys/devices/system/cpu/cpu<N>/online";
  } else if (forced || !nosmt.empty()) {
    f.fix = "remove " + (nosmt.empty() ? std::string("nosmt=force") : nosmt) +
            " from the kernel command line and enable Hyper-Threading/SMT in the BIOS, then reboot";
  } else {
    f.fix =
        "echo on > /sys/devices/system/cpu/smt/control (and enable SMT in the BIOS if it "
        "is off there)";
  }
  f.reference = kSmtReference;
  return f;
}

class SmtCheck : public Check {
 public:
  CheckResult Run(const CheckContext& ctx) const override {
    const host::Host& h = ctx.host();
    const Policy policy = ctx.param<Policy>("smt");
    auto state = host::ReadSmtState(h);
    if (!state.ok()) {
      if (state.status().code() == StatusCode::kNotFound) {
        if (h.IsDirectory(host::kSmtDir)) return CheckResult::Skip(state.status().message());
        return CheckResult::Skip(state.status().message() +
                                 ": this kernel exposes no SMT control (CONFIG_HOTPLUG_SMT)");
      }
      return CheckResult::Error(state.status());
    }
    CheckResult r;
    const std::string dir = host::kSmtDir;
    r.Note(dir + "/control", state->control_text);
    if (state->active) r.Note(dir + "/active", *state->active ? "1" : "0");
    int threads = 0;
    if (const auto& topo = ctx.topology(); topo.ok()) {
      threads = topo->ThreadsPerCore();
      r.Note("threads per core", std::to_string(threads));
    }
    std::string nosmt = NosmtToken(h);
    if (!nosmt.empty()) r.Note("/proc/cmdline", nosmt);
    r.Note("site.cpu.smt", PolicyName(policy));

    if (state->control == host::SmtControl::kNotSupported ||
        state->control == host::SmtControl::kNotImplemented) {
      CheckResult skip = CheckResult::Skip(
          "SMT not supported by this CPU or hypervisor (smt/control = " + state->control_text +
          ")");
      skip.evidence = r.evidence;
      return skip;
    }
    bool active = state->active.value_or(state->control == host::SmtControl::kOn);
    if (policy == Policy::kOn && !active) {
      r.Add(SmtInactive(*state, active, nosmt));
    } else if (policy == Policy::kOff && active) {
      Finding f =
          MakeFinding("YS-CPU-020", "node",
                      "SMT is active" +
                          (threads > 1 ? " (" + std::to_string(threads) + " threads per core)"
                                       : std::string()) +
                          "; site policy cpu.smt is off");
      f.evidence = {
          {dir + "/control", state->control_text}, {dir + "/active", "1"}, {"site.cpu.smt", "off"}};
      f.fix =
          "echo off > /sys/devices/system/cpu/smt/control now; nosmt on the kernel command "
          "line (or SMT disabled in the BIOS) to keep it off";
      f.reference = kSmtReference;
      r.Add(std::move(f));
    }
    if (r.findings.empty()) {
      r.summary = std::string("SMT ") + (active ? "active" : "inactive") + " (control " +
                  state->control_text +
                  (threads ? ", " + std::to_string(threads) + " threads per core" : "") +
                  "), site policy " + PolicyName(policy);
    }
    return r;
  }
};

}  // namespace

YS_REGISTER(SmtCheck,
            {.id = "cpu.smt",
             .summary = "SMT (hyper-threading) control and state against site policy.",
             .needs = {},
             .codes = {{"YS-CPU-020", Severity::kWarn, "SMT state differs from site policy"}},
             .params = {{.name = "smt",
                         .type = ParamType::kPolicy,
                         .default_value = Policy::kAny,
                         .meaning = "on: SMT must be active; off: must be off; any: report only",
                         .site_table = "cpu"}}})

}  // namespace ys::checks
