// gpu.xid: the GPU events the NVIDIA driver wrote to the kernel log (/dev/kmsg under the root,
// or the file given with --kernel-log, in any of the forms host/kernel_log.h reads), mapped from
// the PCI address to the GPU NVML lists. Lines are grouped into events first
// (gpu/xid_events.h): a burst of one XID on one GPU is one event, and an XID 43/45 that follows
// another event, or an XID whose line names its cause, counts with its root cause.
//
// Verdicts: an XID in the site's fatal list (by default DCGM's, plus the XIDs whose immediate
// action in NVIDIA's catalogue is a GPU reset or reboot), an NVLink XID the driver calls Fatal or
// that caused other XIDs, and an XID 154 asking for a reset, reboot or drain fail; the other
// catalogued XIDs warn; the application XIDs 13, 31, 43 and 45 are noted as application faults
// unless two or more separate faults hit one GPU. A GPU that fell off the bus, was lost, or
// could not be initialised fails even without an XID line. Only the current boot counts unless
// all_boots is set.
//
// The log must be of the machine the GPU state is of: a recorded state (--nvml-state) read on the
// live host without --kernel-log skips rather than read this machine's log. A log with fewer than
// min_log_lines lines and no fault is inconclusive (an error outcome), never a pass.
//
// Without NVML the log is still read: a GPU that fell off the bus can keep NVML from starting,
// and then the log is the evidence. With neither NVML nor a GPU event in the log the unit skips.
#include "gpu/xid.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "checks/gpu/internal/gpu_common.h"
#include "checks/gpu/internal/xid_tally.h"
#include "core/text.h"
#include "gpu/xid_events.h"
#include "host/kernel_log.h"

namespace ys::checks {
namespace {

constexpr int kApplicationRepeats = 2;  // NVSentinel: XID 13/31 twice on one GPU -> diagnose

bool Contains(const std::vector<int>& v, int x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

constexpr const char* kXidReference =
    "NVIDIA XID catalogue (docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html); DCGM "
    "health module XID mappings (BuildXidMappings); NVSentinel health-events analyzer (repeats)";

std::string Consequences(const std::map<int, int>& c) {
  std::vector<std::string> parts;
  for (const auto& [xid, n] : c)
    parts.push_back("XID " + std::to_string(xid) + " x" + std::to_string(n));
  return Join(parts);
}

bool IsNvlink5(int xid) { return xid >= 144 && xid <= 150; }

// Turns a tally into findings and notes under the site's fatal and ignored lists.
class XidJudge {
 public:
  XidJudge(const XidTally& t, const std::vector<int>& fatal, const std::vector<int>& ignored,
           std::string log_name)
      : t_(t), fatal_(fatal), ignored_(ignored), log_name_(std::move(log_name)) {}

  void Judge(CheckResult& r) {
    for (const auto& x : t_.entries) {
      if (IsApplication(x)) app_per_gpu_[x.entity] += x.events;
    }
    for (const auto& x : t_.entries) JudgeOne(x, r);
    for (const auto& [entity, xids] : app_repeats_) ReportRepeats(entity, xids, r);
    for (const auto& [entity, e] : t_.driver_messages) JudgeDriverMessage(entity, *e, r);
    Summarize(r);
  }

 private:
  bool IsFatal(const XidTallyEntry& x) const {
    if (Contains(fatal_, x.xid) || x.stated == gpu::XidStated::kFatal) return true;
    // An NVLink 5 XID without a stated severity that tore down channels was fatal to the work.
    if (IsNvlink5(x.xid) && x.stated == gpu::XidStated::kUnstated && !x.consequences.empty())
      return true;
    return x.xid == 154 && (x.recovery == gpu::RecoveryAction::kGpuReset ||
                            x.recovery == gpu::RecoveryAction::kNodeReboot ||
                            x.recovery == gpu::RecoveryAction::kDrainAndReset);
  }

  bool IsApplication(const XidTallyEntry& x) const {
    return !x.from_cause && gpu::DcgmXidClass(x.xid) == gpu::XidClass::kApplication &&
           !Contains(fatal_, x.xid) && !Contains(ignored_, x.xid);
  }

  std::string Describe(const XidTallyEntry& x) const {
    std::string s = "XID " + std::to_string(x.xid) + ": " + std::string(gpu::XidMeaning(x.xid));
    if (x.xid == 154) s += std::string(": ") + gpu::RecoveryActionName(x.recovery);
    if (x.events > 1) s += " (" + std::to_string(x.events) + " events)";
    if (x.from_cause)
      s += ", the stated cause of " + Consequences(x.consequences);
    else if (!x.consequences.empty())
      s += "; followed by " + Consequences(x.consequences);
    return s;
  }

  void JudgeOne(const XidTallyEntry& x, CheckResult& r) {
    std::string key = x.entity + ".xid" + std::to_string(x.xid);
    if (Contains(ignored_, x.xid)) {
      r.Note(key, Describe(x) + ", first " + x.first_when + "; ignored by site policy");
      return;
    }
    bool fatal = IsFatal(x);
    if (!fatal && (x.xid == 154 && x.recovery == gpu::RecoveryAction::kNone)) {
      r.Note(key, Describe(x) + ", first " + x.first_when);
      return;
    }
    if (!fatal && IsApplication(x)) {
      if (app_per_gpu_[x.entity] < kApplicationRepeats) {
        r.Note(key, Describe(x) + ", first " + x.first_when + "; an application fault");
      } else {
        app_repeats_[x.entity].emplace_back("XID " + std::to_string(x.xid) + " x" +
                                                std::to_string(x.events) + " (" + x.first_when +
                                                ")",
                                            x.last_line);
      }
      return;
    }
    Finding f = MakeFinding(fatal ? "YS-GPU-040" : "YS-GPU-041", x.entity, Describe(x));
    f.evidence = Identity(x.entity);
    gpu::XidClass cls = gpu::DcgmXidClass(x.xid);
    const gpu::XidInfo* info = gpu::FindXid(x.xid);
    f.evidence.emplace_back(
        "xid", std::to_string(x.xid) +
                   " (NVIDIA: " + (info ? gpu::XidActionName(info->action) : "not catalogued") +
                   "; DCGM: " + gpu::XidClassName(cls) +
                   (Contains(fatal_, x.xid) ? "; site fatal list" : "") + ")");
    if (x.stated != gpu::XidStated::kUnstated)
      f.evidence.emplace_back("driver", x.stated == gpu::XidStated::kFatal ? "Fatal" : "Nonfatal");
    f.evidence.emplace_back(
        "events", x.from_cause
                      ? "none in the log; named as the cause by " + Consequences(x.consequences)
                      : std::to_string(x.events) + " (" + std::to_string(x.lines) +
                            (x.lines == 1 ? " line)" : " lines)"));
    f.evidence.emplace_back("first (" + x.first_when + ")", x.first_line);
    if (x.last_line != x.first_line)
      f.evidence.emplace_back("last (" + x.last_when + ")", x.last_line);
    f.evidence.emplace_back("kernel log", log_name_);
    f.fix = FixFor(x.entity, gpu::XidFix(x.xid));
    f.reference = kXidReference;
    if (fatal) roots_[x.xid].insert(x.entity);
    r.Add(std::move(f));
  }

  void JudgeDriverMessage(const std::string& entity, const gpu::GpuLogEvent& e, CheckResult& r) {
    Finding f =
        MakeFinding("YS-GPU-043", entity,
                    std::string(gpu::GpuLogKindMeaning(e.kind)) + " (driver message, no XID)");
    f.evidence = Identity(entity);
    f.evidence.emplace_back("first (" + e.first_when + ")", e.first_line);
    if (e.lines > 1) f.evidence.emplace_back("last (" + e.last_when + ")", e.last_line);
    f.evidence.emplace_back("kernel log", log_name_);
    f.fix = FixFor(entity,
                   e.kind == gpu::GpuLogKind::kInitFailed || e.kind == gpu::GpuLogKind::kProbeFailed
                       ? "drain the node; check nvidia-smi and the driver and firmware "
                         "versions; reboot; check the BMC event log (ipmitool sel "
                         "list); RMA the GPU if it recurs"
                       : gpu::XidFix(79));
    f.reference = "NVIDIA driver messages (NVRM); " + std::string(kXidReference);
    r.Add(std::move(f));
  }

  void ReportRepeats(const std::string& entity,
                     const std::vector<std::pair<std::string, std::string>>& xids, CheckResult& r) {
    Finding f = MakeFinding("YS-GPU-042", entity,
                            std::to_string(app_per_gpu_[entity]) +
                                " separate application faults on this one GPU: a fault that "
                                "repeats on one GPU is the GPU's, not the application's");
    f.evidence = Identity(entity);
    for (const auto& [k, v] : xids) f.evidence.emplace_back(k, v);
    f.evidence.emplace_back("kernel log", log_name_);
    f.fix = FixFor(entity,
                   "drain the node and run dcgmi diag -r 3 -i <gpu>; RMA the GPU if the "
                   "diagnostic fails");
    f.reference = kXidReference;
    r.Add(std::move(f));
  }

  // Names the root causes of the failures: "NVLink fault: XID 149 (...) on 1 GPU, ...".
  void Summarize(CheckResult& r) const {
    if (roots_.empty()) return;
    std::vector<std::string> parts;
    bool all_nvlink = true;
    for (const auto& [xid, gpus] : roots_) {
      const gpu::XidInfo* info = gpu::FindXid(xid);
      all_nvlink = all_nvlink && info && info->area == gpu::XidArea::kNvlink;
      parts.push_back("XID " + std::to_string(xid) + " (" + std::string(gpu::XidMeaning(xid)) +
                      ") on " + std::to_string(gpus.size()) +
                      (gpus.size() == 1 ? " GPU" : " GPUs"));
    }
    r.summary = std::string(all_nvlink ? "NVLink fabric fault, not an application fault: "
                                       : "root cause: ") +
                Join(parts);
  }

  // Replaces "<gpu>" in a fix with the GPU's index, else its PCI address (nvidia-smi -i takes
  // both).
  std::string FixFor(const std::string& entity, std::string fix) const {
    auto pci = t_.pci_of.find(entity);
    std::string target = pci != t_.pci_of.end() ? pci->second : std::string();
    if (auto it = t_.device_of.find(entity); it != t_.device_of.end()) {
      target = std::to_string(it->second->index);
    } else if (auto b = CanonicalBdf(target)) {
      target = *b;
    }
    if (target.empty()) target = "<gpu>";
    for (size_t p = fix.find("<gpu>"); p != std::string::npos && target != "<gpu>";
         p = fix.find("<gpu>", p)) {
      fix.replace(p, 5, target);
    }
    return fix;
  }

  Evidence Identity(const std::string& entity) const {
    auto it = t_.device_of.find(entity);
    return it != t_.device_of.end() ? GpuIdentity(*it->second) : Evidence{};
  }

  const XidTally& t_;
  const std::vector<int>& fatal_;
  const std::vector<int>& ignored_;
  const std::string log_name_;
  std::map<std::string, int> app_per_gpu_;
  std::map<std::string, std::vector<std::pair<std::string, std::string>>> app_repeats_;
  std::map<int, std::set<std::string>> roots_;  // failing XID -> GPUs
};

std::string LogNote(const std::string& log_name, const gpu::GpuLogEvents& ev) {
  std::string s = log_name + ": " + std::to_string(ev.lines) + " lines, " +
                  std::to_string(ev.xid_lines) + " XID reports in " +
                  std::to_string(ev.events.size()) + " GPU events";
  if (ev.boots > 1) {
    s += ev.all_boots
             ? " (all " + std::to_string(ev.boots) + " boots)"
             : " (the last of " + std::to_string(ev.boots) + " boots; earlier boots not judged)";
  }
  return s;
}

// A GPU state recorded elsewhere (--nvml-state on the live host) with no --kernel-log: this
// machine's /dev/kmsg says nothing about those GPUs, so the unit skips saying what it needs.
std::optional<CheckResult> SkipForeignLog(const CheckContext& ctx,
                                          const Result<gpu::GpuSnapshot>& snap) {
  if (!ctx.kernel_log_path().empty() || !snap.ok() || !RecordingOfAnotherMachine(ctx, *snap))
    return std::nullopt;
  CheckResult skip = CheckResult::Skip(
      "the GPU state is a recording (" + snap->source +
      "): the XID check needs the recorded machine's kernel log (give it with --kernel-log); "
      "this machine's " +
      ctx.host().Resolve(host::kKernelLogPath) + " was not read");
  skip.Note("kernel_log", "not read: the GPU state is not this machine's");
  return skip;
}

// A log too short to show that no XID was written (an empty file, a grep, a truncated copy):
// INCONCLUSIVE with its line count, never a pass. A log that shows a fault is judged whatever
// its length.
std::optional<CheckResult> TooShort(const CheckResult& r, const std::string& log_name,
                                    const gpu::GpuLogEvents& events, int min_lines) {
  if (!r.findings.empty() || events.lines >= static_cast<size_t>(min_lines)) return std::nullopt;
  CheckResult e = CheckResult::Error(Status::Invalid(
      "the kernel log " + log_name + " holds " + std::to_string(events.lines) +
      (events.lines == 1 ? " line" : " lines") + " (the boot judged), fewer than the " +
      std::to_string(min_lines) +
      " a node's log holds: too little to say that no XID was written; give the whole log "
      "(journalctl -k -b, or dmesg)"));
  e.evidence = r.evidence;
  return e;
}

class GpuXidCheck : public Check {
 public:
  CheckResult Run(const CheckContext& ctx) const override {
    CheckResult r;
    const std::string& override_path = ctx.kernel_log_path();
    std::string log_name = override_path.empty() ? ctx.host().Resolve("/dev/kmsg") : override_path;

    const Result<gpu::GpuSnapshot>& snap = ctx.gpu();
    if (!snap.ok() && snap.status().code() == StatusCode::kInvalidInput) {
      return CheckResult::Error(snap.status());
    }
    if (auto skip = SkipForeignLog(ctx, snap)) return *skip;
    auto log = host::ReadKernelLog(ctx.host(), override_path);
    if (!log.ok()) {
      if (!override_path.empty()) return CheckResult::Error(log.status());  // the operator's file
      if (!snap.ok()) return CheckResult::Skip(snap.status().message());
      return CheckResult::Skip("kernel log unreadable (" + log_name + "): " +
                               log.status().message() + "; give a log file with --kernel-log");
    }
    gpu::GpuLogEventOptions options;
    options.burst_window_s = ctx.param<double>("burst_window_s");
    options.all_boots = ctx.param<bool>("all_boots");
    const gpu::GpuLogEvents events = gpu::GroupGpuLogEvents(*log, options);
    const XidTally tally = TallyXidEvents(events, snap);
    r.Note("kernel_log", LogNote(log_name, events));
    if (!snap.ok()) {
      if (events.events.empty()) {
        CheckResult skip = CheckResult::Skip(snap.status().message());
        skip.evidence = r.evidence;
        return skip;
      }
      r.Note("nvml", "unavailable (" + snap.status().message() + "): GPUs named by PCI address");
    }
    XidJudge(tally, ctx.param<std::vector<int>>("fatal_xids"),
             ctx.param<std::vector<int>>("ignored_xids"), log_name)
        .Judge(r);
    if (auto short_log = TooShort(r, log_name, events, ctx.param<int>("min_log_lines")))
      return *short_log;
    if (r.findings.empty()) {
      r.summary = events.xid_lines == 0
                      ? "no XID in the kernel log"
                      : std::to_string(events.xid_lines) + " XID reports in " +
                            std::to_string(events.events.size()) + " events, none needing action";
    }
    return r;
  }
};

}  // namespace

YS_REGISTER(GpuXidCheck,
            {.id = "gpu.xid",
             .summary = "GPU events in the kernel log (XIDs grouped into events, root causes, "
                        "GPUs lost without an XID), judged with NVIDIA's XID catalogue and "
                        "DCGM's fatal list or the site's.",
             .uses = {Need::kGpu},
             .codes = {{"YS-GPU-040", Severity::kFail, "fatal XID in the kernel log"},
                       {"YS-GPU-041", Severity::kWarn,
                        "XID in the kernel log that needs attention"},
                       {"YS-GPU-042", Severity::kWarn, "application XIDs repeated on one GPU"},
                       {"YS-GPU-043", Severity::kFail,
                        "driver reports a GPU lost or not initialised (no XID)"}},
             .params = {{.name = "fatal_xids",
                         .type = ParamType::kInts,
                         .default_value = std::vector<int>{46, 48, 62, 64, 74, 79, 95, 109, 110,
                                                           119, 120, 136, 140, 143, 155, 158},
                         .lo = 1,
                         .hi = 1000,
                         .meaning = "XIDs that fail the node (DCGM's health-module fatal list "
                                    "plus the XIDs NVIDIA's catalogue resolves with a GPU reset "
                                    "or reboot)",
                         .site_table = "gpu"},
                        {.name = "ignored_xids",
                         .type = ParamType::kInts,
                         .default_value = std::vector<int>{},
                         .lo = 1,
                         .hi = 1000,
                         .meaning = "XIDs never reported (noted only)",
                         .site_table = "gpu"},
                        {.name = "burst_window_s",
                         .type = ParamType::kDouble,
                         .default_value = 1.0,
                         .lo = 0,
                         .hi = 3600,
                         .meaning = "lines of one XID on one GPU, each within this many "
                                    "seconds of the one before, are one event",
                         .site_table = "gpu"},
                        {.name = "min_log_lines",
                         .type = ParamType::kInt,
                         .default_value = 10,
                         .lo = 0,
                         .hi = 1000000,
                         .meaning = "a log with fewer lines (in the boot judged) and no fault is "
                                    "inconclusive, not a pass: a boot alone writes hundreds",
                         .site_table = "gpu"},
                        {.name = "all_boots",
                         .type = ParamType::kBool,
                         .default_value = false,
                         .meaning = "true: judge every boot in the log, not only the last",
                         .site_table = "gpu"}}})

}  // namespace ys::checks
