// nvidia-bug-report.log(.gz): the file NVIDIA's nvidia-bug-report.sh writes and operators attach to
// support cases. It is one text of sections, each opened by a line of underscores; the script
// writes a file as "*** PATH", an "*** ls:" line and the content, a command as its command line
// and its output ("/usr/bin/nvidia-smi --query"), the ring buffer as "dmesg:" and the journal's
// NVIDIA lines under "Scanning kernel log files for NVIDIA kernel messages:". The .gz form is one
// gzip member per section, appended; a plain (gunzipped) file is read as well.
//
// The reader keeps what a check can judge offline: the `nvidia-smi --query` output (a GPU state
// dump), the `nvidia-smi nvlink` outputs, the kernel log of the boot the report was taken in, and
// the /proc and /sys files the script copied. Format: docs/bug-report.md. Thread-safe: no state.
#ifndef YARDSTICK_HOST_BUG_REPORT_H_
#define YARDSTICK_HOST_BUG_REPORT_H_

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace ys::host {

// The largest report read, decompressed: a report of a 8-GPU node with a long journal is tens
// of megabytes; the debug dumps it base64-encodes are the bulk.
inline constexpr size_t kMaxBugReportBytes = size_t{512} << 20;

struct BugReport {
  std::string version;  // "nvidia-bug-report.sh Version: 32599928" -> "32599928"
  std::string date;     // the "Date:" line as written
  std::string uname;    // the "uname:" line as written

  std::string smi_query;          // `nvidia-smi --query` output; empty when the report has none
  std::string nvlink_status;      // `nvidia-smi nvlink --status`
  std::string nvlink_errors;      // `nvidia-smi nvlink --errorcounters`
  std::string kernel_log;         // the kernel log of the report's boot (see kernel_log_source)
  std::string kernel_log_source;  // "the dmesg section", "journalctl -b -0 in the kernel scan"
  // Files the script copied ("*** /proc/driver/nvidia/version"), by absolute path; only /proc,
  // /sys and /etc paths are kept.
  std::map<std::string, std::string> files;
  // What the report says it could not collect ("nvidia-smi: Skipping ... (--safe-mode)").
  std::vector<std::string> notes;
};

// Invalid when the text has none of the script's section lines (not a bug report), naming what
// was expected. The text may hold a truncated report (the script hung): what it has is kept.
Result<BugReport> ParseBugReport(std::string_view text);

// Reads PATH (gzip or plain text, at most kMaxBugReportBytes decompressed) and parses it; errors
// name the file.
Result<BugReport> ReadBugReport(const std::string& path);

}  // namespace ys::host

#endif  // YARDSTICK_HOST_BUG_REPORT_H_
