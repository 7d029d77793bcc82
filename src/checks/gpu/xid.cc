// gpu.xid: the XIDs the NVIDIA driver wrote to the kernel log (/dev/kmsg under the root, or the
// file given with --kernel-log), mapped from the PCI address to the GPU NVML lists and classified
// as DCGM does: the site's fatal list (DCGM's by default) fails, DCGM's other subsystem XIDs and
// XIDs in no list warn, and the application XIDs 13, 31, 43 and 45 are noted as application
// faults unless they repeat on one GPU.
//
// Without NVML the log is still read: a GPU that fell off the bus can keep NVML from starting,
// and then the XIDs are the evidence. With neither NVML nor an XID in the log the unit skips.
#include "gpu/xid.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "checks/gpu/internal/gpu_common.h"
#include "host/kernel_log.h"

namespace ys::checks {
namespace {

constexpr int kApplicationRepeats = 2;  // NVSentinel: XID 13/31 twice on one GPU -> diagnose

struct Occurrences {
  int count = 0;
  double first_s = -1, last_s = -1;
  std::string first_line, last_line;
};

std::string Seconds(double s) {
  if (s < 0) return "time unknown";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f s after boot", s);
  return buf;
}

// The XID reports of the kernel log, by (entity, xid) in the order first seen. An entity is the
// GPU NVML lists at the report's PCI address, else the address.
struct XidTally {
  std::vector<std::pair<std::string, int>> order;
  std::map<std::pair<std::string, int>, Occurrences> seen;
  std::map<std::string, const gpu::GpuDevice*> device_of;
  std::map<std::string, std::string> pci_of;
  int lines = 0;  // XID reports
};

XidTally TallyXids(const std::vector<host::KernelLogLine>& log,
                   const Result<gpu::GpuSnapshot>& snap) {
  // The GPUs by canonical PCI address.
  std::map<std::string, const gpu::GpuDevice*> by_bdf;
  if (snap.ok()) {
    for (const auto& d : snap->devices) {
      if (auto b = CanonicalBdf(d.pci_bus_id)) by_bdf[*b] = &d;
    }
  }
  XidTally t;
  for (const auto& line : log) {
    auto e = gpu::ParseXidLine(line.text);
    if (!e) continue;
    ++t.lines;
    auto bdf = CanonicalBdf(e->pci);
    std::string entity = bdf.value_or(e->pci);
    if (bdf) {
      if (auto it = by_bdf.find(*bdf); it != by_bdf.end()) {
        entity = GpuEntity(*it->second);
        t.device_of[entity] = it->second;
      }
    }
    t.pci_of[entity] = e->pci;
    auto key = std::make_pair(entity, e->xid);
    Occurrences& o = t.seen[key];
    if (o.count++ == 0) {
      t.order.push_back(key);
      o.first_s = line.seconds;
      o.first_line = line.text;
    }
    o.last_s = line.seconds;
    o.last_line = line.text;
  }
  return t;
}

bool Contains(const std::vector<int>& v, int x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

constexpr const char* kXidReference =
    "DCGM health module XID mappings (BuildXidMappings); NVIDIA XID catalog "
    "(docs.nvidia.com/deploy/xid-errors/); NVSentinel health-events analyzer (repeats)";

// Turns a tally into findings and notes under the site's fatal and ignored lists.
class XidJudge {
 public:
  XidJudge(const XidTally& t, const std::vector<int>& fatal, const std::vector<int>& ignored,
           std::string log_name)
      : t_(t), fatal_(fatal), ignored_(ignored), log_name_(std::move(log_name)) {
    for (const auto& key : t_.order) {
      if (gpu::DcgmXidClass(key.second) == gpu::XidClass::kApplication &&
          !Contains(fatal_, key.second) && !Contains(ignored_, key.second)) {
        app_per_gpu_[key.first] += t_.seen.at(key).count;
      }
    }
  }

  void Judge(CheckResult& r) {
    for (const auto& key : t_.order) JudgeOne(key.first, key.second, t_.seen.at(key), r);
    for (const auto& [entity, xids] : app_repeats_) ReportRepeats(entity, xids, r);
  }

 private:
  void JudgeOne(const std::string& entity, int xid, const Occurrences& o, CheckResult& r) {
    gpu::XidClass cls = gpu::DcgmXidClass(xid);
    std::string what = "XID " + std::to_string(xid) + " (" + std::string(gpu::XidMeaning(xid)) +
                       ") x" + std::to_string(o.count) + ", first " + Seconds(o.first_s);
    if (Contains(ignored_, xid)) {
      r.Note(entity + ".xid" + std::to_string(xid), what + "; ignored by site policy");
      return;
    }
    bool fatal = Contains(fatal_, xid);
    if (!fatal && cls == gpu::XidClass::kApplication) {
      if (app_per_gpu_[entity] < kApplicationRepeats) {
        r.Note(entity + ".xid" + std::to_string(xid), what + "; an application fault");
      } else {
        app_repeats_[entity].emplace_back("XID " + std::to_string(xid) + " x" +
                                              std::to_string(o.count) + " (" + Seconds(o.first_s) +
                                              ")",
                                          o.last_line);
      }
      return;
    }
    Finding f =
        MakeFinding(fatal ? "YS-GPU-040" : "YS-GPU-041", entity,
                    "XID " + std::to_string(xid) + ": " + std::string(gpu::XidMeaning(xid)) +
                        (o.count > 1 ? " (" + std::to_string(o.count) + " times)" : ""));
    f.evidence = Identity(entity);
    f.evidence.emplace_back("xid", std::to_string(xid) + " (DCGM: " + gpu::XidClassName(cls) +
                                       (fatal ? "; site fatal list" : "") + ")");
    f.evidence.emplace_back("first (" + Seconds(o.first_s) + ")", o.first_line);
    if (o.count > 1) f.evidence.emplace_back("last (" + Seconds(o.last_s) + ")", o.last_line);
    f.evidence.emplace_back("kernel log", log_name_);
    f.fix = FixFor(entity, std::string(gpu::XidFix(xid)));
    f.reference = kXidReference;
    r.Add(std::move(f));
  }

  void ReportRepeats(const std::string& entity,
                     const std::vector<std::pair<std::string, std::string>>& xids, CheckResult& r) {
    Finding f = MakeFinding("YS-GPU-042", entity,
                            std::to_string(app_per_gpu_[entity]) +
                                " application XIDs on this one GPU: a fault that repeats on one "
                                "GPU is the GPU's, not the application's");
    f.evidence = Identity(entity);
    for (const auto& [k, v] : xids) f.evidence.emplace_back(k, v);
    f.evidence.emplace_back("kernel log", log_name_);
    f.fix = FixFor(entity,
                   "drain the node and run dcgmi diag -r 3 -i <gpu>; RMA the GPU if the "
                   "diagnostic fails");
    f.reference = kXidReference;
    r.Add(std::move(f));
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
    for (size_t p = fix.find("<gpu>"); p != std::string::npos; p = fix.find("<gpu>", p)) {
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
};

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
    auto log = host::ReadKernelLog(ctx.host(), override_path);
    if (!log.ok()) {
      if (!override_path.empty()) return CheckResult::Error(log.status());  // the operator's file
      if (!snap.ok()) return CheckResult::Skip(snap.status().message());
      return CheckResult::Skip("kernel log unreadable (" + log_name + "): " +
                               log.status().message() + "; give a log file with --kernel-log");
    }

    const XidTally tally = TallyXids(*log, snap);
    r.Note("kernel_log", log_name + ": " + std::to_string(log->size()) + " lines, " +
                             std::to_string(tally.lines) + " XID reports");
    if (!snap.ok()) {
      if (tally.lines == 0) {
        CheckResult skip = CheckResult::Skip(snap.status().message());
        skip.evidence = r.evidence;
        return skip;
      }
      r.Note("nvml", "unavailable (" + snap.status().message() + "): GPUs named by PCI address");
    }
    XidJudge(tally, ctx.param<std::vector<int>>("fatal_xids"),
             ctx.param<std::vector<int>>("ignored_xids"), log_name)
        .Judge(r);
    if (r.findings.empty()) {
      r.summary = tally.lines == 0
                      ? "no XID in the kernel log"
                      : std::to_string(tally.lines) + " XID reports, none needing action";
    }
    return r;
  }
};

}  // namespace

YS_REGISTER(GpuXidCheck,
            {.id = "gpu.xid",
             .summary = "XIDs in the kernel log by GPU, classified with DCGM's fatal list "
                        "or the site's.",
             .uses = {Need::kGpu},
             .params = {{.name = "fatal_xids",
                         .type = ParamType::kInts,
                         .default_value = std::vector<int>{48, 64, 74, 79, 95, 119, 120, 140},
                         .lo = 1,
                         .hi = 1000,
                         .meaning = "XIDs that fail the node (DCGM's health-module fatal list)",
                         .site_table = "gpu"},
                        {.name = "ignored_xids",
                         .type = ParamType::kInts,
                         .default_value = std::vector<int>{},
                         .lo = 1,
                         .hi = 1000,
                         .meaning = "XIDs never reported (noted only)",
                         .site_table = "gpu"}}})

}  // namespace ys::checks
