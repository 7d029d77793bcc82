// `yardstick bench`: the micro-benchmarks (collectives, memory, GEMM, copies, storage, host).
// Under mpirun or srun every rank runs it; rank 0 prints and decides the exit code, which it
// shares so that the launcher reports the same code from every rank.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "bench/session.h"
#include "checks/site_expectations.h"
#include "cli/command.h"
#include "cli/history_options.h"
#include "core/exit_codes.h"
#include "core/log.h"
#include "core/run_document_json.h"
#include "job/job.h"
#include "report/output.h"

namespace ys::cli::cmd_bench {
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
  std::string expect;
  std::vector<std::string> dtypes;
  bool json = false;
  std::string junit;
  std::string out;
  double timeout_s = 600;
  HistoryArgs history;
};

// The options of `yardstick bench`, bound to the fields of `a`.
void AddOptions(CLI::App& sub, BenchArgs& a) {
  sub.add_option("--filter", a.filters,
                 "Only benchmarks whose ids match these globs (e.g. 'coll.*')")
      ->delimiter(',');
  sub.add_option("--sizes", a.sizes,
                 "Message/array sizes MIN:MAX:xFACTOR or MIN:MAX:+STEP or SIZE (e.g. 8:16G:x2)");
  sub.add_option("--warmup", a.warmup, "Warm-up iterations (default: each benchmark's own)")
      ->check(CLI::NonNegativeNumber);
  sub.add_option("--iters", a.iters, "Timed iterations (default: each benchmark's own)")
      ->check(CLI::PositiveNumber);
  sub.add_option("--backend", a.backend, "cpu, gpu or auto (both where present)")
      ->check(CLI::IsMember({"auto", "cpu", "gpu"}));
  sub.add_flag("--pairwise", a.pairwise,
               "Also run the collectives over every pair of ranks to localise a slow node or link");
  sub.add_option("--path", a.path,
                 "Directory for the storage benchmark (it is skipped without one)");
  sub.add_flag("--direct", a.direct, "Storage benchmark with O_DIRECT (bypass the page cache)");
  sub.add_option("--dtype", a.dtypes, "Element types of the collectives: float (default), bfloat16")
      ->delimiter(',');
  sub.add_option("--data", a.data, "Directory holding specs/ (peak figures)");
  sub.add_option("--expect", a.expect,
                 "Site file (TOML): its [unit.\"<id>\"] tables set the benchmarks' parameters "
                 "(yardstick list --params)");
  sub.add_flag("--json", a.json, "Print the run document as JSON instead of the tables");
  sub.add_option("--junit", a.junit, "Also write JUnit XML to this file");
  sub.add_option("--out", a.out,
                 "Directory to keep the run document in (DIR/run.json), updated after every "
                 "benchmark (a run that dies keeps what it measured); created when missing");
  sub.add_option(
      "--timeout", a.timeout_s,
      "Seconds a step may run without progress (a gather, a check pass, one size of a "
      "sweep) before the run ends, naming the ranks that stopped answering (0: no limit)");
  AddHistoryOptions(sub, a.history, /*record=*/true);
}

Action Setup(CLI::App& sub) {
  auto a = std::make_shared<BenchArgs>();
  AddOptions(sub, *a);
  return [a]() -> Result<int> {
    YS_RETURN_IF_ERROR(RefuseOutOfRange(
        {CheckRange(a->timeout_s, 0, kMaxTimeoutSeconds, "--timeout"),
         // -1: not given (each benchmark's own).
         CheckIntRange(std::max(a->warmup, 0), 0, bench::kMaxIterations, "--warmup"),
         CheckIntRange(std::max(a->iters, 1), 1, bench::kMaxIterations, "--iters")}));
    bench::BenchOptions o;
    o.filters = a->filters;
    if (!a->sizes.empty()) {
      auto sweep = bench::SizeSweep::Parse(a->sizes);
      if (!sweep.ok()) return sweep.status();
      o.sizes = *sweep;
    }
    o.warmup = a->warmup;
    o.iters = a->iters;
    o.backend = a->backend == "cpu"   ? bench::Backend::kCpu
                : a->backend == "gpu" ? bench::Backend::kGpu
                                      : bench::Backend::kAuto;
    o.pairwise = a->pairwise;
    o.storage_path = a->path;
    o.direct_io = a->direct;
    o.data_dir = DataDir(a->data);
    o.dtypes = a->dtypes;
    if (!a->expect.empty()) {
      auto site = checks::LoadSiteExpectations(a->expect);
      if (!site.ok()) return site.status();
      o.unit_params = site->params;
    }

    host::Host host = host::Host::Live();
    auto comm = comm::OpenCommunicator(host.env());
    if (!comm.ok()) return comm.status();
    bool leader = (*comm)->rank() == 0;
    std::string doc_path;
    if (leader) {
      auto path = OutDocumentPath("bench", a->out, "run.json");
      if (!path.ok()) return path.status();
      doc_path = *path;
    }
    report::OutputOptions out{.json = a->json, .junit_path = a->junit, .color = ColorOnStdout()};
    job::JobOptions jo{
        .command = "bench",
        .bench = o,
        .timeout_s = a->timeout_s,
        .out_path = doc_path,
        .on_abort = [out](const RunDocument& doc) { (void)report::EmitRun(doc, out); },
        .emit =
            [out, a, doc_path](const RunDocument& doc) {
              if (Status s = report::EmitRun(doc, out); !s.ok()) {
                Log(LogLevel::kError, "{}", s.message());
                return kExitCannotRun;
              }
              std::fflush(stdout);
              RecordInHistory(
                  a->history, [&doc] { return history::RowsFromRunDocument(doc); }, doc_path,
                  a->json ? std::cerr : std::cout);
              return report::ExitCodeFor(doc);
            }};
    auto code = job::RunJob(jo, **comm, host);
    if (!code.ok()) {
      if (leader) Log(LogLevel::kError, "{}", code.status().message());
      return kExitCannotRun;
    }
    return *code;
  };
}

}  // namespace

YS_REGISTER(CommandOf<Setup>,
            {.id = "bench",
             .summary = "Micro-benchmarks: collectives, memory, GEMM, copies, storage, host"})

}  // namespace ys::cli::cmd_bench
