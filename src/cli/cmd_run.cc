// `yardstick run`: the main job on this node: the preflight, then the quick benchmark profile
// (about a minute on a 2-core machine). Keeps what it produced under --out. Under mpirun or
// srun every rank runs it; rank 0 writes and prints.
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <memory>

#include "bench/session.h"
#include "checks/preflight.h"
#include "cli/command.h"
#include "core/exit_codes.h"
#include "core/log.h"
#include "core/report_json.h"
#include "report/output.h"

namespace ys::cli {
namespace {

struct RunArgs {
  CheckRunArgs checks;
  std::string out;
  std::string data;
  bool no_bench = false;
};

Action Setup(CLI::App& sub) {
  auto a = std::make_shared<RunArgs>();
  AddCheckRunOptions(sub, a->checks, /*with_root=*/true, /*with_output=*/true);
  sub.add_option("--out", a->out,
                 "Directory for the run document and artefacts "
                 "(default ./yardstick-runs/<UTC time>-<host>/)");
  sub.add_option("--data", a->data, "Directory holding specs/ (peak figures)");
  sub.add_flag("--no-bench", a->no_bench, "Only the preflight, no benchmarks");
  return [a] {
    auto t0 = std::chrono::steady_clock::now();
    auto doc = checks::RunPreflight(PreflightOptionsFor(a->checks, "run"));
    if (!doc.ok()) {
      Log(LogLevel::kError, "{}", doc.status().message());
      return kExitCannotRun;
    }
    std::unique_ptr<comm::Communicator> comm;
    if (!a->no_bench) {
      // Benchmarks measure this machine: on a recorded tree (--root) there is nothing to run.
      host::Host live = host::Host::Live();
      auto opened = comm::OpenCommunicator(live.env());
      if (!opened.ok()) {
        Log(LogLevel::kError, "{}", opened.status().message());
        return kExitCannotRun;
      }
      comm = std::move(*opened);
      if (a->checks.root == "/") {
        bench::BenchOptions o{.profile = bench::Profile::kQuick, .data_dir = DataDir(a->data)};
        bench::BenchContext ctx(live, *comm, o, comm::DetectLaunch(live.env()));
        if (Status s = bench::RunBenchSession(ctx, *doc); !s.ok()) {
          Log(LogLevel::kError, "{}", s.message());
          return kExitCannotRun;
        }
      } else {
        doc->warnings.push_back("benchmarks not run: --root reads a recorded tree, not this machine");
      }
      doc->duration_ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      if (comm->rank() != 0) return kExitPass;
    }
    std::string dir = a->out;
    if (dir.empty()) {
      std::string stamp = doc->started_at;
      std::erase(stamp, ':');
      std::erase(stamp, '-');
      dir = "yardstick-runs/" + stamp + "-" + doc->host.hostname;
    }
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) {
      Log(LogLevel::kError, "--out {}: cannot create the directory ({})", dir, ec.message());
      return kExitCannotRun;
    }
    if (Status s = report::WriteFileAtomic(dir + "/run.json", DumpJson(ToJson(*doc)) + "\n"); !s.ok()) {
      Log(LogLevel::kError, "{}", s.message());
      return kExitCannotRun;
    }
    report::OutputOptions out{.json = a->checks.json, .junit_path = a->checks.junit,
                              .color = ::isatty(STDOUT_FILENO) == 1};
    if (Status s = report::EmitRun(*doc, out); !s.ok()) {
      Log(LogLevel::kError, "{}", s.message());
      return kExitCannotRun;
    }
    if (!a->checks.json) fmt::print("run document: {}/run.json\n", dir);
    return report::ExitCodeFor(*doc);
  };
}

}  // namespace

YS_REGISTER_COMMAND("run", "Run the main job on this node (preflight, quick benchmarks) and keep its results",
                    Setup)

}  // namespace ys::cli
