#include "host/thread_affinity.h"

#include <pthread.h>
#include <sched.h>

#include <atomic>
#include <cstring>
#include <exception>
#include <latch>
#include <mutex>
#include <string>
#include <thread>

namespace ys::host {

Status PinThisThread(int cpu) {
  if (cpu < 0 || cpu >= 65536)
    return Status::Invalid("cpu" + std::to_string(cpu) + ": not a CPU number");
  size_t ncpu = static_cast<size_t>(cpu) + 1;
  cpu_set_t* set = CPU_ALLOC(ncpu);
  if (set == nullptr) return Status::Internal("CPU_ALLOC failed");
  size_t bytes = CPU_ALLOC_SIZE(ncpu);
  CPU_ZERO_S(bytes, set);
  CPU_SET_S(static_cast<size_t>(cpu), bytes, set);
  int rc = pthread_setaffinity_np(pthread_self(), bytes, set);
  CPU_FREE(set);
  if (rc != 0) {
    return Status::Unsupported("cannot pin a thread to cpu" + std::to_string(cpu) + ": " +
                               std::strerror(rc) +
                               " (not in this process's allowed CPUs, or offline)");
  }
  return Status::Ok();
}

Status RunPinned(const std::vector<int>& cpus, const std::function<void(int)>& work) {
  if (cpus.empty()) return Status::Invalid("no CPUs to run on");
  const int n = static_cast<int>(cpus.size());
  std::mutex mu;
  Status first_error = Status::Ok();
  auto record = [&](Status s) {
    std::lock_guard<std::mutex> lock(mu);
    if (first_error.ok()) first_error = std::move(s);
  };
  // Every thread waits here until all are pinned, so that work() never starts on some threads
  // while another could not be placed (work() may wait for all of them on a barrier).
  std::latch pinned(n);
  std::atomic<bool> all_pinned{true};
  std::vector<std::thread> threads;
  threads.reserve(cpus.size());
  int started = 0;
  try {
    for (int i = 0; i < n; ++i) {
      threads.emplace_back([&, i] {
        if (Status s = PinThisThread(cpus[i]); !s.ok()) {
          all_pinned = false;
          record(std::move(s));
        }
        pinned.arrive_and_wait();
        if (!all_pinned) return;
        try {
          work(i);
        } catch (const std::exception& e) {
          record(Status::Internal("cpu" + std::to_string(cpus[i]) + ": " + e.what()));
        } catch (...) {
          record(Status::Internal("cpu" + std::to_string(cpus[i]) + ": unknown exception"));
        }
      });
      ++started;
    }
  } catch (const std::exception& e) {
    // The threads already started wait on the latch: release them without running work().
    all_pinned = false;
    record(Status::Internal("cannot start a thread for cpu" + std::to_string(cpus[started]) + ": " +
                            e.what()));
    for (int i = started; i < n; ++i) pinned.count_down();
  }
  for (auto& t : threads) t.join();
  return first_error;
}

}  // namespace ys::host
