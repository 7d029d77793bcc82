// `yardstick run`: the main job: the preflight, then the quick benchmark profile (about a minute
// on a 2-core machine). Under mpirun or srun every rank runs it and rank 0 writes one document
// with a per-node and per-rank breakdown. Keeps what it produced under --out, updated after
// every step, so a run that dies keeps what it measured.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "cli/history_options.h"
#include "core/dir_lock.h"
#include "core/exit_codes.h"
#include "core/fresh_dir.h"
#include "core/log.h"
#include "core/path_component.h"
#include "job/conclusions.h"
#include "job/job.h"
#include "report/html/html_report.h"
#include "report/output.h"

namespace ys::cli::cmd_run {
namespace {

struct RunArgs {
  CheckRunArgs checks;
  std::string out;
  std::string data;
  bool no_bench = false;
  double timeout_s = 600;
  HistoryArgs history;
};

// ./yardstick-runs/<UTC time>-<host>/
std::string DefaultRunDir() {
  std::string stamp = UtcNowIso8601();
  std::erase(stamp, ':');
  std::erase(stamp, '-');
  return "yardstick-runs/" + stamp + "-" + HostNameForPath();
}

// Where the run keeps its results, what it runs and how long a step may stall.
void AddRunJobOptions(CLI::App& sub, RunArgs& a) {
  sub.add_option(
      "--out", a.out,
      "Directory for the run document and artefacts "
      "(default ./yardstick-runs/<UTC time>-<host>/, with -2, -3, ... when that exists)");
  sub.add_option("--data", a.data, "Directory holding specs/ (peak figures)");
  sub.add_flag("--no-bench", a.no_bench, "Only the preflight, no benchmarks");
  sub.add_option(
      "--timeout", a.timeout_s,
      "Seconds a step may run without progress (a gather, a check pass, one size of a "
      "sweep) before the run ends, naming the ranks that stopped answering (0: no limit)");
}

// The leader's run directory, created: --out, else a fresh default one. "" on the other ranks
// when --out is not given.
Result<std::string> MakeRunDirectory(bool leader, const std::string& out) {
  std::string dir = out;
  if (leader && dir.empty()) {
    // Never another run's folder: two runs started in the same second get -2, -3, ...
    auto made = MakeFreshDirectory(DefaultRunDir());
    if (!made.ok()) return made.status();
    dir = *made;
  } else if (leader) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) {
      return Status::Io(
          fmt::format("--out {}: cannot create the directory ({})", dir, ec.message()));
    }
  }
  return dir;
}

// What the leader does with the finished document: print it, draw the HTML report beside it
// under `dir`, record it in the history; the exit code the document calls for.
std::function<int(const RunDocument&)> RunDocumentEmitter(const report::OutputOptions& out,
                                                          const std::string& dir, bool json,
                                                          const HistoryArgs& history) {
  return [out, dir, json, hist = history](const RunDocument& doc) {
    if (Status s = report::EmitRun(doc, out); !s.ok()) {
      Log(LogLevel::kError, "{}", s.message());
      return kExitCannotRun;
    }
    if (!json) fmt::print("run document: {}/run.json\n", dir);
    // The HTML report beside the document (docs/design.md §outputs), drawn from the document in
    // memory; without Chart.js the run still stands, and `yardstick report` can draw it later.
    Status page = report::html::WriteReportOf(doc, dir);
    if (!page.ok()) {
      Log(LogLevel::kWarn, "no HTML report: {}", page.message());
    } else if (!json) {
      fmt::print("report: {}/report.html\n", dir);
    }
    std::fflush(stdout);
    // With --json stdout holds only the document: the regression lines go to stderr.
    RecordInHistory(
        hist, [&doc] { return history::RowsFromRunDocument(doc); }, dir + "/run.json",
        json ? std::cerr : std::cout);
    return report::ExitCodeFor(doc);
  };
}

// The job `run` asks for: the preflight, the quick benchmarks unless skipped, the diagnosis, the
// document kept under `dir` (on the leader) and emitted at the end or on abort.
job::JobOptions RunJobOptionsFor(const RunArgs& a, const std::string& dir, bool leader) {
  report::OutputOptions out{.json = a.checks.json,
                            .junit_path = a.checks.junit,
                            .color = ColorOnStdout(),
                            .failures_only = a.checks.failures_only,
                            .quiet = a.checks.quiet};
  job::JobOptions jo{
      .command = "run",
      .preflight = PreflightOptionsFor(a.checks, "run"),
      .site_path = a.checks.expect,  // read once, for the checks and the benchmarks
      .timeout_s = a.timeout_s,
      .out_path = leader ? dir + "/run.json" : "",
      .on_abort = [out](const RunDocument& doc) { (void)report::EmitRun(doc, out); }};
  // Benchmarks measure this machine: a recorded tree (--root) has nothing to run them on.
  if (!a.no_bench && a.checks.root == "/") {
    jo.bench = bench::BenchOptions{.profile = bench::Profile::kQuick, .data_dir = DataDir(a.data)};
  } else if (!a.no_bench) {
    jo.warnings.push_back("benchmarks not run: --root reads a recorded tree, not this machine");
  }
  // What the run's evidence says about causes (docs/design.md §diagnosis), kept in the document.
  jo.conclusions = {job::DiagnosisConclusion(DataDir(a.data))};
  jo.emit = RunDocumentEmitter(out, dir, a.checks.json, a.history);
  return jo;
}

// Runs the job on every rank; rank 0's exit code, or 2 when the job could not run.
Result<int> RunMainJob(const RunArgs& a) {
  YS_RETURN_IF_ERROR(
      RefuseOutOfRange({CheckRange(a.timeout_s, 0, kMaxTimeoutSeconds, "--timeout")}));
  host::Host live = host::Host::Live();
  auto comm = comm::OpenCommunicator(live.env());
  if (!comm.ok()) return comm.status();
  bool leader = (*comm)->rank() == 0;
  auto dir = MakeRunDirectory(leader, a.out);
  if (!dir.ok()) return dir.status();
  // One run at a time in a directory: a second `run --out` there would overwrite the first's
  // document (both exiting 0); it is refused naming the holder.
  DirLock lock;
  if (leader) {
    auto held = DirLock::Acquire(*dir, "run");
    if (!held.ok()) return held.status();
    lock = std::move(*held);
  }
  job::JobOptions jo = RunJobOptionsFor(a, *dir, leader);
  auto code = job::RunJob(jo, **comm, live);
  if (!code.ok()) {
    if (leader) Log(LogLevel::kError, "{}", code.status().message());
    return kExitCannotRun;
  }
  return *code;
}

Action Setup(CLI::App& sub) {
  auto a = std::make_shared<RunArgs>();
  AddCheckRunOptions(sub, a->checks, /*with_root=*/true, /*with_output=*/true);
  AddRunJobOptions(sub, *a);
  AddHistoryOptions(sub, a->history, /*record=*/true);
  return [a]() -> Result<int> { return RunMainJob(*a); };
}

}  // namespace

YS_REGISTER(CommandOf<Setup>,
            {.id = "run",
             .summary = "Run the main job (preflight, quick benchmarks) and keep its results"})

}  // namespace ys::cli::cmd_run
