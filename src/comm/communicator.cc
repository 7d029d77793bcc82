#include "comm/communicator.h"

#include <unistd.h>

#include "core/text.h"

namespace ys::comm {
namespace {

int IntVar(const host::Environment& env, std::string_view name, int fallback) {
  auto v = env.Get(name);
  if (!v) return fallback;
  auto n = ParseInt(*v);
  return n ? static_cast<int>(*n) : fallback;
}

}  // namespace

LaunchInfo DetectLaunch(const host::Environment& env) {
  LaunchInfo info;
  if (env.Has("OMPI_COMM_WORLD_SIZE")) {
    info.launcher = "mpirun";
    info.rank = IntVar(env, "OMPI_COMM_WORLD_RANK", 0);
    info.size = IntVar(env, "OMPI_COMM_WORLD_SIZE", 1);
    info.local_rank = IntVar(env, "OMPI_COMM_WORLD_LOCAL_RANK", 0);
    info.local_size = IntVar(env, "OMPI_COMM_WORLD_LOCAL_SIZE", 1);
  } else if (env.Has("SLURM_STEP_ID") && env.Has("SLURM_PROCID")) {
    // srun sets SLURM_STEP_ID; an sbatch script's own shell has SLURM_JOB_ID but no step.
    info.launcher = "srun";
    info.rank = IntVar(env, "SLURM_PROCID", 0);
    info.size = IntVar(env, "SLURM_NTASKS", IntVar(env, "SLURM_NPROCS", 1));
    info.local_rank = IntVar(env, "SLURM_LOCALID", 0);
    info.local_size = IntVar(env, "SLURM_NTASKS_PER_NODE", 1);
    if (auto tasks = env.Get("SLURM_STEP_TASKS_PER_NODE")) {
      // "4" or "2(x3)" or "3,2": the first node's count is this node's when the layout is even.
      if (auto n = ParseInt(Split(Split(*tasks, ',')[0], '(')[0]))
        info.local_size = static_cast<int>(*n);
    }
  } else if (env.Has("PMIX_RANK")) {
    info.launcher = "pmix";
    info.rank = IntVar(env, "PMIX_RANK", 0);
    info.size = IntVar(env, "PMIX_SIZE", 1);  // not always set; MPI_Comm_size is authoritative
  } else if (env.Has("PMI_RANK") && env.Has("PMI_SIZE")) {
    info.launcher = "pmi";
    info.rank = IntVar(env, "PMI_RANK", 0);
    info.size = IntVar(env, "PMI_SIZE", 1);
  }
  return info;
}

Result<std::vector<std::string>> Communicator::Hostnames() {
  if (hostnames_.empty()) {
    char name[256] = {};
    if (::gethostname(name, sizeof(name) - 1) != 0) name[0] = '\0';
    auto all = AllGather(name);
    if (!all.ok()) return all.status();
    hostnames_ = std::move(*all);
  }
  return hostnames_;
}

Result<std::unique_ptr<Communicator>> OpenCommunicator(const host::Environment& env) {
  if (DetectLaunch(env).launched()) return OpenMpiCommunicator();
  return std::unique_ptr<Communicator>(std::make_unique<SingleProcessCommunicator>());
}

}  // namespace ys::comm
