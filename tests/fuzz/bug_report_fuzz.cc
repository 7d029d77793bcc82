// Fuzz target: the nvidia-bug-report log (host/bug_report.cc ParseBugReport: sections, the
// nvidia-smi command outputs, the kernel-message scan, copied files) and, for a gzip input, the
// multi-member gunzip in front of it (host/kernel_config.cc Gunzip).
#include "fuzz_target.h"
#include "fuzz_util.h"
#include "host/bug_report.h"
#include "host/kernel_config.h"

YS_FUZZ_TARGET(bug_report) {
  std::string_view text = ys::fuzz::AsText(data, size);
  if (size >= 2 && data[0] == 0x1f && data[1] == 0x8b) {
    auto plain = ys::host::Gunzip(text, 1 << 20);
    if (plain.ok()) (void)ys::host::ParseBugReport(*plain);
    return 0;
  }
  (void)ys::host::ParseBugReport(text);
  return 0;
}
