// A watchdog for the steps of a job: the main thread enters a named step and leaves it; when a
// step runs past the timeout, the expiry callback runs once, on the watchdog's thread. The
// callback is expected to save what the job has and end the process: a hung collective cannot
// be interrupted from outside.
//
// Thread safety: Enter/Leave from the thread doing the work; the callback on the watchdog's own
// thread. Destruction joins the thread (the callback must not be running then).
#ifndef YARDSTICK_CORE_WATCHDOG_H_
#define YARDSTICK_CORE_WATCHDOG_H_

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace ys {

class Watchdog {
 public:
  // `on_expire(step, seconds)` is called when a step has lasted `timeout_s`. timeout_s <= 0
  // disables the watchdog.
  Watchdog(double timeout_s,
           std::function<void(const std::string& step, double seconds)> on_expire);
  ~Watchdog();
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  void Enter(std::string step);
  // Names what the current step is doing now, without restarting its clock: a whole command
  // bounded by one timeout still says where it stood.
  void Rename(std::string step);
  void Leave();
  double timeout_s() const { return timeout_s_; }

 private:
  void Loop();

  const double timeout_s_;
  std::function<void(const std::string&, double)> on_expire_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  bool in_step_ = false;
  bool fired_ = false;
  std::string step_;
  std::chrono::steady_clock::time_point since_;
  std::thread thread_;
};

// Runs `fn` as the step `name` of `dog` (Enter, fn, Leave), returning what fn returns.
template <typename Fn>
auto InStep(Watchdog& dog, std::string name, Fn&& fn) {
  dog.Enter(std::move(name));
  struct Leaver {
    Watchdog& d;
    ~Leaver() { d.Leave(); }
  } leave{dog};
  return fn();
}

}  // namespace ys

#endif  // YARDSTICK_CORE_WATCHDOG_H_
