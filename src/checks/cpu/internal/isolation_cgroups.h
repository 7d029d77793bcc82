// The cgroup side of cpu.isolation (checks/cpu/isolation.cc): which cgroup and cores are the
// job's, the other jobs' and steps' cpusets that overlap them (YS-ISO-003), and a CPU quota on
// the process's cgroup (YS-ISO-004).
//
// The job. The checked process's cgroup, resolved through /proc/<pid>/cgroup and mountinfo (v2,
// v1 cpuset hierarchy, hybrid). Under Slurm (job_N/step_M/[user/]task_K) the job is the job_N
// cgroup when it is visible (inside an enroot container only the task's own cgroup is mounted,
// so the task's set stands for it); otherwise the process's own cgroup. The job's cores are that
// cgroup's effective cpuset, or Cpus_allowed_list when no cgroup can be read.
#ifndef YARDSTICK_CHECKS_CPU_INTERNAL_ISOLATION_CGROUPS_H_
#define YARDSTICK_CHECKS_CPU_INTERNAL_ISOLATION_CGROUPS_H_

#include <optional>
#include <string>

#include "checks/check.h"
#include "core/cpu_set.h"
#include "host/cgroup.h"
#include "host/host.h"
#include "host/proc_pid.h"

namespace ys::checks::isolation {

inline constexpr char kCase2Recovery[] =
    "Exemplar case 2: separating housekeeping threads from the job's cores "
    "with cpusets plus NUMA binding took the gap from 12% to 3%";

// The job the checked process belongs to, and its cores.
struct Job {
  std::optional<host::CgroupDir> cg;  // the process's cpuset cgroup
  std::optional<host::SlurmCgroup> slurm;
  std::string path;  // cgroup path of the job (job_N, or the process's own cgroup)
  CpuSet cpus;       // the job's cores
  std::string cpus_source;
};

// Resolves the job of the process at `proc` (its status already read into `ps`), with notes on
// the cgroup and Slurm ids in `r`. A cgroup that cannot be found is not an error: the process's
// own affinity then stands for the job's cores.
Result<Job> ResolveJob(const host::Host& h, const std::string& proc, const host::ProcStatus& ps,
                       CheckResult& r);

// YS-ISO-003 for each other job (and other step of this job) whose cpuset overlaps the job's.
Status CheckSiblings(const host::Host& h, const Job& job, CheckResult& r);

// YS-ISO-004 when a cpu.max / cfs_quota_us limit on the process's cgroup or an ancestor is below
// the job's cores or has throttled it.
Status CheckQuota(const host::Host& h, const std::string& proc, const Job& job, CheckResult& r);

}  // namespace ys::checks::isolation

#endif  // YARDSTICK_CHECKS_CPU_INTERNAL_ISOLATION_CGROUPS_H_
