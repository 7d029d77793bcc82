// Fuzz target: the kernel log (host/kernel_log.cc ParseKernelLog: kmsg records, dmesg in its
// raw, -T, iso and -x forms, syslog and journalctl lines, journal JSON, boot markers), the NVRM
// Xid reports in its lines (gpu/xid.cc ParseXidLine) and their grouping into GPU events
// (gpu/xid_events.cc).
#include "fuzz_target.h"
#include "fuzz_util.h"
#include "gpu/xid.h"
#include "gpu/xid_events.h"
#include "host/kernel_log.h"

YS_FUZZ_TARGET(kernel_log) {
  auto log = ys::host::ParseKernelLog(ys::fuzz::AsText(data, size));
  for (const auto& line : log) {
    if (auto xid = ys::gpu::ParseXidLine(line.text)) {
      (void)ys::gpu::DcgmXidClass(xid->xid);
      (void)ys::gpu::XidFix(xid->xid);
    }
  }
  ys::gpu::GpuLogEventOptions all;
  all.all_boots = true;
  const auto grouped = ys::gpu::GroupGpuLogEvents(log, all);
  for (const auto& e : grouped.events) {
    // A consequence points at an earlier event.
    if (e.follows >= static_cast<int>(grouped.events.size())) __builtin_trap();
  }
  (void)ys::host::LastBoot(log);
  return 0;
}
