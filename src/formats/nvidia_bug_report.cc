// Format unit: nvidia-bug-report.log(.gz), what nvidia-bug-report.sh writes for a support case.
#include "formats/format_text.h"
#include "host/bug_report.h"

namespace ys::formats {
namespace {

FormatSniff SniffBugReport(std::string_view head) {
  if (StartsWith(head, "\x1f\x8b")) return Fragment("gzip data", "a look inside before reading");
  if (auto line = FirstLine(head, [](std::string_view l) {
        return l.find("nvidia-bug-report.sh") != std::string_view::npos;
      })) {
    return Whole(Clip(*line));
  }
  return {};
}

Result<std::any> ReadBugReport(const FormatRequest& r) {
  auto report = host::ReadBugReport(r.path);
  if (!report.ok()) return report.status();
  return std::any(std::move(*report));
}

}  // namespace

YS_FORMAT(SniffBugReport, ReadBugReport,
          {.name = "nvidia-bug-report",
           .produces = FormatProduct::kBugReport,
           .summary = "nvidia-bug-report.log or .log.gz (nvidia-bug-report.sh): its nvidia-smi "
                      "query, NVLink outputs, kernel log and /proc, /sys files",
           .example = "nvidia-bug-report.sh Version: 32599928"})

}  // namespace ys::formats
