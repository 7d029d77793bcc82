// serving.xid: the GPU driver reported XIDs while a serving phase that fell short ran: NVRM Xid
// lines in a log of the phase's folder (a kernel log, the server's log; gpu/xid.h reads them),
// or DCGM's XID field in AIPerf's GPU telemetry. The worst XID (DCGM's fatal class first) names
// the cause and NVIDIA's catalogue gives its fix.
//
// What it costs is not in the evidence (an XID stops, restarts or slows work). Not evaluated, and
// said so: a phase whose folder holds no log and no telemetry with the XID field.
#include <fmt/format.h>

#include <algorithm>

#include "core/text.h"
#include "diagnose/rule.h"

namespace ys::diagnose {
namespace {

// Fatal first, then the other subsystem XIDs, then those usually the application's own.
int XidRank(int xid) {
  switch (gpu::DcgmXidClass(xid)) {
    case gpu::XidClass::kFatal:
      return 0;
    case gpu::XidClass::kWarn:
      return 1;
    case gpu::XidClass::kUnlisted:
      return 2;
    case gpu::XidClass::kApplication:
      return 3;
  }
  return 2;
}

struct SeenXid {
  int xid;
  std::string where;   // "dmesg.txt:812" or the GPU of the telemetry
  std::string detail;  // "Xid 79 at 0000:1b:00: GPU has fallen off the bus"
};

std::vector<SeenXid> XidsOf(const ServingPhaseEvidence& e) {
  std::vector<SeenXid> out;
  for (const ServingXidSeen& x : e.xids) {
    out.push_back(
        {x.xid.xid, fmt::format("{}:{}", x.file, x.line),
         fmt::format("Xid {} at {}: {}", x.xid.xid, x.xid.pci, gpu::XidMeaning(x.xid.xid))});
  }
  for (const GpuRunReadings& g : e.gpus) {
    if (!g.last_xid || *g.last_xid <= 0) continue;
    out.push_back(
        {*g.last_xid, g.gpu + " (" + g.source + ")",
         fmt::format("DCGM's last Xid {}: {}", *g.last_xid, gpu::XidMeaning(*g.last_xid))});
  }
  std::stable_sort(out.begin(), out.end(), [](const SeenXid& a, const SeenXid& b) {
    return XidRank(a.xid) < XidRank(b.xid);
  });
  return out;
}

class ServingXidRule : public Rule {
 public:
  std::vector<Diagnosis> Evaluate(const DiagnosisInput& in) const override {
    std::vector<Diagnosis> out;
    for (const ServingPhaseEvidence& e : in.serving) {
      if (!e.FellShort()) continue;
      std::vector<SeenXid> seen = XidsOf(e);
      if (seen.empty()) continue;
      Diagnosis d;
      d.rule = "serving.xid";
      d.layer = "gpu";
      d.entity = PhaseEntity(e);
      constexpr size_t kShown = 10;
      for (size_t i = 0; i < seen.size() && i < kShown; ++i) {
        d.evidence.emplace_back(seen[i].where, seen[i].detail);
      }
      if (seen.size() > kShown) {
        d.evidence.emplace_back("more", fmt::format("{} more XID report(s)", seen.size() - kShown));
      }
      d.cause = fmt::format("the GPU driver reported {} XID(s) while phase {} ran; the worst: {}",
                            seen.size(), e.row.id, seen.front().detail);
      d.recovery = NotQuantified(
          "an XID stops, restarts or slows work; what it cost the phase is "
          "not in the evidence");
      int rank = XidRank(seen.front().xid);
      d.confidence = rank == 0   ? Confidence::kHigh
                     : rank == 3 ? Confidence::kLow
                                 : Confidence::kMedium;
      d.fix = gpu::XidFix(seen.front().xid);
      d.reference = "docs/xid-catalogue.md";
      out.push_back(std::move(d));
    }
    return out;
  }

  std::vector<std::string> Unjudged(const DiagnosisInput& in) const override {
    std::vector<std::string> out;
    for (const ServingPhaseEvidence& e : in.serving) {
      if (!e.FellShort() || e.dir.empty()) continue;
      bool xid_field = std::any_of(e.gpus.begin(), e.gpus.end(),
                                   [](const GpuRunReadings& g) { return g.last_xid.has_value(); });
      if (e.logs.empty() && !xid_field) {
        out.push_back(
            fmt::format("phase {}: no log in {} to look for XIDs (keep the kernel log of the run: "
                        "dmesg -T > {}/dmesg.txt)",
                        e.row.id, e.dir, e.dir));
      }
    }
    return out;
  }
};

}  // namespace

YS_REGISTER(ServingXidRule,
            {.id = "serving.xid",
             .summary = "a serving phase fell short while the GPU driver reported XIDs (logs or "
                        "DCGM telemetry in the phase's folder)"});

}  // namespace ys::diagnose
