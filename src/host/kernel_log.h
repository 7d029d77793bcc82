// The kernel log: /dev/kmsg under the host root (a plain file in a fixture tree) or a file given
// by the operator. Accepts kmsg records ("6,339,5140900,-;text"), dmesg lines
// ("[    5.140900] text") and plain lines.
#ifndef YARDSTICK_HOST_KERNEL_LOG_H_
#define YARDSTICK_HOST_KERNEL_LOG_H_

#include <string>
#include <vector>

#include "core/status.h"
#include "host/host.h"

namespace ys::host {

// The kernel log under the root: a character device on the live host, a file in a recorded tree.
inline constexpr const char* kKernelLogPath = "/dev/kmsg";

struct KernelLogLine {
  int priority = -1;    // syslog priority from a kmsg record, -1 when unknown
  double seconds = -1;  // since boot, -1 when unknown
  std::string text;
};

std::vector<KernelLogLine> ParseKernelLog(std::string_view content);

// `override_path`, when not empty, is read from the real file system (not under the root).
Result<std::vector<KernelLogLine>> ReadKernelLog(const Host& host,
                                                 const std::string& override_path = "");

}  // namespace ys::host

#endif  // YARDSTICK_HOST_KERNEL_LOG_H_
