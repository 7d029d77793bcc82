// Fuzz target: the kernel log (host/kernel_log.cc ParseKernelLog: kmsg records, dmesg lines,
// plain lines) and the NVRM Xid reports in its lines (gpu/xid.cc ParseXidLine).
#include "fuzz_target.h"
#include "fuzz_util.h"
#include "gpu/xid.h"
#include "host/kernel_log.h"

YS_FUZZ_TARGET(kernel_log) {
  for (const auto& line : ys::host::ParseKernelLog(ys::fuzz::AsText(data, size))) {
    if (auto xid = ys::gpu::ParseXidLine(line.text)) (void)ys::gpu::DcgmXidClass(xid->xid);
  }
  return 0;
}
