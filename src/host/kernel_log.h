// The kernel log: /dev/kmsg under the host root (a plain file in a fixture tree) or a file given
// by the operator, in any of the forms the driver's messages reach an operator:
//
//   6,1234,5678901,-;NVRM: Xid ...                              /dev/kmsg records
//   [ 5678.901234] NVRM: Xid ...                                 dmesg (raw), dmesg -r ("<6>[...")
//   [Tue Mar  5 10:11:12 2024] NVRM: Xid ...                     dmesg -T
//   2024-03-05T10:11:12,123456+00:00 NVRM: Xid ...               dmesg --time-format iso
//   kern  :warn  : [ 5678.901234] NVRM: Xid ...                  dmesg -x
//   Mar 05 10:11:12 host kernel: NVRM: Xid ...                   journalctl -k, /var/log/syslog
//   2024-03-05T10:11:12+0000 host kernel: NVRM: Xid ...          journalctl -k -o short-iso
//   {"MESSAGE":"NVRM: Xid ...","__REALTIME_TIMESTAMP":"..."}     journalctl -k -o json
//   plain text                                                   a grep of any of these
//
// A syslog prefix may be followed by the kernel's own "[ 5678.9]" stamp; both are read. A line
// indented under another (dmesg prints a multi-line message so) continues it; kmsg's " KEY=value"
// dictionary lines are dropped.
//
// Boots: journalctl's "-- Boot <id> --" and "-- Reboot --" markers, a change of _BOOT_ID in JSON,
// a "Linux version" line after other lines, and the time since boot going backwards each start a
// new boot. Checks judge the last boot (the one running now) unless asked for all.
#ifndef YARDSTICK_HOST_KERNEL_LOG_H_
#define YARDSTICK_HOST_KERNEL_LOG_H_

#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "host/host.h"

namespace ys::host {

// The kernel log under the root: a character device on the live host, a file in a recorded tree.
inline constexpr const char* kKernelLogPath = "/dev/kmsg";

struct KernelLogLine {
  int priority = -1;    // syslog priority from a kmsg record or "<N>", -1 when unknown
  double seconds = -1;  // since boot, -1 when unknown
  double wall = -1;     // wall-clock seconds since 1970 (as printed, zone ignored), -1 unknown;
                        // a syslog stamp without a year counts from 1970
  std::string stamp;    // the wall-clock stamp as printed ("Tue Mar  5 10:11:12 2024"), or ""
  int boot = 0;         // 0 for the first boot in the text, +1 at each boot boundary
  std::string text;     // the message, prefixes removed
};

std::vector<KernelLogLine> ParseKernelLog(std::string_view content);

// The lines of the last boot in `log` (the whole log when it holds one boot).
std::vector<KernelLogLine> LastBoot(const std::vector<KernelLogLine>& log);
// How many boots `log` spans (0 for an empty log).
int BootCount(const std::vector<KernelLogLine>& log);

// `override_path`, when not empty, is read from the real file system (not under the root).
Result<std::vector<KernelLogLine>> ReadKernelLog(const Host& host,
                                                 const std::string& override_path = "");

}  // namespace ys::host

#endif  // YARDSTICK_HOST_KERNEL_LOG_H_
