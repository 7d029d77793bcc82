// The cgroup side of cpu.isolation (see the header): the job's cgroup and cores, other jobs' and
// steps' overlapping cpusets, and a CPU quota.
#include "checks/cpu/internal/isolation_cgroups.h"

#include <fmt/format.h>

#include <string>
#include <vector>

#include "core/text.h"

namespace ys::checks::isolation {
namespace {

constexpr size_t kMaxSiblings = 512;

}  // namespace

Result<Job> ResolveJob(const host::Host& h, const std::string& proc, const host::ProcStatus& ps,
                       CheckResult& r) {
  Job job;
  auto cg = host::ReadCgroupDir(h, proc, "cpuset");
  if (!cg.ok()) {
    if (cg.status().code() != StatusCode::kNotFound) return cg.status();
    r.Note("cgroup", "not resolvable: " + cg.status().message());
    job.cpus = ps.cpus_allowed;
    job.cpus_source = proc + "/status Cpus_allowed_list";
    return job;
  }
  job.cg = *cg;
  job.slurm = host::ParseSlurmCgroupPath(cg->path);
  job.path = job.slurm ? job.slurm->job_path : cg->path;
  r.Note("cgroup",
         std::string(host::CgroupVersionName(cg->version)) + " " + cg->path + " at " + cg->dir);
  if (job.slurm) {
    r.Note("slurm.job", job.slurm->job);
    r.Note("slurm.step", job.slurm->step.empty() ? "-" : job.slurm->step);
    r.Note("slurm.task", job.slurm->task.empty() ? "-" : job.slurm->task);
  }
  std::string dir = cg->dir;
  if (auto jd = cg->DirOf(job.path); jd && h.IsDirectory(*jd)) {
    dir = *jd;
  } else if (job.slurm) {
    r.Note("cgroup.job_level",
           job.path + " is not visible here (container): the task's cpuset stands for the job");
  }
  auto cpus = host::ReadEffectiveCpus(h, *cg, dir, &job.cpus_source);
  if (!cpus.ok()) {
    if (cpus.status().code() != StatusCode::kNotFound) return cpus.status();
    job.cpus = ps.cpus_allowed;
    job.cpus_source =
        proc + "/status Cpus_allowed_list (no cpuset file: " + cpus.status().message() + ")";
  } else {
    job.cpus = *cpus;
  }
  return job;
}

// Other jobs (and other steps of this job) whose cpusets overlap the job's.
Status CheckSiblings(const host::Host& h, const Job& job, CheckResult& r) {
  if (!job.slurm || !job.cg) {
    r.Note("siblings", "not a Slurm job: other cgroups' cpusets not compared");
    return Status::Ok();
  }
  const host::CgroupDir& cg = *job.cg;
  std::vector<std::string> paths;  // sibling cgroup paths
  auto list = [&](const std::string& parent, const char* glob) {
    auto dir = cg.DirOf(parent);
    if (!dir) return false;
    for (const auto& n : h.ListMatching(*dir, glob)) {
      if (paths.size() < kMaxSiblings) paths.push_back((parent == "/" ? "" : parent) + "/" + n);
    }
    return true;
  };
  bool visible;
  if (cg.version == host::CgroupVersion::kV1) {  // /slurm/uid_*/job_*
    std::string slurm_root = job.slurm->jobs_parent.substr(0, job.slurm->jobs_parent.rfind('/'));
    std::vector<std::string> uids;
    visible = list(slurm_root.empty() ? "/" : slurm_root, "uid_*");
    uids.swap(paths);
    for (const auto& u : uids) list(u, "job_*");
  } else {
    visible = list(job.slurm->jobs_parent, "job_*");
  }
  if (!job.slurm->step_path.empty()) list(job.slurm->job_path, "step_*");
  if (!visible) {
    r.Note("siblings", "other jobs' cgroups are not visible here (container)");
  }
  size_t compared = 0;
  for (const auto& p : paths) {
    std::string base = p.substr(p.rfind('/') + 1);
    if (p == job.path || p == job.slurm->step_path) continue;
    bool step = StartsWith(base, "step_");
    // The extern, batch and interactive steps share the job's CPUs by design.
    if (step && !ParseUint(base.substr(5))) continue;
    std::string dir = *cg.DirOf(p);
    std::string source;
    auto cpus = host::ReadEffectiveCpus(h, cg, dir, &source);
    if (!cpus.ok()) {
      if (cpus.status().code() == StatusCode::kNotFound) continue;
      return cpus.status();
    }
    if (source.rfind('/') != dir.size()) continue;  // inherited, not its own set
    ++compared;
    CpuSet mine = job.cpus;
    if (step && job.cg) {  // steps compare with this process's step
      std::string sd = *cg.DirOf(job.slurm->step_path);
      if (auto s = host::ReadEffectiveCpus(h, cg, sd); s.ok()) mine = *s;
    }
    CpuSet shared = cpus->Intersect(mine);
    if (shared.empty()) continue;
    Finding f = MakeFinding(
        "YS-ISO-003", base,
        fmt::format("{} {}'s cpuset {} overlaps this {}'s {} on CPUs {}", step ? "step" : "job",
                    base.substr(base.find('_') + 1), cpus->ToString(), step ? "step" : "job",
                    mine.ToString(), shared.ToString()));
    f.evidence = {{source, cpus->ToString()}, {job.cpus_source, job.cpus.ToString()}};
    f.fix =
        step
            ? "give concurrent steps disjoint CPUs: srun --exact (or --exclusive) with "
              "--cpus-per-task"
            : "constrain jobs to disjoint cores: TaskPlugin=task/cgroup,task/affinity and "
              "ConstrainCores=yes (cgroup.conf), OverSubscribe=NO or --exclusive for training jobs";
    f.expected_recovery = kCase2Recovery;
    f.reference = "slurm.schedmd.com cgroup_v2.html, cgroups.html; docs/node-checks.md §isolation";
    r.Add(std::move(f));
  }
  r.Note("siblings.compared", std::to_string(compared));
  return Status::Ok();
}

// A cpu.max / cfs_quota_us limit on the process's cgroup or an ancestor, and its throttling.
Status CheckQuota(const host::Host& h, const std::string& proc, const Job& job, CheckResult& r) {
  auto cg = host::ReadCgroupDir(h, proc, "cpu");
  if (!cg.ok()) {
    if (cg.status().code() == StatusCode::kNotFound) return Status::Ok();
    return cg.status();
  }
  auto quota = host::ReadCpuQuota(h, *cg);
  if (!quota.ok()) return quota.status();
  if (!quota->has_value()) {
    r.Note("cpu.quota", "none");
    return Status::Ok();
  }
  const host::CpuQuota& q = **quota;
  r.Note("cpu.quota", fmt::format("{:.2f} CPUs ({} = {}), nr_throttled {}", q.cpus, q.file, q.value,
                                  q.nr_throttled));
  double cores = static_cast<double>(job.cpus.size());
  if (q.nr_throttled == 0 && (cores == 0 || q.cpus >= cores)) return Status::Ok();
  Finding f = MakeFinding("YS-ISO-004", "cgroup",
                          fmt::format("a CPU quota of {:.2f} CPUs applies to a job with {} cores; "
                                      "throttled {} times",
                                      q.cpus, job.cpus.size(), q.nr_throttled));
  f.evidence = {{q.file, q.value},
                {q.stat_file + " nr_throttled", std::to_string(q.nr_throttled)},
                {job.cpus_source, job.cpus.ToString()}};
  f.fix =
      "remove the CPU limit for training jobs: echo max > cpu.max (systemd CPUQuota=, docker "
      "--cpus, Kubernetes CPU limits); Slurm constrains cores with cpusets, not quotas";
  f.reference =
      "Documentation/admin-guide/cgroup-v2.rst (cpu.max, cpu.stat); docs/node-checks.md §isolation";
  r.Add(std::move(f));
  return Status::Ok();
}

}  // namespace ys::checks::isolation
