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

class GpuXidCheck : public Check {
 public:
  CheckResult Run(const CheckContext& ctx) const override {
    CheckResult r;
    const auto& policy = ctx.expect().gpu;
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

    // The GPUs by canonical PCI address.
    std::map<std::string, const gpu::GpuDevice*> by_bdf;
    if (snap.ok()) {
      for (const auto& d : snap->devices) {
        if (auto b = CanonicalBdf(d.pci_bus_id)) by_bdf[*b] = &d;
      }
    }

    // (entity, xid) -> occurrences, in the order first seen.
    std::vector<std::pair<std::string, int>> order;
    std::map<std::pair<std::string, int>, Occurrences> seen;
    std::map<std::string, const gpu::GpuDevice*> device_of;
    std::map<std::string, std::string> pci_of;
    int lines = 0;
    for (const auto& line : *log) {
      auto e = gpu::ParseXidLine(line.text);
      if (!e) continue;
      ++lines;
      auto bdf = CanonicalBdf(e->pci);
      std::string entity = bdf.value_or(e->pci);
      if (bdf) {
        if (auto it = by_bdf.find(*bdf); it != by_bdf.end()) {
          entity = GpuEntity(*it->second);
          device_of[entity] = it->second;
        }
      }
      pci_of[entity] = e->pci;
      auto key = std::make_pair(entity, e->xid);
      Occurrences& o = seen[key];
      if (o.count++ == 0) {
        order.push_back(key);
        o.first_s = line.seconds;
        o.first_line = line.text;
      }
      o.last_s = line.seconds;
      o.last_line = line.text;
    }
    r.Note("kernel_log", log_name + ": " + std::to_string(log->size()) + " lines, " +
                             std::to_string(lines) + " XID reports");
    if (!snap.ok()) {
      if (lines == 0) {
        CheckResult skip = CheckResult::Skip(snap.status().message());
        skip.evidence = r.evidence;
        return skip;
      }
      r.Note("nvml", "unavailable (" + snap.status().message() + "): GPUs named by PCI address");
    }

    auto in = [](const std::vector<int>& v, int x) {
      return std::find(v.begin(), v.end(), x) != v.end();
    };
    std::map<std::string, int> app_per_gpu;
    for (const auto& key : order) {
      if (gpu::DcgmXidClass(key.second) == gpu::XidClass::kApplication &&
          !in(policy.fatal_xids, key.second) && !in(policy.ignored_xids, key.second)) {
        app_per_gpu[key.first] += seen[key].count;
      }
    }

    // Replaces "<gpu>" in a fix with the GPU's index, else its PCI address (nvidia-smi -i takes
    // both).
    auto fix_for = [&](const std::string& entity, std::string fix) {
      std::string target = pci_of[entity];
      if (auto it = device_of.find(entity); it != device_of.end()) {
        target = std::to_string(it->second->index);
      } else if (auto b = CanonicalBdf(target)) {
        target = *b;
      }
      for (size_t p = fix.find("<gpu>"); p != std::string::npos; p = fix.find("<gpu>", p)) {
        fix.replace(p, 5, target);
      }
      return fix;
    };
    auto identity = [&](const std::string& entity) {
      auto it = device_of.find(entity);
      return it != device_of.end() ? GpuIdentity(*it->second) : Evidence{};
    };
    constexpr const char* kReference =
        "DCGM health module XID mappings (BuildXidMappings); NVIDIA XID catalog "
        "(docs.nvidia.com/deploy/xid-errors/); NVSentinel health-events analyzer (repeats)";

    std::map<std::string, std::vector<std::pair<std::string, std::string>>> app_repeats;
    for (const auto& key : order) {
      const auto& [entity, xid] = key;
      const Occurrences& o = seen[key];
      gpu::XidClass cls = gpu::DcgmXidClass(xid);
      std::string what = "XID " + std::to_string(xid) + " (" + std::string(gpu::XidMeaning(xid)) +
                         ") x" + std::to_string(o.count) + ", first " + Seconds(o.first_s);
      if (in(policy.ignored_xids, xid)) {
        r.Note(entity + ".xid" + std::to_string(xid), what + "; ignored by site policy");
        continue;
      }
      bool fatal = in(policy.fatal_xids, xid);
      if (!fatal && cls == gpu::XidClass::kApplication) {
        if (app_per_gpu[entity] < kApplicationRepeats) {
          r.Note(entity + ".xid" + std::to_string(xid), what + "; an application fault");
        } else {
          app_repeats[entity].emplace_back("XID " + std::to_string(xid) + " x" +
                                               std::to_string(o.count) + " (" + Seconds(o.first_s) +
                                               ")",
                                           o.last_line);
        }
        continue;
      }
      Finding f =
          MakeFinding(fatal ? "YS-GPU-040" : "YS-GPU-041", entity,
                      "XID " + std::to_string(xid) + ": " + std::string(gpu::XidMeaning(xid)) +
                          (o.count > 1 ? " (" + std::to_string(o.count) + " times)" : ""));
      f.evidence = identity(entity);
      f.evidence.emplace_back("xid", std::to_string(xid) + " (DCGM: " + gpu::XidClassName(cls) +
                                         (fatal ? "; site fatal list" : "") + ")");
      f.evidence.emplace_back("first (" + Seconds(o.first_s) + ")", o.first_line);
      if (o.count > 1) f.evidence.emplace_back("last (" + Seconds(o.last_s) + ")", o.last_line);
      f.evidence.emplace_back("kernel log", log_name);
      f.fix = fix_for(entity, std::string(gpu::XidFix(xid)));
      f.reference = kReference;
      r.Add(std::move(f));
    }
    for (const auto& [entity, xids] : app_repeats) {
      Finding f = MakeFinding("YS-GPU-042", entity,
                              std::to_string(app_per_gpu[entity]) +
                                  " application XIDs on this one GPU: a fault that repeats on one "
                                  "GPU is the GPU's, not the application's");
      f.evidence = identity(entity);
      for (const auto& [k, v] : xids) f.evidence.emplace_back(k, v);
      f.evidence.emplace_back("kernel log", log_name);
      f.fix = fix_for(entity,
                      "drain the node and run dcgmi diag -r 3 -i <gpu>; RMA the GPU if the "
                      "diagnostic fails");
      f.reference = kReference;
      r.Add(std::move(f));
    }
    if (r.findings.empty()) {
      r.summary = lines == 0 ? "no XID in the kernel log"
                             : std::to_string(lines) + " XID reports, none needing action";
    }
    return r;
  }
};

}  // namespace

YS_REGISTER(GpuXidCheck,
            {.id = "gpu.xid",
             .summary = "XIDs in the kernel log by GPU, classified with DCGM's fatal list "
                        "or the site's.",
             .uses = {Need::kGpu}})

}  // namespace ys::checks
