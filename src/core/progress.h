// Progress on a terminal: what a long command is doing (its step, the unit, the time since the
// command started) on one stderr line rewritten in place, and for long runs (burn-in) a status line
// that stays. Silent when stderr is not a terminal or the command was asked to be quiet (--quiet):
// progress is for a person watching, never for a log or a pipe. Results never go through here.
//
// One reporter serves the process (Progress()); the logger clears its line before writing so the
// two never share a line. Thread-safe: every call takes the reporter's lock.
#ifndef YARDSTICK_CORE_PROGRESS_H_
#define YARDSTICK_CORE_PROGRESS_H_

#include <chrono>
#include <mutex>
#include <string>
#include <string_view>

namespace ys {

class ProgressReporter {
 public:
  using Clock = std::chrono::steady_clock;

  // Writes to `fd` when it is a terminal and `quiet` is false; otherwise every call is a no-op.
  explicit ProgressReporter(int fd, bool quiet = false);

  bool enabled() const { return enabled_; }
  // The command whose progress this is ("run"); shown first on the line. Restarts the clock.
  void Start(std::string_view command);
  void SetQuiet(bool quiet);

  // "yardstick run: check 3/20 cpu.cstates (4.2 s)": `phase` is the kind of step, `unit` what
  // runs now; `total` 0 when unknown ("check cpu.cstates").
  void Step(std::string_view phase, size_t index, size_t total, std::string_view unit);
  // A free-form transient line ("merge: 1200 documents read").
  void Transient(std::string_view text);
  // A line that stays on the terminal (burn-in's periodic status).
  void Line(std::string_view text);
  // Erases the transient line, if one is shown (before a log line or the results).
  void Clear();

  // The text of a step, as Step shows it (without the terminal's control bytes). For tests.
  static std::string FormatStep(std::string_view command, std::string_view phase, size_t index,
                                size_t total, std::string_view unit, double elapsed_s);

 private:
  void WriteLocked(std::string_view text);
  double ElapsedLocked() const;

  std::mutex mu_;
  int fd_;
  bool tty_;
  bool enabled_;
  bool shown_ = false;  // a transient line is on the terminal
  std::string command_;
  Clock::time_point start_ = Clock::now();
};

// The process's reporter, on stderr.
ProgressReporter& Progress();

}  // namespace ys

#endif  // YARDSTICK_CORE_PROGRESS_H_
