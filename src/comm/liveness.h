// Liveness of the ranks of a job, independent of MPI: each rank answers on a TCP port of its
// own from a thread of its own, so rank 0's watchdog can tell which ranks still answer while the
// main threads are blocked in a collective that will never finish (a rank died or hangs).
//
// A dead process answers nothing (the connection is refused or times out); a stopped or wedged
// one does not read (the kernel may accept the connection, but the reply never comes). Either
// way it is named. Nothing here touches MPI, so measurements pay nothing for it.
//
// The responder binds every address of the host on an ephemeral port; its endpoint
// ("host:port") is gathered by the job at start. Thread safety: Probe may run on any thread;
// a LivenessResponder is used from the thread that made it (start, destruction).
#ifndef YARDSTICK_COMM_LIVENESS_H_
#define YARDSTICK_COMM_LIVENESS_H_

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "core/status.h"

namespace ys::comm {

class LivenessResponder {
 public:
  // Listens and answers on a background thread until destroyed.
  static Result<std::unique_ptr<LivenessResponder>> Start(const std::string& advertised_host);
  ~LivenessResponder();
  LivenessResponder(const LivenessResponder&) = delete;
  LivenessResponder& operator=(const LivenessResponder&) = delete;

  // "host:port" for Probe.
  const std::string& endpoint() const { return endpoint_; }

 private:
  LivenessResponder() = default;
  int listen_fd_ = -1;
  int wake_[2] = {-1, -1};  // a pipe that ends the thread's poll()
  std::string endpoint_;
  std::thread thread_;
};

// Asks every endpoint at once and returns the indices of those that did not answer within
// `deadline_s` (an empty endpoint counts as not answering). Malformed endpoints count as not
// answering too.
std::vector<int> UnansweredEndpoints(const std::vector<std::string>& endpoints, double deadline_s);

}  // namespace ys::comm

#endif  // YARDSTICK_COMM_LIVENESS_H_
