// Format unit: a kernel log in any form the driver's messages reach an operator (host/kernel_log.h
// lists them: /dev/kmsg records, dmesg raw, -r, -T, iso and -x, journalctl -k short, short-iso
// and json, /var/log/syslog), mixed forms included.
#include "host/kernel_log.h"

#include "core/document_file.h"
#include "formats/format_text.h"
#include "host/kernel_log_formats.h"

namespace ys::formats {
namespace {

FormatSniff SniffKernelLog(std::string_view head) {
  int lines = 0, stamped = 0, nvrm = 0;
  std::string first;
  FirstLine(head, [&](std::string_view l) {
    if (Trim(l).empty()) return false;
    ++lines;
    host::klog::LinePrefix p = host::klog::ParseLinePrefix(l);
    if (p.seconds >= 0 || p.wall >= 0 || p.priority >= 0) {
      if (stamped++ == 0) first = Clip(l);
    }
    if (l.find("NVRM:") != std::string_view::npos) ++nvrm;
    return lines >= 400;
  });
  if (stamped > 0 && stamped * 2 >= lines) {
    return Whole(std::to_string(stamped) + " of " + std::to_string(lines) +
                 " lines carry a kernel-log time stamp: " + first);
  }
  if (stamped > 0 || nvrm > 0) {
    return Fragment(std::to_string(stamped) + " of " + std::to_string(lines) + " lines stamped, " +
                        std::to_string(nvrm) + " NVRM line(s)",
                    "a time stamp on most lines (a grep of a kernel log keeps its NVRM lines "
                    "only)");
  }
  return {};
}

Result<std::any> ReadKernelLogFile(const FormatRequest& r) {
  auto text = ReadDocumentFile(r.path, DocumentKind::kKernelLog);
  if (!text.ok()) return text.status();
  return std::any(host::ParseKernelLog(*text));
}

}  // namespace

YS_FORMAT(
    SniffKernelLog, ReadKernelLogFile,
    {.name = "kernel-log",
     .produces = FormatProduct::kKernelLog,
     .summary = "a kernel log: /dev/kmsg records, dmesg (raw, -r, -T, --time-format iso, -x), "
                "journalctl -k (short, short-iso, json) or /var/log/syslog",
     .example = "[ 5678.901234] NVRM: Xid (PCI:0000:17:00): 79, pid=1234, GPU has fallen off "
                "the bus."})

}  // namespace ys::formats
