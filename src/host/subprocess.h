// Subprocess: the one way yardstick runs another program (sbatch, squeue, scontrol, sacct, or
// itself). An argument vector is executed directly (fork + execvp); there is never a shell, so no
// argument is ever interpreted. Output is captured, stdin is optional, and a deadline bounds the
// whole run: on expiry the child's process group is killed (SIGKILL) and reaped, and the result
// says so. Nothing is left behind: every pipe and the child are owned by RAII objects, so an
// early return still closes the fds and kills and reaps the child.
//
// Thread safety: RunSubprocess may be called from several threads at once; it blocks SIGPIPE
// only in the calling thread while it writes stdin.
#ifndef YARDSTICK_HOST_SUBPROCESS_H_
#define YARDSTICK_HOST_SUBPROCESS_H_

#include <chrono>
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"

namespace ys::host {

struct SubprocessOptions {
  // argv[0] is looked up in PATH when it has no '/'. Must not be empty.
  std::vector<std::string> argv;
  std::optional<std::string> stdin_data;  // absent: stdin is /dev/null
  // The child and everything it started in its process group are killed at this deadline.
  std::chrono::milliseconds timeout{std::chrono::seconds(30)};
  // Added to (or replacing in) the inherited environment.
  std::map<std::string, std::string> env;
  // Each of stdout and stderr keeps at most this many bytes; the rest is read and dropped.
  size_t max_output_bytes = size_t{16} << 20;
};

struct SubprocessResult {
  std::string out;
  std::string err;
  int exit_code = -1;   // when the child exited; -1 otherwise
  int term_signal = 0;  // when a signal ended the child (SIGKILL after a timeout)
  bool timed_out = false;
  bool output_truncated = false;
  std::chrono::milliseconds elapsed{0};

  bool Succeeded() const { return !timed_out && term_signal == 0 && exit_code == 0; }
  // "exit 1", "killed by signal 9", "timed out after 5 s (killed)".
  std::string Describe() const;
  // "sbatch: exit 1: sbatch: error: invalid partition" (first line of stderr, else of stdout).
  std::string Explain(const std::string& program) const;
};

// Errors: an empty argv, an argument with a NUL byte, a program not found or not executable
// ("scontrol: not found in PATH"), or a failure to create pipes or fork. A child that runs and
// fails is not an error: the result carries its exit status.
Result<SubprocessResult> RunSubprocess(const SubprocessOptions& options);

}  // namespace ys::host

#endif  // YARDSTICK_HOST_SUBPROCESS_H_
