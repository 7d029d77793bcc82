// Retries of one Slurm job: NeMo-Run writes "log-<experiment>_<jobid>_<retry>.out" for each
// attempt, and only the newest attempt counts (llmb-run job_logs.py: highest retry number).
#ifndef YARDSTICK_VALIDATE_RETRY_LOGS_H_
#define YARDSTICK_VALIDATE_RETRY_LOGS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ys::validate {

struct RetryLogName {
  std::string experiment;
  std::string job_id;
  int64_t retry = 0;
};

// Parses a file name (the directory part is ignored): "log-llama3_70b_4242_1.out" ->
// {"llama3_70b", "4242", 1}. Nullopt for other names.
std::optional<RetryLogName> ParseRetryLogName(std::string_view path);

// The job id of a retry log, or empty.
std::string JobIdOfLog(std::string_view path);

struct SupersededLog {
  std::string path;
  std::string newest;  // the retry log of the same job that counts instead
};

struct RetrySelection {
  std::vector<std::string> current;  // input order; names that are not retry logs are kept
  std::vector<SupersededLog> superseded;
};

// Within each (directory, experiment, job id) only the highest retry is current. A path given
// twice is kept once.
RetrySelection SelectNewestRetries(const std::vector<std::string>& paths);

}  // namespace ys::validate

#endif  // YARDSTICK_VALIDATE_RETRY_LOGS_H_
