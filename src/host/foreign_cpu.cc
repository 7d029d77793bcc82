#include "host/foreign_cpu.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "host/proc_pid.h"

namespace ys::host {

Result<ProcCpuSample> ParseProcCpuSample(std::string_view status_text, std::string_view stat_text) {
  auto status = ParseProcStatus(status_text);
  if (!status.ok()) return Status::Invalid("status: " + status.status().message());
  auto stat = ParseProcStat(stat_text);
  if (!stat.ok()) return Status::Invalid("stat: " + stat.status().message());
  if (!stat->utime || !stat->stime)
    return Status::Invalid("stat: the line ends before fields 14-15 (utime, stime)");
  return ProcCpuSample{.pid = stat->pid,
                       .comm = stat->comm,
                       .allowed = status->cpus_allowed,
                       .ticks = *stat->utime + *stat->stime};
}

ProcessSnapshot SnapshotProcesses(const Host& host, const std::set<int>& exclude, size_t cap) {
  ProcessSnapshot snap;
  for (int pid : ListPids(host, cap, &snap.pids_seen)) {
    if (exclude.count(pid)) continue;
    std::string dir = "/proc/" + std::to_string(pid);
    auto status = host.ReadFile(dir + "/status");
    auto stat = host.ReadFile(dir + "/stat");
    if (!status.ok() || !stat.ok()) continue;  // exited meanwhile
    auto sample = ParseProcCpuSample(*status, *stat);
    if (sample.ok()) snap.processes.push_back(std::move(*sample));
  }
  snap.capped = snap.pids_seen > cap;
  return snap;
}

std::string ForeignProcess::Describe() const {
  return fmt::format("pid {} ({}) on cpus {}: {:.0f}% of the job cores' time", pid, comm,
                     allowed.ToString(), share * 100);
}

Result<ForeignCpu> AttributeForeignCpu(const ProcessSnapshot& before, const ProcessSnapshot& after,
                                       const CpuSet& job_cpus, double wall_s, long clk_tck) {
  if (job_cpus.empty()) return Status::Invalid("foreign CPU time: the job's CPU set is empty");
  if (!(wall_s > 0) || clk_tck <= 0)
    return Status::Invalid("foreign CPU time: wall time and clock tick must be positive");
  std::map<int, const ProcCpuSample*> start;
  for (const ProcCpuSample& p : before.processes) start[p.pid] = &p;
  ForeignCpu out;
  out.job_cpus = job_cpus;
  out.wall_s = wall_s;
  const double capacity = static_cast<double>(job_cpus.size()) * wall_s;
  for (const ProcCpuSample& p : after.processes) {
    auto it = start.find(p.pid);
    // A pid reused by another program between the snapshots has a different name; its counter
    // restarted, so it has no baseline either.
    if (it == start.end() || it->second->comm != p.comm || p.ticks < it->second->ticks) continue;
    size_t ours = p.allowed.Intersect(job_cpus).size();
    if (ours == 0 || p.allowed.empty()) continue;
    double cpu_s = static_cast<double>(p.ticks - it->second->ticks) / clk_tck *
                   static_cast<double>(ours) / static_cast<double>(p.allowed.size());
    if (cpu_s <= 0) continue;
    out.foreign_cpu_s += cpu_s;
    out.processes.push_back({.pid = p.pid,
                             .comm = p.comm,
                             .allowed = p.allowed,
                             .cpu_s = cpu_s,
                             .share = std::min(1.0, cpu_s / capacity)});
  }
  std::sort(out.processes.begin(), out.processes.end(),
            [](const ForeignProcess& a, const ForeignProcess& b) { return a.cpu_s > b.cpu_s; });
  out.share = std::clamp(out.foreign_cpu_s / capacity, 0.0, 1.0);
  out.note = fmt::format(
      "sum over processes outside the job of delta(utime+stime) / CLK_TCK ({}) x |allowed cpus in "
      "{}| / |allowed cpus|, / ({} cpus x {:.3f} s)",
      clk_tck, job_cpus.ToString(), job_cpus.size(), wall_s);
  if (after.capped)
    out.note += fmt::format("; only the first {} of {} processes were read", after.processes.size(),
                            after.pids_seen);
  return out;
}

}  // namespace ys::host
