#include "burnin/worker_pool.h"

#include <exception>

#include "host/thread_affinity.h"

namespace ys::burnin {

Result<std::unique_ptr<WorkerPool>> WorkerPool::Start(const std::vector<int>& cpus) {
  if (cpus.empty()) return Status::Invalid("no CPUs to run the load's workers on");
  std::unique_ptr<WorkerPool> pool(new WorkerPool(cpus));
  pool->pin_.assign(cpus.size(), Status::Ok());
  pool->results_.assign(cpus.size(), Status::Ok());
  for (size_t i = 0; i < cpus.size(); ++i) {
    try {
      pool->threads_.emplace_back([p = pool.get(), i] { p->Loop(static_cast<int>(i)); });
    } catch (const std::exception& e) {
      // The destructor stops and joins the threads already started.
      return Status::Internal("cannot start a worker thread for cpu" + std::to_string(cpus[i]) +
                              ": " + e.what());
    }
  }
  {
    std::unique_lock lock(pool->mu_);
    pool->done_.wait(lock, [&] { return pool->pinned_ == cpus.size(); });
  }
  for (const Status& s : pool->pin_) {
    if (!s.ok()) return s;
  }
  return pool;
}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  for (auto& t : threads_) t.join();
}

void WorkerPool::Loop(int i) {
  Status pinned = host::PinThisThread(cpus_[i]);
  uint64_t seen = 0;
  {
    std::lock_guard lock(mu_);
    pin_[i] = pinned;
    ++pinned_;
  }
  done_.notify_all();
  for (;;) {
    const std::function<void(int)>* work = nullptr;
    {
      std::unique_lock lock(mu_);
      wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
      work = work_;
    }
    Status s = Status::Ok();
    try {
      (*work)(i);
    } catch (const std::exception& e) {
      s = Status::Internal(std::string("worker on cpu") + std::to_string(cpus_[i]) + ": " +
                           e.what());
    } catch (...) {
      s = Status::Internal("worker on cpu" + std::to_string(cpus_[i]) + ": unknown exception");
    }
    {
      std::lock_guard lock(mu_);
      results_[i] = std::move(s);
      --pending_;
    }
    done_.notify_all();
  }
}

std::vector<Status> WorkerPool::Run(const std::function<void(int)>& work) {
  {
    std::lock_guard lock(mu_);
    work_ = &work;
    pending_ = cpus_.size();
    results_.assign(cpus_.size(), Status::Ok());
    ++generation_;
  }
  wake_.notify_all();
  std::unique_lock lock(mu_);
  done_.wait(lock, [&] { return pending_ == 0; });
  work_ = nullptr;
  return results_;
}

}  // namespace ys::burnin
