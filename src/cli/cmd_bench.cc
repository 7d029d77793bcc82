// `yardstick bench`: the micro-benchmarks (collectives, memory, GEMM, copies, storage, host).
// Under mpirun or srun every rank runs it; rank 0 prints and decides the exit code, which it
// shares so that the launcher reports the same code from every rank.
#include <unistd.h>

#include <chrono>

#include "bench/session.h"
#include "cli/command.h"
#include "core/exit_codes.h"
#include "core/log.h"
#include "host/host_info.h"
#include "report/output.h"

namespace ys::cli {
namespace {

struct BenchArgs {
  std::vector<std::string> filters;
  std::string sizes;
  int warmup = -1;
  int iters = -1;
  std::string backend = "auto";
  bool pairwise = false;
  std::string path;
  bool direct = false;
  std::string data;
  std::vector<std::string> dtypes;
  bool json = false;
  std::string junit;
};

Action Setup(CLI::App& sub) {
  auto a = std::make_shared<BenchArgs>();
  sub.add_option("--filter", a->filters, "Only benchmarks whose ids match these globs (e.g. 'coll.*')")
      ->delimiter(',');
  sub.add_option("--sizes", a->sizes,
                 "Message/array sizes MIN:MAX:xFACTOR or MIN:MAX:+STEP or SIZE (e.g. 8:16G:x2)");
  sub.add_option("--warmup", a->warmup, "Warm-up iterations (default: each benchmark's own)")
      ->check(CLI::NonNegativeNumber);
  sub.add_option("--iters", a->iters, "Timed iterations (default: each benchmark's own)")
      ->check(CLI::PositiveNumber);
  sub.add_option("--backend", a->backend, "cpu, gpu or auto (both where present)")
      ->check(CLI::IsMember({"auto", "cpu", "gpu"}));
  sub.add_flag("--pairwise", a->pairwise,
               "Also run the collectives over every pair of ranks to localise a slow node or link");
  sub.add_option("--path", a->path, "Directory for the storage benchmark (it is skipped without one)");
  sub.add_flag("--direct", a->direct, "Storage benchmark with O_DIRECT (bypass the page cache)");
  sub.add_option("--dtype", a->dtypes, "Element types of the collectives: float (default), bfloat16")
      ->delimiter(',');
  sub.add_option("--data", a->data, "Directory holding specs/ (peak figures)");
  sub.add_flag("--json", a->json, "Print the run document as JSON instead of the tables");
  sub.add_option("--junit", a->junit, "Also write JUnit XML to this file");
  return [a] {
    auto t0 = std::chrono::steady_clock::now();
    bench::BenchOptions o;
    o.filters = a->filters;
    if (!a->sizes.empty()) {
      auto sweep = bench::SizeSweep::Parse(a->sizes);
      if (!sweep.ok()) {
        Log(LogLevel::kError, "{}", sweep.status().message());
        return kExitCannotRun;
      }
      o.sizes = *sweep;
    }
    o.warmup = a->warmup;
    o.iters = a->iters;
    o.backend = a->backend == "cpu" ? bench::Backend::kCpu
                : a->backend == "gpu" ? bench::Backend::kGpu
                                      : bench::Backend::kAuto;
    o.pairwise = a->pairwise;
    o.storage_path = a->path;
    o.direct_io = a->direct;
    o.data_dir = DataDir(a->data);
    o.dtypes = a->dtypes;

    host::Host host = host::Host::Live();
    comm::LaunchInfo launch = comm::DetectLaunch(host.env());
    auto comm = comm::OpenCommunicator(host.env());
    if (!comm.ok()) {
      Log(LogLevel::kError, "{}", comm.status().message());
      return kExitCannotRun;
    }
    bench::BenchContext ctx(host, **comm, o, launch);
    RunDocument doc = StartRunDocument("bench");
    doc.host = host::ReadHostInfo(host);
    bool leader = (*comm)->rank() == 0;
    if (Status s = bench::RunBenchSession(ctx, doc); !s.ok()) {
      if (leader) Log(LogLevel::kError, "{}", s.message());
      return kExitCannotRun;
    }
    doc.duration_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    int code = kExitPass;
    if (leader) {
      report::OutputOptions out{.json = a->json, .junit_path = a->junit,
                                .color = ::isatty(STDOUT_FILENO) == 1};
      if (Status s = report::EmitRun(doc, out); !s.ok()) {
        Log(LogLevel::kError, "{}", s.message());
        code = kExitCannotRun;
      } else {
        code = report::ExitCodeFor(doc);
      }
    }
    std::string shared = std::to_string(code);
    if ((*comm)->Broadcast(shared, 0).ok()) code = std::stoi(shared);
    return code;
  };
}

}  // namespace

YS_REGISTER_COMMAND("bench", "Micro-benchmarks: collectives, memory, GEMM, copies, storage, host", Setup)

}  // namespace ys::cli
