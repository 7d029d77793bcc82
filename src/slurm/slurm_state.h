// Parsers for what Slurm's commands print about jobs and nodes: `scontrol show job ID`,
// `squeue -h -o '%i %T'`, `sacct -n -P -o JobID,JobName,State,Submit,Start,End,ExitCode,NodeList`
// and `scontrol show node NAME`. Pure functions on text, tested on literal strings; malformed
// text is an error saying what was expected, never a crash.
#ifndef YARDSTICK_SLURM_SLURM_STATE_H_
#define YARDSTICK_SLURM_SLURM_STATE_H_

#include <ctime>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace ys::slurm {

struct JobInfo {
  std::string job_id;
  std::string name;
  std::string state;        // "PENDING", "RUNNING", "COMPLETED", "FAILED", "CANCELLED", ...
  std::string submit_time;  // as Slurm prints it: "2026-11-29T19:11:04"; empty when unknown
  std::string start_time;
  std::string end_time;
  std::string exit_code;  // "0:0" (exit status:signal)
  std::string node_list;
  std::string reason;  // why it is pending ("Resources"), "None"

  // A state from which the job never leaves (COMPLETED, FAILED, CANCELLED, TIMEOUT, ...).
  bool Ended() const;
  // StartTime - SubmitTime in seconds, once the job has started.
  std::optional<double> SubmitToStartSeconds() const;
};

bool IsEndedJobState(std::string_view state);

// "2026-11-29T19:11:04" (local time, as Slurm prints it) -> seconds since the epoch.
// "Unknown", "None", "N/A" and "" -> nullopt. Anything else is an error.
Result<std::optional<std::time_t>> ParseSlurmTime(std::string_view text);

Result<JobInfo> ParseScontrolJob(std::string_view text);

struct QueueEntry {
  std::string job_id;
  std::string state;
};
// Lines of `squeue -h -o '%i %T'`.
Result<std::vector<QueueEntry>> ParseSqueue(std::string_view text);

// `sacct -n -P -o JobID,JobName,State,Submit,Start,End,ExitCode,NodeList -j ID`: the line of the
// job itself (not its steps, "ID.batch").
Result<JobInfo> ParseSacct(std::string_view text, std::string_view job_id);

struct NodeInfo {
  std::string name;
  std::string state;        // "IDLE+DRAIN", "MIXED", "DOWN*+DRAIN"
  std::string reason;       // without Slurm's " [user@time]" suffix; empty when none
  std::string reason_user;  // from that suffix: who set the reason ("root"); empty when absent
  std::string reason_time;  // from that suffix: when ("2026-11-29T19:11:03")
  // DRAIN, DRAINING or DRAINED among the state's flags.
  bool Drained() const;
  bool Down() const;
};
Result<NodeInfo> ParseScontrolNode(std::string_view text);

}  // namespace ys::slurm

#endif  // YARDSTICK_SLURM_SLURM_STATE_H_
