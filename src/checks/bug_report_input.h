// `preflight --bug-report FILE`: an nvidia-bug-report log judged offline. The report is laid out
// in a private scratch directory as the inputs preflight already reads: a host tree of the /proc,
// /sys and /etc files the script copied (so nothing of the machine yardstick runs on is judged),
// the `nvidia-smi --query` output as the GPU state, and the kernel log of the report's boot.
#ifndef YARDSTICK_CHECKS_BUG_REPORT_INPUT_H_
#define YARDSTICK_CHECKS_BUG_REPORT_INPUT_H_

#include <string>
#include <vector>

#include "core/run_document.h"
#include "core/scratch_dir.h"
#include "core/status.h"

namespace ys::checks {

struct StagedBugReport {
  std::string report_path;  // as the user named it
  ScratchDir scratch;       // removed with everything in it when this goes
  std::string root;         // the host tree
  std::string nvml_state;   // the nvidia-smi --query text; empty when the report has none
  std::string kernel_log;   // the kernel log; empty when the report has none
  // `nvidia-smi nvlink --status` then `--errorcounters` as the report holds them (empty: none).
  std::string nvlink_output;
  // Why the GPU state is missing (a report made with --safe-mode has no nvidia-smi output).
  std::string no_gpu_state_reason;
  std::vector<std::string> warnings;  // what the run document says about where it came from
};

// Reads and lays out the report; errors name the file (exit 2).
Result<StagedBugReport> StageBugReport(const std::string& path);

// The run document speaks of the report, not of the scratch directory: every mention of the
// scratch paths (warnings, host root, evidence) is rewritten to name the report and its section.
void AttributeToBugReport(const StagedBugReport& staged, RunDocument& doc);

}  // namespace ys::checks

#endif  // YARDSTICK_CHECKS_BUG_REPORT_INPUT_H_
