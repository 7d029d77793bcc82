// cpu.isolation: the job's effective cpuset and what else may run on it: other jobs' or steps'
// cpusets, processes and kernel threads outside the job pinned to or running on its cores,
// device interrupts landing there, a CPU quota, and isolcpus/nohz_full over its cores
// (reference: docs/node-checks.md §isolation; Exemplar case 2: hypervisor housekeeping threads
// pinned to the data-loader cores caused 50-100 ms stalls; cpusets plus NUMA binding took the gap
// from 12% to 3%).
//
// Which cgroup and cores are the job's, other jobs' and steps' cpusets over them, and a CPU quota:
// checks/cpu/internal/isolation_cgroups.h.
//
// The process scan reads only /proc/<pid>/status for every process (and stat, cgroup for the few
// that touch the job's cores), up to kMaxProcesses, and says when it stopped early. Only the
// main thread of each process is looked at.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include "checks/check.h"
#include "checks/cpu/internal/isolation_cgroups.h"
#include "core/text.h"
#include "host/cgroup.h"
#include "host/interrupts.h"
#include "host/proc_pid.h"
#include "host/procfs.h"

namespace ys::checks::isolation {
namespace {

constexpr size_t kMaxProcesses = 4096;
constexpr size_t kMaxListed = 10;  // processes or IRQs spelled out in one finding

// Per-CPU kernel threads ("ksoftirqd/3", "migration/3", "kworker/3:1H", "cpuhp/3") are bound to
// the CPU in their name on every machine; they are not interference.
bool IsPerCpuKthread(const std::string& name, const CpuSet& allowed) {
  if (allowed.size() != 1) return false;
  size_t slash = name.rfind('/');
  if (slash == std::string::npos) return false;
  std::string_view tail(name);
  tail = tail.substr(slash + 1);
  tail = tail.substr(0, tail.find(':'));
  auto cpu = ParseUint(tail);
  return cpu && allowed.Contains(static_cast<int>(*cpu));
}

// The path of `line` in the hierarchy of `cg`.
std::optional<std::string> PathIn(const std::vector<host::ProcCgroupLine>& lines,
                                  const host::CgroupDir& cg) {
  for (const auto& l : lines) {
    if (cg.version == host::CgroupVersion::kV2 ? l.IsUnified() : l.Has("cpuset")) return l.path;
  }
  return std::nullopt;
}

bool Under(std::string_view path, std::string_view top) {
  return top == "/" || path == top || StartsWith(path, std::string(top) + "/");
}

// isolcpus= / nohz_full= (sysfs first, the command line otherwise) over the job's cores.
Status CheckIsolcpus(const host::Host& h, const Job& job, CheckResult& r) {
  auto cmdline = h.ReadFile("/proc/cmdline");
  auto cl = host::KernelCmdline::Parse(cmdline.ok() ? *cmdline : "");
  auto read = [&](const char* sysfs, const char* key, CpuSet* out, std::string* src) -> Status {
    if (auto line = h.ReadLine(sysfs); line.ok()) {
      std::string v = *line == "(null)" ? "" : *line;
      auto s = CpuSet::ParseList(v);
      if (!s.ok()) return Status::Invalid(h.Resolve(sysfs) + ": " + s.status().message());
      *out = *s;
      *src = sysfs;
      return Status::Ok();
    }
    auto v = cl.Value(key);
    if (!v) return Status::Ok();
    std::string list;  // drop flags: isolcpus=domain,managed_irq,2-5
    for (std::string_view item : Split(*v, ',')) {
      if (!item.empty() && std::isdigit(static_cast<unsigned char>(item.front()))) {
        list += (list.empty() ? "" : ",") + std::string(item);
      }
    }
    auto s = CpuSet::ParseList(list);
    if (!s.ok()) {
      return Status::Invalid(h.Resolve("/proc/cmdline") + ": " + key + "=" + *v + ": " +
                             s.status().message());
    }
    *out = *s;
    *src = std::string("/proc/cmdline ") + key + "=" + *v;
    return Status::Ok();
  };
  CpuSet iso, nohz;
  std::string iso_src, nohz_src;
  YS_RETURN_IF_ERROR(read("/sys/devices/system/cpu/isolated", "isolcpus", &iso, &iso_src));
  YS_RETURN_IF_ERROR(read("/sys/devices/system/cpu/nohz_full", "nohz_full", &nohz, &nohz_src));
  r.Note("isolcpus", iso.empty() ? "none" : iso.ToString());
  r.Note("nohz_full", nohz.empty() ? "none" : nohz.ToString());
  CpuSet both = iso.Union(nohz).Intersect(job.cpus);
  if (both.empty()) return Status::Ok();
  std::string what = !iso.Intersect(job.cpus).empty() ? "isolcpus" : "nohz_full";
  if (what == "isolcpus" && !nohz.Intersect(job.cpus).empty()) what = "isolcpus and nohz_full";
  Finding f =
      MakeFinding("YS-ISO-005", "cpu" + both.ToString(),
                  what + " cover the job's cores " + both.ToString() +
                      ": the scheduler does not balance the job's threads (data loaders) there");
  if (!iso.empty()) f.evidence.push_back({iso_src, iso.ToString()});
  if (!nohz.empty()) f.evidence.push_back({nohz_src, nohz.ToString()});
  f.evidence.push_back({job.cpus_source, job.cpus.ToString()});
  f.fix =
      "remove isolcpus=/nohz_full= for the job's cores (keep them on housekeeping cores only) "
      "and isolate with cpusets instead: Slurm CpuSpecList=/CoreSpecCount=";
  f.reference =
      "Documentation/admin-guide/kernel-parameters.txt (isolcpus, nohz_full); docs/node-checks.md "
      "§isolation";
  r.Add(std::move(f));
  return Status::Ok();
}

struct Foreign {
  int pid;
  std::string name;
  CpuSet allowed;
  std::optional<int> cpu;  // where it runs now (state R on a job core)
  std::string cgroup;
};

// YS-ISO-001 for the processes outside the job found on its cores.
Finding ForeignFinding(const std::vector<Foreign>& found, const Job& job) {
  CpuSet hit;
  std::string names;
  Finding f = MakeFinding("YS-ISO-001", "", "");
  for (size_t i = 0; i < found.size(); ++i) {
    const Foreign& p = found[i];
    CpuSet on = p.allowed.Intersect(job.cpus);
    if (p.cpu) on.Insert(*p.cpu);
    hit = hit.Union(on);
    if (i >= kMaxListed) continue;
    names += (names.empty() ? "" : ", ") + fmt::format("{} (pid {})", p.name, p.pid);
    std::string d = "/proc/" + std::to_string(p.pid);
    f.evidence.push_back({d + "/status " + p.name + " Cpus_allowed_list", p.allowed.ToString()});
    if (p.cpu) {
      f.evidence.push_back({d + "/stat state, processor", "R, cpu" + std::to_string(*p.cpu)});
    }
    f.evidence.push_back({d + "/cgroup", p.cgroup});
  }
  if (found.size() > kMaxListed) names += fmt::format(" and {} more", found.size() - kMaxListed);
  f.evidence.push_back({job.cpus_source, job.cpus.ToString()});
  f.entity = "cpu" + hit.ToString();
  f.message = fmt::format("{} process(es) outside the job pinned to or running on its cores {}: {}",
                          found.size(), hit.ToString(), names);
  f.fix =
      "move housekeeping processes off the job's cores: systemctl set-property system.slice "
      "AllowedCPUs=<housekeeping cores> (or taskset -acp <housekeeping cores> <pid>), and "
      "reserve those cores from jobs with Slurm CpuSpecList=/CoreSpecCount=";
  f.expected_recovery = kCase2Recovery + std::string(" (the threads caused 50-100 ms stalls)");
  f.reference = "Exemplar case 2; docs/node-checks.md §isolation (housekeeping threads)";
  return f;
}

// Processes outside the job pinned to (mostly) the job's cores, or running on them now.
Status CheckProcesses(const host::Host& h, const host::ProcStatus& self, const Job& job,
                      const CpuSet& online, CheckResult& r) {
  if (!job.cg || job.path == "/") {
    r.Note("processes", std::string(job.cg ? "the job's cgroup is the root" : "no cgroup") +
                            ": the job's processes cannot be told from others, not scanned");
    return Status::Ok();
  }
  size_t total = 0;
  std::vector<int> pids = host::ListPids(h, kMaxProcesses, &total);
  const bool job_owns_all = !online.empty() && online.IsSubsetOf(job.cpus);
  std::vector<Foreign> found;
  size_t unreadable = 0, per_cpu_kthreads = 0;
  for (int pid : pids) {
    if (self.pid && pid == *self.pid) continue;
    std::string dir = "/proc/" + std::to_string(pid);
    auto st = host::ReadProcStatus(h, dir);
    if (!st.ok()) {  // gone since the listing, or unreadable: not this check's business
      if (st.status().code() != StatusCode::kNotFound) ++unreadable;
      continue;
    }
    const CpuSet& a = st->cpus_allowed;
    bool restricted = online.empty() ? !job.cpus.IsSubsetOf(a) : !online.IsSubsetOf(a);
    bool pinned = restricted && !a.empty() && a.Intersect(job.cpus).size() * 2 > a.size();
    bool maybe_running = st->state == 'R' && !job_owns_all;
    if (!pinned && !maybe_running) continue;
    auto stat = host::ReadProcStat(h, dir);
    bool kthread = st->kthread.value_or(stat.ok() && stat->IsKernelThread());
    bool running =
        maybe_running && stat.ok() && stat->processor && job.cpus.Contains(*stat->processor);
    if (kthread) {
      // Kernel threads are judged only when pinned, and never the per-CPU ones or threaded IRQ
      // handlers (those follow the IRQ's affinity, checked below).
      if (IsPerCpuKthread(st->name, a)) {
        ++per_cpu_kthreads;
        continue;
      }
      if (!pinned || StartsWith(st->name, "irq/")) continue;
    }
    if (!pinned && !running) continue;
    std::string cgpath = "?";
    if (job.cg) {
      if (auto lines = host::ReadProcCgroup(h, dir); lines.ok()) {
        if (auto p = PathIn(*lines, *job.cg)) cgpath = *p;
      }
      if (cgpath != "?" && Under(cgpath, job.path)) continue;  // one of the job's own
    }
    found.push_back({pid, st->name, a, running ? stat->processor : std::nullopt, cgpath});
  }
  r.Note("processes.scanned",
         std::to_string(pids.size()) + " of " + std::to_string(total) +
             (pids.size() < total ? " (capped at " + std::to_string(kMaxProcesses) + ")" : "") +
             ", main threads only");
  if (per_cpu_kthreads > 0) {
    r.Note("processes.per_cpu_kthreads",
           std::to_string(per_cpu_kthreads) + " on job cores (expected)");
  }
  if (unreadable > 0) r.Note("processes.unreadable", std::to_string(unreadable));
  if (!found.empty()) r.Add(ForeignFinding(found, job));
  return Status::Ok();
}

// A device interrupt whose affinity lands on the job's cores.
struct IrqHit {
  int irq;
  std::string name, source;
  CpuSet cpus;
  uint64_t count;
};

// YS-ISO-002 for the IRQs on the job's cores, the busiest first.
Finding IrqFinding(std::vector<IrqHit> hits, const Job& job, const CpuSet& online) {
  std::stable_sort(hits.begin(), hits.end(),
                   [](const IrqHit& a, const IrqHit& b) { return a.count > b.count; });
  Finding f = MakeFinding("YS-ISO-002", "irq" + std::to_string(hits.front().irq), "");
  std::string names;
  for (size_t i = 0; i < hits.size() && i < kMaxListed; ++i) {
    const IrqHit& x = hits[i];
    names += (names.empty() ? "" : ", ") +
             fmt::format("{} {} on cpu{} ({} so far)", x.irq, x.name, x.cpus.ToString(), x.count);
    f.evidence.push_back({x.source + " (" + x.name + ")", x.cpus.ToString()});
    f.evidence.push_back(
        {"/proc/interrupts " + std::to_string(x.irq) + " on job cores", std::to_string(x.count)});
  }
  if (hits.size() > kMaxListed) names += fmt::format(" and {} more", hits.size() - kMaxListed);
  f.evidence.push_back({job.cpus_source, job.cpus.ToString()});
  f.message = fmt::format("{} device IRQ(s) fire on the job's cores: {}", hits.size(), names);
  CpuSet housekeeping = online.Minus(job.cpus);
  std::string hk = housekeeping.empty() ? "<housekeeping cores>" : housekeeping.ToString();
  f.fix = "echo " + hk + " > /proc/irq/" + std::to_string(hits.front().irq) +
          "/smp_affinity_list for each IRQ (mlx5: set_irq_affinity_cpulist.sh " + hk +
          " <dev>); keep them there with IRQBALANCE_BANNED_CPULIST=" + job.cpus.ToString() +
          " or irqaffinity=" + hk + " on the kernel command line";
  f.reference =
      "docs/node-checks.md §isolation (IRQs); Documentation/core-api/irq/irq-affinity.rst";
  return f;
}

// Device interrupts whose (effective) affinity lands on the job's cores.
Status CheckIrqs(const CheckContext& ctx, const Job& job, const CpuSet& online, CheckResult& r) {
  const host::Host& h = ctx.host();
  if (!h.Exists("/proc/irq") || !h.Exists("/proc/interrupts")) {
    r.Note("irqs", "/proc/irq or /proc/interrupts is absent");
    return Status::Ok();
  }
  if (auto text = h.ReadFile("/proc/interrupts"); text.ok() && Trim(*text).empty()) {
    // The kernel always prints the CPU header; an empty copy records no interrupt counts.
    r.Note("irqs", h.Resolve("/proc/interrupts") + ": empty file: IRQ placement not judged");
    return Status::Ok();
  }
  auto table = host::ReadInterrupts(h);
  if (!table.ok()) return table.status();
  auto irqs = host::ReadIrqAffinities(h);
  if (!irqs.ok()) return irqs.status();
  std::vector<IrqHit> hits;
  size_t managed = 0;
  for (const auto& a : *irqs) {
    const host::InterruptRow* row = table->Find(a.irq);
    if (row == nullptr) continue;  // no handler
    CpuSet on = a.cpus.Intersect(job.cpus);
    if (on.empty()) continue;
    // NVMe I/O queue vectors are managed per CPU and fire for I/O submitted on that CPU.
    if (StartsWith(row->name, "nvme") && row->name.find('q') != std::string::npos &&
        !EndsWith(row->name, "q0")) {
      ++managed;
      continue;
    }
    hits.push_back({a.irq, row->name, a.source, on, table->CountOn(*row, job.cpus)});
  }
  r.Note("irqs.on_job_cores", std::to_string(hits.size()) + " of " + std::to_string(irqs->size()));
  if (managed > 0) {
    r.Note("irqs.nvme_queues",
           std::to_string(managed) + " managed NVMe queue vectors on job cores (not counted)");
  }
  if (hits.empty()) return Status::Ok();
  if (online.empty()) {
    // Neither a topology nor a readable `online` list: which cores are the job's alone cannot
    // be told, so where the IRQs fire is not judged.
    r.Note("irqs", "online CPUs unknown: IRQ placement not judged");
    return Status::Ok();
  }
  if (online.IsSubsetOf(job.cpus)) {
    r.Note("irqs", "the job owns every CPU: device IRQs have nowhere else to go");
    return Status::Ok();
  }
  if (ctx.param<bool>("irqs_on_job_cores")) {
    r.Note("irqs", "accepted by site policy isolation.irqs_on_job_cores");
    return Status::Ok();
  }
  r.Add(IrqFinding(std::move(hits), job, online));
  return Status::Ok();
}

class CoreIsolationCheck : public Check {
 public:
  CheckResult Run(const CheckContext& ctx) const override {
    const host::Host& h = ctx.host();
    const std::string proc = ctx.ProcDir();
    if (!h.Exists(proc + "/status") && !h.Exists(proc + "/cgroup")) {
      return CheckResult::Skip(h.Resolve(proc) + " is absent: not a Linux /proc");
    }
    auto self = host::ReadProcStatus(h, proc);
    if (!self.ok() && self.status().code() == StatusCode::kNotFound && h.Exists(proc + "/status")) {
      return CheckResult::Skip(self.status().message() +
                               ": the process's CPUs are unknown, isolation not judged");
    }
    if (!self.ok()) return CheckResult::Error(self.status());
    CheckResult r;
    auto job = ResolveJob(h, proc, *self, r);
    if (!job.ok()) return CheckResult::Error(job.status());
    r.Note("job.cpus", job->cpus.ToString() + " (" + job->cpus_source + ")");
    r.Note("process.cpus", self->cpus_allowed.ToString());
    CpuSet online;
    if (const auto& topo = ctx.topology(); topo.ok()) {
      online = topo->online_cpus;
    } else if (auto line = h.ReadLine("/sys/devices/system/cpu/online"); line.ok()) {
      // Without a topology (a malformed file elsewhere in the tree), the kernel's own list still
      // tells housekeeping cores from the job's; an empty set would put every IRQ on the job.
      if (auto set = CpuSet::ParseList(*line); set.ok()) online = *set;
      r.Note("online", online.ToString() + " (from /sys/devices/system/cpu/online: no topology)");
    }

    for (const Status& s :
         {CheckSiblings(h, *job, r), CheckQuota(h, proc, *job, r), CheckIsolcpus(h, *job, r),
          CheckProcesses(h, *self, *job, online, r), CheckIrqs(ctx, *job, online, r)}) {
      if (!s.ok()) return CheckResult::Error(s);
    }
    if (r.findings.empty()) {
      r.summary =
          "job cores " + job->cpus.ToString() + ": no other job, process, IRQ or quota on them";
    }
    return r;
  }
};

}  // namespace

YS_REGISTER(CoreIsolationCheck,
            {.id = "cpu.isolation",
             .summary = "The job's effective cpuset and what else may run on it: other jobs' "
                        "cpusets, foreign processes and threads, device IRQs, CPU quota, "
                        "isolcpus/nohz_full.",
             .needs = {},
             .codes = {{"YS-ISO-001", Severity::kFail,
                        "other processes pinned to or running on the job's cores"},
                       {"YS-ISO-002", Severity::kWarn, "device interrupts land on the job's cores"},
                       {"YS-ISO-003", Severity::kFail,
                        "job cpuset shared with another job or step"},
                       {"YS-ISO-004", Severity::kFail, "CPU quota throttles the job"},
                       {"YS-ISO-005", Severity::kWarn, "isolcpus/nohz_full cover the job's cores"}},
             .params = {{.name = "irqs_on_job_cores",
                         .type = ParamType::kBool,
                         .default_value = false,
                         .meaning = "true: the site accepts device IRQs on the job's cores",
                         .site_table = "isolation"}}})

}  // namespace ys::checks::isolation
