// Persistent worker threads, one pinned to each CPU, for the burn-in's CPU loads: the threads and
// the buffers they first-touched survive from one cycle to the next (a 72-hour burn-in does not
// re-pin and re-fault its arrays every few seconds).
//
// Thread safety: Run() is called from one thread (the load's caller) at a time; it returns with
// every worker idle. work(i) runs on all workers at once and must synchronise what it shares.
#ifndef YARDSTICK_BURNIN_WORKER_POOL_H_
#define YARDSTICK_BURNIN_WORKER_POOL_H_

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/status.h"

namespace ys::burnin {

class WorkerPool {
 public:
  // Starts one thread per entry of `cpus`, thread i pinned to cpus[i]. When one cannot be pinned
  // every thread is stopped and the error names the CPU.
  static Result<std::unique_ptr<WorkerPool>> Start(const std::vector<int>& cpus);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  const std::vector<int>& cpus() const { return cpus_; }
  size_t size() const { return cpus_.size(); }

  // Calls work(i) on worker i, all concurrently, and waits for all of them. Entry i of the result
  // is OK, or Internal with the text of an exception work(i) threw.
  std::vector<Status> Run(const std::function<void(int)>& work);

 private:
  explicit WorkerPool(std::vector<int> cpus) : cpus_(std::move(cpus)) {}
  void Loop(int i);

  std::vector<int> cpus_;
  std::vector<std::thread> threads_;
  std::mutex mu_;
  std::condition_variable wake_;
  std::condition_variable done_;
  const std::function<void(int)>* work_ = nullptr;  // the current job, while pending_ > 0
  uint64_t generation_ = 0;
  size_t pending_ = 0;
  bool stop_ = false;
  std::vector<Status> results_;
  std::vector<Status> pin_;  // each thread's pinning outcome, set before its first job
  size_t pinned_ = 0;
};

}  // namespace ys::burnin

#endif  // YARDSTICK_BURNIN_WORKER_POOL_H_
