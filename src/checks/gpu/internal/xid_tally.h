// gpu.xid's reading of the kernel log's GPU events (gpu/xid_events.h): per GPU and XID, how many
// events (not lines), which later XIDs followed from them, and which XIDs the log knows only as
// the stated cause of another ("caused by previous Xid 149").
#ifndef YARDSTICK_CHECKS_GPU_INTERNAL_XID_TALLY_H_
#define YARDSTICK_CHECKS_GPU_INTERNAL_XID_TALLY_H_

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/status.h"
#include "gpu/gpu_snapshot.h"
#include "gpu/xid_events.h"

namespace ys::checks {

struct XidTallyEntry {
  std::string entity;
  int xid = 0;
  int events = 0;                   // events of this XID on this GPU (a burst of lines is one)
  int lines = 0;                    // log lines of those events
  bool from_cause = false;          // seen only as the stated cause of other XIDs
  std::map<int, int> consequences;  // XID -> events that followed from these
  gpu::XidStated stated = gpu::XidStated::kUnstated;  // the worst the driver stated
  gpu::RecoveryAction recovery = gpu::RecoveryAction::kUnknown;
  std::string first_when, last_when, first_line, last_line;
};

struct XidTally {
  std::vector<XidTallyEntry> entries;  // in first-seen order
  std::vector<std::pair<std::string, const gpu::GpuLogEvent*>> driver_messages;  // no XID
  std::map<std::string, const gpu::GpuDevice*> device_of;
  std::map<std::string, std::string> pci_of;
};

XidTally TallyXidEvents(const gpu::GpuLogEvents& events, const Result<gpu::GpuSnapshot>& snap);

}  // namespace ys::checks

#endif  // YARDSTICK_CHECKS_GPU_INTERNAL_XID_TALLY_H_
