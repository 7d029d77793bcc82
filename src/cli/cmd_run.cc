// `yardstick run`: the main job on this node. For now the preflight; later issues add the
// micro-benchmarks and proxy workloads. Keeps what it produced under --out.
#include <unistd.h>

#include <filesystem>

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
};

Action Setup(CLI::App& sub) {
  auto a = std::make_shared<RunArgs>();
  AddCheckRunOptions(sub, a->checks, /*with_root=*/true, /*with_output=*/true);
  sub.add_option("--out", a->out,
                 "Directory for the run document and artefacts "
                 "(default ./yardstick-runs/<UTC time>-<host>/)");
  return [a] {
    auto doc = checks::RunPreflight(PreflightOptionsFor(a->checks, "run"));
    if (!doc.ok()) {
      Log(LogLevel::kError, "{}", doc.status().message());
      return kExitCannotRun;
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

YS_REGISTER_COMMAND("run", "Run the main job on this node and keep its results (now: the preflight)",
                    Setup)

}  // namespace ys::cli
