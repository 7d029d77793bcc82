// `yardstick preflight`: the node checks, run inside the job's container and allocation.
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "checks/preflight.h"
#include "cli/command.h"
#include "cli/command_watchdog.h"
#include "cli/history_options.h"
#include "core/exit_codes.h"
#include "core/log.h"
#include "report/output.h"

namespace ys::cli::cmd_preflight {
namespace {

Action Setup(CLI::App& sub) {
  auto a = std::make_shared<CheckRunArgs>();
  AddCheckRunOptions(sub, *a, /*with_root=*/true, /*with_output=*/true);
  sub.add_option("--bug-report", a->bug_report,
                 "Judge the GPUs of an nvidia-bug-report.log(.gz) offline: its nvidia-smi --query "
                 "output, kernel log and /proc files (the gpu.* checks unless --filter says "
                 "otherwise)")
      ->excludes(sub.get_option("--root"))
      ->excludes(sub.get_option("--nvml-state"))
      ->excludes(sub.get_option("--kernel-log"));
  auto hist = std::make_shared<HistoryArgs>();
  AddHistoryOptions(sub, *hist, /*record=*/true);
  auto timeout_s = std::make_shared<double>(kDefaultCommandTimeoutS);
  AddTimeoutOption(sub, *timeout_s, "the preflight");
  return [a, hist, timeout_s]() -> Result<int> {
    CommandWatchdog dog("preflight", *timeout_s);
    checks::PreflightOptions o = PreflightOptionsFor(*a, "preflight");
    o.on_step = dog.StepFn();
    auto doc = checks::RunPreflight(o);
    if (!doc.ok()) return doc.status();
    dog.Step("writing the results");
    report::OutputOptions out{.json = a->json,
                              .junit_path = a->junit,
                              .color = ColorOnStdout(),
                              .failures_only = a->failures_only,
                              .quiet = a->quiet};
    YS_RETURN_IF_ERROR(report::EmitRun(*doc, out));
    std::fflush(stdout);
    dog.Step("recording the run in the history");
    RecordInHistory(
        *hist, [&doc] { return history::RowsFromRunDocument(*doc); }, "",
        a->json ? std::cerr : std::cout);
    return report::ExitCodeFor(*doc);
  };
}

}  // namespace

YS_REGISTER(
    CommandOf<Setup>,
    {.id = "preflight",
     .summary = "Check this node's configuration (run inside the job's container and allocation)"})

}  // namespace ys::cli::cmd_preflight
