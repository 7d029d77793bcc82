// A yardstick job: the preflight and the benchmarks of `run` and `bench`, on one process or on
// every rank of an MPI job (mpirun, srun --mpi=pmix), gathered to rank 0 into one document.
//
// The job is a list of named steps (job.cc StepsOf; docs/design.md §job), each run where it
// belongs: the site file is read once on every rank, the preflight runs on each node's first
// rank (which reads the host once), the benchmarks on the ranks each one reaches (node-local ones
// on the node's first rank, the collectives on every rank), the conclusions (fleet outliers
// across the nodes, then the caller's: the diagnosis) and the output on rank 0. A step's results
// are gathered to rank 0 by one helper and merged into the document, which rank 0 writes so far
// (marked incomplete) to `out_path` after each step, so a job that dies keeps what it measured. A
// step that outlasts `timeout_s` (a rank died or hangs inside a collective) ends the job: rank 0
// asks every rank whether it still answers (a TCP liveness probe, comm/liveness.h), names the
// silent ranks and their hosts in the document, writes it and exits with kExitCannotRun; the other
// ranks exit after a grace period. SIGTERM, SIGINT and SIGHUP (a launcher ending the job, Ctrl-C)
// do the same on rank 0.
#ifndef YARDSTICK_JOB_JOB_H_
#define YARDSTICK_JOB_JOB_H_

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "bench/benchmark.h"
#include "checks/preflight.h"
#include "comm/communicator.h"
#include "core/run_document.h"
#include "host/host.h"

namespace ys::job {

// A conclusion drawn on rank 0 from the whole gathered document before it is saved complete.
struct Conclusion {
  std::string name;  // what it adds ("fleet outliers", "diagnosis")
  std::function<void(RunDocument&)> draw;
};

struct JobOptions {
  std::string command = "run";
  std::optional<checks::PreflightOptions> preflight;  // unset: no checks
  std::optional<bench::BenchOptions> bench;           // unset: no benchmarks
  // The site file (--expect), read once on every rank: the checks' expectations and the
  // benchmarks' [unit."<id>"] parameters. Empty: the preflight's expect_path, if any.
  std::string site_path;
  // The longest one step (a gather, a unit, or the piece of a unit between two progress
  // reports, such as one size of a collective sweep) may take; <= 0: no limit.
  double timeout_s = 600;
  std::string out_path;               // rank 0 keeps the document here, updated after every step
  std::vector<std::string> warnings;  // added to the document
  // Rank 0, when the job is cut short: shows the document (e.g. prints it) after saving it.
  std::function<void(const RunDocument&)> on_abort;
  // Rank 0, once everything is gathered, in order after the job's own (the fleet outliers of a
  // run on several nodes): the diagnosis.
  std::vector<Conclusion> conclusions;
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
