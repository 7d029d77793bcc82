#include "slurm/job_tracker.h"

#include <map>
#include <thread>

namespace ys::slurm {

Status TrackJobs(const SlurmClient& slurm, std::vector<TrackedJob>* jobs,
                 const TrackOptions& options) {
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + options.timeout;
  std::string last_error;
  for (;;) {
    std::vector<std::string> open;
    for (const auto& j : *jobs) {
      if (!j.info.Ended()) open.push_back(j.job_id);
    }
    if (open.empty()) return Status::Ok();

    std::map<std::string, std::string> queued;  // job id -> squeue state
    auto q = slurm.Queue(open);
    if (q.ok()) {
      for (const auto& e : *q) queued[e.job_id] = e.state;
    } else {
      last_error = q.status().message();
    }
    for (auto& j : *jobs) {
      if (j.info.Ended()) continue;
      auto it = queued.find(j.job_id);
      // Still queued in the same state: nothing new to ask scontrol about.
      if (q.ok() && it != queued.end() && it->second == j.info.state) continue;
      auto info = slurm.Job(j.job_id);
      if (!info.ok()) {
        last_error = info.status().message();
        continue;
      }
      if (info->state != j.info.state) {
        j.info = std::move(*info);
        if (options.on_change) options.on_change(j);
      } else {
        j.info = std::move(*info);
      }
    }
    auto now = Clock::now();
    if (now >= deadline) break;
    std::this_thread::sleep_for(std::min<Clock::duration>(options.poll, deadline - now));
  }
  std::string open;
  for (const auto& j : *jobs) {
    if (!j.info.Ended()) {
      open += (open.empty() ? "" : ", ") + j.job_id + " (" + j.workload + ", " +
              (j.info.state.empty() ? "state unknown" : j.info.state) + ")";
    }
  }
  return Status::Io("jobs still not ended at the --timeout: " + open + "; they were not cancelled" +
                    (last_error.empty() ? "" : "; last Slurm error: " + last_error));
}

}  // namespace ys::slurm
