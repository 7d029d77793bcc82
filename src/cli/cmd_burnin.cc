// `yardstick burnin --duration 72h [--profile compute|memory|network|mixed]`: acceptance burn-in
// (burnin/burnin.h). Keeps its checkpoint, heartbeat, run document and HTML report in --out;
// running the same command again after a stop or a kill resumes where it stopped.
//
// Exit codes: 0 the duration was reached without a fault; 1 a fault was seen (a warn-severity
// one too: acceptance treats a temperature swing as a fault); 2 bad input, a profile that cannot
// run here, or a burn-in stopped before its duration (resumable).
#include <unistd.h>

#include <filesystem>
#include <iostream>

#include "bench/benchmark.h"
#include "burnin/burnin.h"
#include "burnin_report/burnin_report.h"
#include "cli/command.h"
#include "comm/communicator.h"
#include "core/exit_codes.h"
#include "core/log.h"
#include "core/path_component.h"
#include "core/text.h"
#include "report/burnin_text.h"
#include "report/html/html_report.h"
#include "report/output.h"

namespace ys::cli::cmd_burnin {
namespace {

struct BurninArgs {
  std::string duration;
  std::string profile = "mixed";
  double cycle_s = 1;
  double checkpoint_s = 60;
  double temp_threshold_c = 2;
  double drift_threshold = 0.05;
  double timeout_s = 600;
  std::string backend = "auto";
  std::string out;
  bool restart = false;
  std::string nvml_state;
  std::string kernel_log;
  bool json = false;
  std::string junit;
  int gemm_n = 0;
  std::string stream_bytes;
  std::string allreduce_bytes;
};

// ./yardstick-runs/burnin-<host>/: one place per host, so that the same command resumes a stopped
// burn-in; a finished one found there is moved aside to burnin-<host>-<finish time>/ and a new
// burn-in starts (burnin.h).
std::string DefaultDir() { return "yardstick-runs/burnin-" + HostNameForPath(); }

Result<burnin::BurninOptions> OptionsFrom(const BurninArgs& a) {
  burnin::BurninOptions o;
  auto d = ParseDurationSeconds(a.duration);
  if (!d || *d <= 0) {
    return Status::Invalid("--duration \"" + a.duration +
                           "\": expected a time > 0 such as 90s, 2m, 72h, 1d or 1h30m");
  }
  o.duration_s = *d;
  auto p = burnin::ParseProfile(a.profile);
  if (!p.ok()) return p.status();
  o.profile = *p;
  if (a.backend == "auto")
    o.device = burnin::Device::kAuto;
  else if (a.backend == "cpu")
    o.device = burnin::Device::kCpu;
  else if (a.backend == "gpu")
    o.device = burnin::Device::kGpu;
  else
    return Status::Invalid("--backend \"" + a.backend + "\": expected auto, cpu or gpu");
  o.cycle_s = a.cycle_s;
  o.checkpoint_interval_s = a.checkpoint_s;
  o.temp_threshold_c = a.temp_threshold_c;
  o.drift_threshold = a.drift_threshold;
  o.timeout_s = a.timeout_s;
  o.out_dir = a.out.empty() ? DefaultDir() : a.out;
  o.keep_finished = a.out.empty();
  o.restart = a.restart;
  o.nvml_state = a.nvml_state;
  o.kmsg_path = a.kernel_log;
  o.gemm_n = a.gemm_n;
  for (auto [text, out, flag] :
       {std::tuple{&a.stream_bytes, &o.stream_bytes, "--stream-bytes"},
        std::tuple{&a.allreduce_bytes, &o.allreduce_bytes, "--allreduce-bytes"}}) {
    if (text->empty()) continue;
    auto b = bench::ParseByteSize(*text);
    if (!b.ok()) return Status::Invalid(std::string(flag) + ": " + b.status().message());
    *out = *b;
  }
  if (!o.nvml_state.empty() && !std::filesystem::exists(o.nvml_state)) {
    return Status::Invalid("--nvml-state " + o.nvml_state + ": no such file");
  }
  YS_RETURN_IF_ERROR(burnin::CheckBurninOptions(o));
  return o;
}

// The burn-in on this rank; rank 0 writes the document and the report.
Result<int> RunBurninCommand(const BurninArgs& a) {
  host::Host live = host::Host::Live();
  auto comm = comm::OpenCommunicator(live.env());
  if (!comm.ok()) return comm.status();
  bool leader = (*comm)->rank() == 0;
  auto options = OptionsFrom(a);
  if (!options.ok()) {
    if (leader) Log(LogLevel::kError, "{}", options.status().message());
    return kExitCannotRun;
  }
  bool tty = ::isatty(STDOUT_FILENO) == 1;
  options->progress = [tty](const std::string& line) {
    if (tty) std::cerr << line << "\n";
  };
  auto run = burnin::RunBurnin(*options, **comm, live);
  if (!run.ok()) {
    if (leader) Log(LogLevel::kError, "{}", run.status().message());
    return kExitCannotRun;
  }
  if (!leader) return kExitPass;
  const RunDocument& doc = run->doc;
  report::OutputOptions out{.json = a.json, .junit_path = a.junit, .color = tty};
  YS_RETURN_IF_ERROR(report::EmitRun(doc, out));
  Status page = report::html::WriteReportBeside(options->out_dir);
  if (!page.ok()) Log(LogLevel::kWarn, "no HTML report: {}", page.message());
  if (!a.json) {
    fmt::print("run document: {}/run.json\n", options->out_dir);
    if (page.ok()) fmt::print("report: {}/report.html\n", options->out_dir);
    if (run->stopped)
      fmt::print("stopped by {}: run the same command to resume\n", run->stop_reason);
  }
  std::fflush(stdout);
  if (run->stopped) return kExitCannotRun;
  // One verdict: the run's (any fault fails acceptance, a warn-severity one too; a burn-in that
  // could not judge drift is inconclusive), which the console's burn-in verdict line states too.
  return report::ExitCodeFor(doc);
}

Action Setup(CLI::App& sub) {
  auto a = std::make_shared<BurninArgs>();
  sub.add_option("--duration", a->duration, "How long to load: 90s, 2m, 72h, 1d, 1h30m")
      ->required();
  sub.add_option(
         "--profile", a->profile,
         "compute (GEMM), memory (STREAM triad / device copies), network (all_reduce across "
         "the job's ranks) or mixed (each in turn)")
      ->capture_default_str();
  sub.add_option("--cycle", a->cycle_s, "Seconds of load between two telemetry samples")
      ->capture_default_str();
  sub.add_option("--checkpoint-interval", a->checkpoint_s, "Seconds between two checkpoints")
      ->capture_default_str();
  sub.add_option("--temp-threshold", a->temp_threshold_c,
                 "Degrees C a temperature may move from its steady state before it is a fault")
      ->capture_default_str();
  sub.add_option("--drift-threshold", a->drift_threshold,
                 "Fraction a window's rate may fall below the first hour's before it is a fault")
      ->capture_default_str();
  sub.add_option(
         "--timeout", a->timeout_s,
         "Seconds one cycle may take before the burn-in gives up on a dead or hung rank (exit 2, "
         "the checkpoint kept; 0: no limit)")
      ->capture_default_str();
  sub.add_option("--backend", a->backend, "auto (GPUs when usable), cpu or gpu")
      ->capture_default_str();
  sub.add_option(
      "--out", a->out,
      "Directory for the checkpoint, run document and report (default "
      "./yardstick-runs/burnin-<host>/); the same directory resumes a stopped burn-in. "
      "A finished burn-in in the default directory is moved to "
      "./yardstick-runs/burnin-<host>-<finish time>/ and a new one starts; in a directory "
      "given with --out it is kept and the run refused (use --restart or another --out)");
  sub.add_flag("--restart", a->restart,
               "Start anew even if --out holds a checkpoint (it is replaced)");
  sub.add_option(
      "--nvml-state", a->nvml_state,
      "A recorded NVML state or timeline to sample instead of the GPUs (tests, replays)");
  sub.add_option("--kernel-log", a->kernel_log, "A kernel log file to watch instead of /dev/kmsg");
  sub.add_flag("--json", a->json, "The run document as JSON on stdout");
  sub.add_option("--junit", a->junit, "Also write JUnit XML here");
  sub.add_option("--gemm-n", a->gemm_n,
                 "GEMM size n (default 512 on CPUs): smaller for quick tests")
      ->check(CLI::NonNegativeNumber);
  sub.add_option("--stream-bytes", a->stream_bytes,
                 "Bytes per STREAM array per core (default: 4 x its cache share)");
  sub.add_option("--allreduce-bytes", a->allreduce_bytes,
                 "Bytes per all_reduce of the network load");
  return [a]() -> Result<int> { return RunBurninCommand(*a); };
}

}  // namespace

YS_REGISTER(
    CommandOf<Setup>,
    {.id = "burnin",
     .summary = "Sustained checked load with telemetry: faults, stability, MTBF, availability"})

}  // namespace ys::cli::cmd_burnin
