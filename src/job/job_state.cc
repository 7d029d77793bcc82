#include "job/job_state.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>

#include "comm/liveness.h"
#include "core/atomic_file.h"
#include "core/exit_codes.h"
#include "core/log.h"
#include "core/run_document_json.h"
#include "core/text.h"

namespace ys::job {
namespace {

// How long rank 0 waits for a rank to answer the liveness probe.
constexpr double kProbeSeconds = 10;

// The pipe between the signal handler and the catcher's thread.
int g_signal_pipe[2] = {-1, -1};

extern "C" void OnJobSignal(int signo) {
  unsigned char b = static_cast<unsigned char>(signo);
  [[maybe_unused]] ssize_t n = ::write(g_signal_pipe[1], &b, 1);
}

}  // namespace

void JobState::Starting(const std::string& step) {
  std::lock_guard<std::mutex> lock(mu_);
  doc_.incomplete = true;
  doc_.incomplete_reason =
      "the job ended (or was still running) during " + step + ", started " + UtcNowIso8601();
  SaveLocked();
}

RunDocument JobState::Finish() {
  std::lock_guard<std::mutex> lock(mu_);
  doc_.incomplete = false;
  doc_.incomplete_reason.clear();
  doc_.duration_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0_).count();
  SaveLocked();
  return doc_;
}

void JobState::Abort(const std::string& reason) {
  if (aborting_.exchange(true)) {
    for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
  }
  Log(LogLevel::kError, "{}", reason);
  std::lock_guard<std::mutex> lock(mu_);
  // Saved at once: a launcher that follows SIGTERM with SIGKILL leaves no time for the probe.
  doc_.incomplete = true;
  doc_.incomplete_reason = reason;
  SaveLocked();
  std::string named = NameSilentRanksLocked();
  doc_.incomplete = true;
  doc_.incomplete_reason = named.empty() ? reason : reason + "; " + named;
  doc_.duration_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0_).count();
  SaveLocked();
  Log(LogLevel::kError, "run incomplete: {}", doc_.incomplete_reason);
  if (!out_path_.empty()) Log(LogLevel::kError, "what was measured is kept in {}", out_path_);
  if (on_abort_) on_abort_(doc_);
  std::fflush(stdout);
  std::fflush(stderr);
  std::_Exit(kExitCannotRun);
}

std::string JobState::NameSilentRanksLocked() {
  if (endpoints_.size() <= 1) return "";
  std::string named;
  std::vector<std::string> others = endpoints_;
  others[0].clear();  // rank 0 is this process
  for (int r : comm::UnansweredEndpoints(others, kProbeSeconds)) {
    if (r == 0 || r >= static_cast<int>(doc_.ranks.size())) continue;
    RankStatus& rs = doc_.ranks[r];
    rs.state = "lost";
    rs.detail = fmt::format("did not answer a liveness probe within {:.0f} s: it died or hangs",
                            kProbeSeconds);
    named += fmt::format("{}rank {} on {}", named.empty() ? "" : ", ", r, rs.hostname);
  }
  if (named.empty()) return "every rank still answers (a hung collective, device or file system)";
  return named + " stopped answering";
}

void JobState::SaveLocked() {
  if (out_path_.empty()) return;
  if (Status s = WriteFileAtomic(out_path_, DumpJson(ToJson(doc_)) + "\n"); !s.ok()) {
    Log(LogLevel::kWarn, "{}", s.message());
  }
}

SignalCatcher::SignalCatcher(JobState& state) {
  if (::pipe2(g_signal_pipe, O_CLOEXEC) != 0) return;
  struct sigaction sa {};
  sa.sa_handler = OnJobSignal;
  sigemptyset(&sa.sa_mask);
  for (int s : {SIGTERM, SIGINT, SIGHUP}) ::sigaction(s, &sa, &old_[s]);
  thread_ = std::thread([&state] {
    unsigned char b = 0;
    if (::read(g_signal_pipe[0], &b, 1) != 1 || b == 0) return;
    state.Abort(
        fmt::format("terminated by signal {} ({}): the launcher ends the job when a rank "
                    "dies, or the job was cancelled",
                    static_cast<int>(b), ::strsignal(b)));
  });
}

SignalCatcher::~SignalCatcher() {
  if (!thread_.joinable()) return;
  for (int s : {SIGTERM, SIGINT, SIGHUP}) ::sigaction(s, &old_[s], nullptr);
  unsigned char zero = 0;
  [[maybe_unused]] ssize_t n = ::write(g_signal_pipe[1], &zero, 1);
  thread_.join();
  ::close(g_signal_pipe[0]);
  ::close(g_signal_pipe[1]);
}

}  // namespace ys::job
