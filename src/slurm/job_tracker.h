// Follows submitted jobs until they end: one `squeue` for all of them per poll, and
// `scontrol show job` (else sacct) for each job that changed or left the queue.
#ifndef YARDSTICK_SLURM_JOB_TRACKER_H_
#define YARDSTICK_SLURM_JOB_TRACKER_H_

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "core/status.h"
#include "slurm/slurm_client.h"
#include "slurm/slurm_state.h"

namespace ys::slurm {

struct TrackedJob {
  std::string workload;
  std::string job_id;
  JobInfo info;  // the last state seen (info.state empty before the first look)
};

struct TrackOptions {
  std::chrono::milliseconds poll{std::chrono::seconds(2)};
  std::chrono::milliseconds timeout{std::chrono::hours(24)};
  // Called when a job's state changes (PENDING -> RUNNING -> COMPLETED).
  std::function<void(const TrackedJob&)> on_change;
};

// OK when every job has ended. At the deadline: an error listing the jobs still pending or
// running (their last state is kept in *jobs; nothing is cancelled). Slurm calls that fail are
// retried at the next poll until the deadline, and the last failure is named then.
Status TrackJobs(const SlurmClient& slurm, std::vector<TrackedJob>* jobs,
                 const TrackOptions& options);

}  // namespace ys::slurm

#endif  // YARDSTICK_SLURM_JOB_TRACKER_H_
