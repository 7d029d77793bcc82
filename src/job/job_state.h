// Rank 0's document while a job runs (job.h), shared with the watchdog and the signal thread:
// saved after every change and marked incomplete until the job finishes; when the job is cut
// short (a timeout, a failed gather, a signal) it is saved with the ranks that no longer answer
// named, shown, and the process ends.
#ifndef YARDSTICK_JOB_JOB_STATE_H_
#define YARDSTICK_JOB_JOB_STATE_H_

#include <signal.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/run_document.h"

namespace ys::job {

using Clock = std::chrono::steady_clock;

class JobState {
 public:
  JobState(RunDocument doc, std::string out_path, std::function<void(const RunDocument&)> on_abort,
           Clock::time_point t0)
      : doc_(std::move(doc)),
        out_path_(std::move(out_path)),
        on_abort_(std::move(on_abort)),
        t0_(t0) {}

  // Changes the document under the lock, then saves it (incomplete until Finish).
  template <typename Fn>
  void Update(Fn&& fn) {
    std::lock_guard<std::mutex> lock(mu_);
    fn(doc_);
    doc_.incomplete = true;
    SaveLocked();
  }

  // Saves the document saying which step runs now: if the job dies without a word (SIGKILL),
  // the document on disk still says where it ended.
  void Starting(const std::string& step);
  // The document complete, saved, with the job's duration.
  RunDocument Finish();

  void set_endpoints(std::vector<std::string> e) {
    std::lock_guard<std::mutex> lock(mu_);
    endpoints_ = std::move(e);
  }

  // Saves the document marked incomplete with `reason` and the ranks that no longer answer,
  // shows it, and ends the process. Called at most once (later callers wait for the exit).
  [[noreturn]] void Abort(const std::string& reason);

 private:
  // ", rank 3 on node7 stopped answering" (the ranks marked lost), or why none was named.
  std::string NameSilentRanksLocked();
  void SaveLocked();

  std::mutex mu_;
  RunDocument doc_;
  std::string out_path_;
  std::function<void(const RunDocument&)> on_abort_;
  Clock::time_point t0_;
  std::vector<std::string> endpoints_;
  std::atomic<bool> aborting_{false};
};

// SIGTERM, SIGINT and SIGHUP (a launcher ending the job, Ctrl-C) abort rank 0's JobState while
// the catcher lives; the handler only writes a byte to a pipe, the work happens on a thread.
class SignalCatcher {
 public:
  explicit SignalCatcher(JobState& state);
  ~SignalCatcher();
  SignalCatcher(const SignalCatcher&) = delete;
  SignalCatcher& operator=(const SignalCatcher&) = delete;

 private:
  struct sigaction old_[NSIG] {};
  std::thread thread_;
};

}  // namespace ys::job

#endif  // YARDSTICK_JOB_JOB_STATE_H_
