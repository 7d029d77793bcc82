// A preflight run: the checks of this node (or of a recorded host tree) assembled into a run
// document with host identity, tool version and the conditions that make results untrustworthy.
#ifndef YARDSTICK_CHECKS_PREFLIGHT_H_
#define YARDSTICK_CHECKS_PREFLIGHT_H_

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/run_document.h"
#include "host/host.h"

namespace ys {
class FormatRegistry;
}  // namespace ys

namespace ys::checks {

struct SiteExpectations;

struct PreflightOptions {
  std::string root = "/";
  // The host the caller opened (the live one: root "/") and the site file it read, so that a
  // job reads each once; unset: root is opened and expect_path read here.
  const host::Host* host = nullptr;
  const SiteExpectations* expect = nullptr;
  std::vector<std::string> filters;  // globs over check ids
  std::string expect_path;           // site.toml; empty = defaults
  std::string nvml_state;            // recorded NVML state (JSON) instead of the host's GPUs
  std::optional<int> pid;            // judge this process instead of yardstick itself
  std::string kernel_log;            // a kernel log file read instead of /dev/kmsg under the root
  // An nvidia-bug-report log judged offline (checks/bug_report_input.h): replaces root,
  // nvml_state and kernel_log; the filters default to gpu.*.
  std::string bug_report;
  // The format room whose nvidia-smi-nvlink reader judges the report's `nvidia-smi nvlink -s/-e`
  // output; its gpu.nvlink result replaces the check's, which cannot see links in an
  // nvidia-smi -q dump. Unset: FormatRegistry::Global(). Without that format (a build without
  // the format units) the check and the warnings say the output was not judged.
  const FormatRegistry* formats = nullptr;
  std::string command = "preflight";
  std::function<void(const CheckResult&)> on_result;
  // Names each step as it starts ("reading the host identity", "check cpu.numa"), e.g. for a
  // watchdog to say where a run hung.
  std::function<void(const std::string& step)> on_step;
  std::shared_ptr<host::PathRecorder> recorder;  // capture: every path the checks read
};

// Errors (exit 2) for a root that is not a directory, an unreadable or invalid site file, an
// unreadable or invalid --nvml-state file, a --pid with no such process, or a filter that selects
// no check; for an unreadable --bug-report or one combined with root, nvml_state or kernel_log.
// When a unit looked at the GPUs, host.gpu_source and host.gpu_driver say where their
// state came from.
Result<RunDocument> RunPreflight(const PreflightOptions& options);

// The recordings of every check of a run (host path -> content), for `yardstick capture`.
std::map<std::string, std::string> RecordedMeasurements(const RunDocument& doc);

}  // namespace ys::checks

#endif  // YARDSTICK_CHECKS_PREFLIGHT_H_
