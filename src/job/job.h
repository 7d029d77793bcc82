// A yardstick job: the preflight and the benchmarks of `run` and `bench`, on one process or on
// every rank of an MPI job (mpirun, srun --mpi=pmix), gathered to rank 0 into one document.
//
// Multi-rank: ranks on one host form a node; the node's first rank runs the checks and the
// node-local benchmarks, every rank runs the collectives; after each step the results are
// gathered to rank 0, which writes the document so far (marked incomplete) to `out_path`, so a
// job that dies keeps what it measured. A step that outlasts `timeout_s` (a rank died or hangs
// inside a collective) ends the job: rank 0 asks every rank whether it still answers (a TCP
// liveness probe, comm/liveness.h), names the silent ranks and their hosts in the document,
// writes it and exits with kExitCannotRun; the other ranks exit after a grace period. SIGTERM,
// SIGINT and SIGHUP (a launcher ending the job, Ctrl-C) do the same on rank 0.
#ifndef YARDSTICK_JOB_JOB_H_
#define YARDSTICK_JOB_JOB_H_

#include <functional>
#include <optional>
#include <string>

#include "bench/benchmark.h"
#include "checks/preflight.h"
#include "comm/communicator.h"
#include "core/run_document.h"
#include "host/host.h"

namespace ys::job {

struct JobOptions {
  std::string command = "run";
  std::optional<checks::PreflightOptions> preflight;  // unset: no checks
  std::optional<bench::BenchOptions> bench;           // unset: no benchmarks
  // The longest one step (a gather, a unit, or the piece of a unit between two progress
  // reports, such as one size of a collective sweep) may take; <= 0: no limit.
  double timeout_s = 600;
  std::string out_path;               // rank 0 keeps the document here, updated after every step
  std::vector<std::string> warnings;  // added to the document
  // Rank 0, when the job is cut short: shows the document (e.g. prints it) after saving it.
  std::function<void(const RunDocument&)> on_abort;
  // Rank 0, once everything is gathered: adds conclusions drawn from the whole document (the
  // diagnosis) before it is saved complete.
  std::function<void(RunDocument&)> conclude;
  // Rank 0, at the end: shows the document and returns the exit code, which every rank returns.
  std::function<int(const RunDocument&)> emit;
};

// Every rank calls it with the same options and returns the exit code rank 0's `emit` chose
// (every rank, so a launcher reports the same code whichever rank it looks at). Errors: bad
// options (a filter that selects nothing, an unreadable site file: the same on every rank, so
// every rank returns it), or a failed gather.
Result<int> RunJob(const JobOptions& options, comm::Communicator& comm, const host::Host& live);

}  // namespace ys::job

#endif  // YARDSTICK_JOB_JOB_H_
