#include "core/watchdog.h"

namespace ys {

Watchdog::Watchdog(double timeout_s, std::function<void(const std::string&, double)> on_expire)
    : timeout_s_(timeout_s), on_expire_(std::move(on_expire)) {
  if (timeout_s_ > 0) thread_ = std::thread([this] { Loop(); });
}

Watchdog::~Watchdog() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void Watchdog::Enter(std::string step) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    step_ = std::move(step);
    since_ = std::chrono::steady_clock::now();
    in_step_ = true;
  }
  cv_.notify_all();
}

void Watchdog::Rename(std::string step) {
  std::lock_guard<std::mutex> lock(mu_);
  step_ = std::move(step);
}

void Watchdog::Leave() {
  std::lock_guard<std::mutex> lock(mu_);
  in_step_ = false;
}

void Watchdog::Loop() {
  const auto timeout = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(timeout_s_));
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    if (!in_step_ || fired_) {
      cv_.wait(lock);
      continue;
    }
    auto deadline = since_ + timeout;
    auto entered = since_;
    if (cv_.wait_until(lock, deadline) == std::cv_status::timeout && !stop_ && in_step_ &&
        since_ == entered) {
      fired_ = true;
      std::string step = step_;
      double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - since_).count();
      lock.unlock();
      on_expire_(step, seconds);
      lock.lock();
    }
  }
}

}  // namespace ys
