#include "checks/gpu/internal/xid_tally.h"

#include "checks/gpu/internal/gpu_common.h"

namespace ys::checks {
namespace {

class Tallier {
 public:
  Tallier(const gpu::GpuLogEvents& events, const Result<gpu::GpuSnapshot>& snap, XidTally& t)
      : events_(events), t_(t) {
    if (snap.ok()) {
      for (const auto& d : snap->devices) {
        if (auto b = CanonicalBdf(d.pci_bus_id)) by_bdf_[*b] = &d;
      }
    }
  }

  void Add(const gpu::GpuLogEvent& e) {
    std::string entity = Entity(e.pci);
    if (e.kind != gpu::GpuLogKind::kXid) {
      t_.driver_messages.emplace_back(entity, &e);
      return;
    }
    if (e.follows >= 0) {
      // The root's own cause when the root is known only by the cause its line names.
      const gpu::GpuLogEvent& root = events_.events[e.follows];
      int root_xid = root.xid.caused_by != 0 ? root.xid.caused_by : root.xid.xid;
      ++Entry(Entity(root.pci), root_xid, root).consequences[e.xid.xid];
      return;
    }
    if (e.xid.caused_by != 0) {  // the cause is not in the log: known from this line only
      bool fresh = index_.count({entity, e.xid.caused_by}) == 0;
      XidTallyEntry& c = Entry(entity, e.xid.caused_by, e);
      if (fresh) c.from_cause = true;
      ++c.consequences[e.xid.xid];
      return;
    }
    XidTallyEntry& x = Entry(entity, e.xid.xid, e);
    x.from_cause = false;
    ++x.events;
    x.lines += e.lines;
    if (x.events > 1 || x.lines > e.lines) {
      x.last_when = e.last_when;
      x.last_line = e.last_line;
    }
    if (e.xid.stated == gpu::XidStated::kFatal ||
        (e.xid.stated == gpu::XidStated::kNonfatal && x.stated == gpu::XidStated::kUnstated))
      x.stated = e.xid.stated;
    if (e.xid.recovery != gpu::RecoveryAction::kUnknown) x.recovery = e.xid.recovery;
  }

 private:
  // The GPU NVML lists at the address, else the address; "node" when the message names none.
  std::string Entity(const std::string& pci) {
    if (pci.empty()) return "node";
    auto bdf = CanonicalBdf(pci);
    std::string entity = bdf.value_or(pci);
    if (bdf) {
      if (auto it = by_bdf_.find(*bdf); it != by_bdf_.end()) {
        entity = GpuEntity(*it->second);
        t_.device_of[entity] = it->second;
      }
    }
    t_.pci_of[entity] = pci;
    return entity;
  }

  XidTallyEntry& Entry(const std::string& entity, int xid, const gpu::GpuLogEvent& e) {
    auto key = std::make_pair(entity, xid);
    auto it = index_.find(key);
    if (it != index_.end()) return t_.entries[it->second];
    index_[key] = t_.entries.size();
    XidTallyEntry x;
    x.entity = entity;
    x.xid = xid;
    x.first_when = x.last_when = e.first_when;
    x.first_line = e.first_line;
    x.last_line = e.last_line;
    x.last_when = e.last_when;
    t_.entries.push_back(std::move(x));
    return t_.entries.back();
  }

  const gpu::GpuLogEvents& events_;
  XidTally& t_;
  std::map<std::string, const gpu::GpuDevice*> by_bdf_;
  std::map<std::pair<std::string, int>, size_t> index_;
};

}  // namespace

XidTally TallyXidEvents(const gpu::GpuLogEvents& events, const Result<gpu::GpuSnapshot>& snap) {
  XidTally t;
  Tallier tallier(events, snap, t);
  for (const auto& e : events.events) tallier.Add(e);
  return t;
}

}  // namespace ys::checks
