// Slurm's commands (sbatch, squeue, scontrol, sacct), each run through host::RunSubprocess: an
// argument vector, never a shell, with a deadline so that an unreachable slurmctld makes a call
// fail in bounded time instead of hanging the caller.
#ifndef YARDSTICK_SLURM_SLURM_CLIENT_H_
#define YARDSTICK_SLURM_SLURM_CLIENT_H_

#include <chrono>
#include <string>
#include <vector>

#include "core/status.h"
#include "slurm/slurm_state.h"

namespace ys::slurm {

class SlurmClient {
 public:
  // `timeout` bounds each command.
  explicit SlurmClient(std::chrono::milliseconds timeout) : timeout_(timeout) {}

  // `sbatch --parsable FILE` -> the job id.
  Result<std::string> Submit(const std::string& script_path) const;
  // `squeue -h -j IDS -o '%i %T'`: the jobs Slurm still lists as queued or running. A job that
  // ended leaves this list (then ask Job()).
  Result<std::vector<QueueEntry>> Queue(const std::vector<std::string>& job_ids) const;
  // `scontrol show job ID`; when slurmctld no longer knows the job (it forgets ended jobs after
  // MinJobAge), `sacct` if accounting works. Both failing is an error with both reasons.
  Result<JobInfo> Job(const std::string& job_id) const;
  Result<NodeInfo> Node(const std::string& node) const;
  // scontrol update NodeName=NODE State=DRAIN Reason=REASON
  Status Drain(const std::string& node, const std::string& reason) const;
  // scontrol update NodeName=NODE State=RESUME
  Status Resume(const std::string& node) const;

 private:
  // Runs argv; a timeout, a failure or a missing program becomes an error naming the command.
  Result<std::string> Run(const std::vector<std::string>& argv) const;
  std::chrono::milliseconds timeout_;
};

}  // namespace ys::slurm

#endif  // YARDSTICK_SLURM_SLURM_CLIENT_H_
