// gpu.processes: compute processes already on the GPUs before a validation run. Any of them
// takes memory and SM time from the run; one of another user (uid from /proc/<pid>/status) means
// the node is shared with someone else's job. The process being judged (--pid) is not counted.
#include <optional>
#include <string>

#include "checks/gpu/internal/gpu_common.h"
#include "host/proc_pid.h"

namespace ys::checks {
namespace {

std::string MiB(uint64_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

class GpuProcessesCheck : public Check {
 public:
  CheckResult Run(const CheckContext& ctx) const override {
    CheckResult r;
    const gpu::GpuSnapshot* s = &ctx.gpus();
    const host::Host& h = ctx.host();
    std::optional<uint32_t> own_uid;
    if (auto self = host::ReadProcStatus(h, ctx.ProcDir()); self.ok()) own_uid = self->uid;
    r.Note("judged process uid", own_uid
                                     ? std::to_string(*own_uid)
                                     : "unknown (" + h.Resolve(ctx.ProcDir() + "/status") + ")");
    Unanswered un;
    int judged = 0, total = 0;
    for (const auto& d : s->devices) {
      const auto* procs = un.Get(d, d.compute_processes, "compute_processes");
      if (procs == nullptr) continue;
      ++judged;
      for (const gpu::GpuProcess& p : *procs) {
        if (ctx.pid() && static_cast<int>(p.pid) == *ctx.pid()) continue;
        ++total;
        std::string dir = "/proc/" + std::to_string(p.pid);
        auto st = host::ReadProcStatus(h, dir);
        std::string name = st.ok() && !st->name.empty() ? st->name : "?";
        std::optional<uint32_t> uid = st.ok() ? st->uid : std::nullopt;
        bool foreign = uid && own_uid && *uid != *own_uid;
        std::string who =
            uid ? "uid " + std::to_string(*uid)
                : "uid unknown: " + (st.ok() ? std::string("no Uid line") : st.status().message());
        Finding f =
            MakeFinding(foreign ? "YS-GPU-066" : "YS-GPU-065", GpuEntity(d),
                        "process " + std::to_string(p.pid) + " (" + name + ", " +
                            (uid ? "uid " + std::to_string(*uid) : std::string("uid unknown")) +
                            ") holds " + MiB(p.used_memory_bytes) + " on the GPU" +
                            (foreign ? ": another user's process" : " before the run"));
        f.evidence = GpuIdentity(d);
        f.evidence.emplace_back("nvmlDeviceGetComputeRunningProcesses",
                                "pid " + std::to_string(p.pid) + ", " + MiB(p.used_memory_bytes));
        f.evidence.emplace_back(dir + "/status", name + ", " + who);
        if (own_uid) f.evidence.emplace_back("judged process uid", std::to_string(*own_uid));
        f.fix =
            "nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv; stop "
            "the process (scancel its job, or kill " +
            std::to_string(p.pid) + ") before the run" +
            (foreign ? "; make the scheduler give the job whole nodes (--exclusive) or GPU "
                       "binding (gres/cgroup ConstrainDevices)"
                     : "");
        f.reference =
            "NVML nvmlDeviceGetComputeRunningProcesses; Meta GCM check-nvidia-smi "
            "running_procs";
        r.Add(std::move(f));
      }
    }
    return FinishGpuUnit(std::move(r), judged, "compute process lists", un,
                         "no compute process on " + std::to_string(judged) + " GPUs");
  }
};

}  // namespace

YS_REGISTER(GpuProcessesCheck,
            {.id = "gpu.processes",
             .summary = "Compute processes already on the GPUs before a run, and those of "
                        "other users.",
             .needs = {Need::kGpu},
             .codes = {
                 {"YS-GPU-065", Severity::kWarn, "compute processes already on the GPU"},
                 {"YS-GPU-066", Severity::kFail, "compute processes of another user on the GPU"}}})

}  // namespace ys::checks
