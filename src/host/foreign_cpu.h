// Foreign CPU time: how much of the job cores' time processes outside the job took while a
// measurement ran (the noisy neighbour of Exemplar case 2, found without perf or turbostat).
//
// A snapshot reads /proc/<pid>/status (Cpus_allowed_list) and /proc/<pid>/stat (utime + stime,
// all threads) of every process under the host root, at most `cap` of them, leaving out the
// job's own processes (the ranks, whose pids the caller gathers over the communicator; each
// rank's threads are inside its pid's figures). Between two snapshots, each process whose
// allowed CPUs intersect the job's CPUs is charged its Δ(utime + stime) / CLK_TCK seconds in
// proportion |allowed ∩ job| / |allowed| (a process free to run on 4 CPUs of which 2 are ours is
// charged half: the scheduler's placement is not known). The share is the sum over processes ÷
// (|job CPUs| × wall seconds), 0..1 (clamped: tick rounding can exceed 1 by a tick). Processes
// that exit or appear between the snapshots are not charged (no baseline); a process whose files
// vanish mid-read is skipped, never an error.
//
// Thread safety: pure functions and reads through a const Host.
#ifndef YARDSTICK_HOST_FOREIGN_CPU_H_
#define YARDSTICK_HOST_FOREIGN_CPU_H_

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "core/cpu_set.h"
#include "core/status.h"
#include "host/host.h"

namespace ys::host {

struct ProcCpuSample {
  int pid = 0;
  std::string comm;
  CpuSet allowed;
  uint64_t ticks = 0;  // utime + stime
};

// One process from its status and stat texts; Invalid naming what is malformed (a stat line
// without utime and stime too).
Result<ProcCpuSample> ParseProcCpuSample(std::string_view status_text, std::string_view stat_text);

struct ProcessSnapshot {
  std::vector<ProcCpuSample> processes;  // by pid
  size_t pids_seen = 0;                  // before the cap
  bool capped = false;
};
ProcessSnapshot SnapshotProcesses(const Host& host, const std::set<int>& exclude,
                                  size_t cap = 4096);

struct ForeignProcess {
  int pid = 0;
  std::string comm;
  CpuSet allowed;
  double cpu_s = 0;  // attributed to the job's CPUs
  double share = 0;  // of the job cores' time
  // "pid 4242 (stress) on cpus 0-1: 46% of the job cores' time"
  std::string Describe() const;
};

struct ForeignCpu {
  CpuSet job_cpus;
  double wall_s = 0;
  double foreign_cpu_s = 0;
  double share = 0;                       // 0..1
  std::vector<ForeignProcess> processes;  // charged ones, largest first
  std::string note;                       // how it was computed (and a cap, if hit)
};

// Invalid for an empty CPU set, a non-positive wall time or clock tick.
Result<ForeignCpu> AttributeForeignCpu(const ProcessSnapshot& before, const ProcessSnapshot& after,
                                       const CpuSet& job_cpus, double wall_s, long clk_tck);

}  // namespace ys::host

#endif  // YARDSTICK_HOST_FOREIGN_CPU_H_
