// `yardstick capture DIR`: records every file the checks read on this node into a host tree
// that `yardstick preflight --root DIR` replays, so that a field report becomes a test. Where
// NVML answers, the GPUs' state goes to DIR/.yardstick/nvml.json (gpu/gpu_snapshot_json.h),
// which the replay reads in place of live NVML.
#include <fmt/format.h>

#include <memory>

#include "checks/preflight.h"
#include "cli/command.h"
#include "cli/command_watchdog.h"
#include "core/build_info.h"
#include "core/exit_codes.h"
#include "core/log.h"
#include "gpu/gpu_snapshot_json.h"
#include "gpu/nvml_reader.h"
#include "host/capture.h"

namespace ys::cli::cmd_capture {
namespace {

struct CaptureArgs {
  CheckRunArgs checks;
  std::string dir;
  double timeout_s = kDefaultCommandTimeoutS;
};

Action Setup(CLI::App& sub) {
  auto a = std::make_shared<CaptureArgs>();
  sub.add_option("DIR", a->dir, "New directory for the host tree (absent or empty)")->required();
  AddCheckRunOptions(sub, a->checks, /*with_root=*/false, /*with_output=*/false);
  AddTimeoutOption(sub, a->timeout_s, "the capture");
  return [a]() -> Result<int> {
    CommandWatchdog dog("capture", a->timeout_s);
    checks::PreflightOptions o = PreflightOptionsFor(a->checks, "capture");  // the live host
    o.on_step = dog.StepFn();
    o.recorder = std::make_shared<host::PathRecorder>();
    auto doc = checks::RunPreflight(o);
    if (!doc.ok()) return doc.status();
    std::map<std::string, std::string> extra;
    extra["/.yardstick/capture.txt"] =
        fmt::format("captured by yardstick {} ({}) at {} on {}\n", kVersion, kGitDescribe,
                    doc->started_at, doc->host.hostname);
    for (const auto& [path, content] : checks::RecordedMeasurements(*doc)) extra[path] = content;
    dog.Step("reading the GPU state");
    // The GPUs as NVML sees them now (or the --nvml-state recording the checks were given).
    auto gpus = a->checks.nvml_state.empty() ? gpu::ReadLiveGpuSnapshot()
                                             : gpu::LoadGpuSnapshot(a->checks.nvml_state);
    std::string gpu_note;
    if (gpus.ok()) {
      extra[gpu::kRecordedNvmlPath] = gpu::GpuSnapshotToJsonText(*gpus);
      gpu_note = fmt::format("recorded the NVML state of {} GPU{} in {}{}\n", gpus->devices.size(),
                             gpus->devices.size() == 1 ? "" : "s", a->dir, gpu::kRecordedNvmlPath);
    } else {
      gpu_note = fmt::format("no NVML state recorded: {}\n", gpus.status().message());
    }
    dog.Step("writing the host tree into " + a->dir);
    auto stats = host::WriteCapture(host::Host::Live(), o.recorder->Paths(), a->dir, extra);
    if (!stats.ok()) return stats.status();
    fmt::print("captured {} files, {} directories, {} links into {} ({} unreadable)\n",
               stats->files, stats->directories, stats->links, a->dir, stats->unreadable);
    fmt::print("{}", gpu_note);
    fmt::print("replay: yardstick preflight --root {}\n", a->dir);
    return kExitPass;
  };
}

}  // namespace

YS_REGISTER(CommandOf<Setup>,
            {.id = "capture",
             .summary = "Record what the checks read on this node into a replayable host tree"})

}  // namespace ys::cli::cmd_capture
