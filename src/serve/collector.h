// Collectors and the snapshots they publish: what keeps a scrape fast and safe whatever the
// hardware does.
//
// Each Collector runs on its own background thread, once per interval (the larger of
// Options::interval_s and the collector's own min_interval_s()), and publishes an immutable
// CollectorReport through a shared_ptr swapped under a short lock. A scrape (Scrape()) only copies
// those pointers: it never calls a collector and never waits on one, so a collector that hangs or
// takes longer than Options::timeout_s cannot hold a scrape up. Such a collector is reported
// instead: yardstick_collector_up{collector=...} 0 while its current run has lasted longer than
// the timeout or its last run failed, with yardstick_collector_duration_seconds and
// yardstick_collector_staleness_seconds. Its last good samples are served until they are older
// than stale_after_s() (3 intervals plus the timeout), then dropped: a value that old is no
// longer a reading of the node.
//
// Thread safety: Scrape() and Latest() may be called from any number of threads at once.
#ifndef YARDSTICK_SERVE_COLLECTOR_H_
#define YARDSTICK_SERVE_COLLECTOR_H_

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "core/status.h"
#include "serve/exposition.h"

namespace ys::serve {

class Collector {
 public:
  virtual ~Collector() = default;
  // Stable, short: "gpu", "infiniband", "cpu_clock", "run".
  virtual std::string_view name() const = 0;
  // Never more often than this (a collector that costs the node something, like the busy-clock
  // probe, asks for a longer interval than the scrape interval).
  virtual double min_interval_s() const { return 0; }
  // One reading. Called from one thread only (its worker), so it may keep state between calls
  // (previous counters, for rates).
  virtual Result<Exposition> Collect() = 0;
};

struct CollectorReport {
  bool ok = false;
  std::string error;           // when !ok
  double duration_s = 0;       // of this run
  double finished_unix_s = 0;  // wall clock, when it finished
  std::chrono::steady_clock::time_point finished;
  std::shared_ptr<const Exposition> metrics;  // the last good reading (kept when a run fails)
  std::chrono::steady_clock::time_point metrics_at;
  double metrics_unix_s = 0;
};

class CollectorSet {
 public:
  struct Options {
    double interval_s = 5;
    double timeout_s = 2;
  };

  CollectorSet(std::vector<std::unique_ptr<Collector>> collectors, Options options);
  // Stops the workers and joins them (waits for a run in progress to end).
  ~CollectorSet();
  CollectorSet(const CollectorSet&) = delete;
  CollectorSet& operator=(const CollectorSet&) = delete;

  // Starts one worker thread per collector; the first run starts at once.
  void Start();

  // The latest samples of every collector that has fresh ones, plus the health families above.
  Exposition Scrape() const;
  // The latest report of one collector; nullptr before its first run ends or for an unknown name.
  std::shared_ptr<const CollectorReport> Latest(std::string_view name) const;

  double stale_after_s() const { return 3 * options_.interval_s + options_.timeout_s; }

 private:
  struct Worker {
    std::unique_ptr<Collector> collector;
    std::thread thread;
    mutable std::mutex mu;
    std::shared_ptr<const CollectorReport> latest;                       // guarded by mu
    std::optional<std::chrono::steady_clock::time_point> running_since;  // guarded by mu
  };
  void Run(Worker& w);

  Options options_;
  std::vector<std::unique_ptr<Worker>> workers_;
  std::mutex stop_mu_;
  std::condition_variable stop_cv_;
  bool stop_ = false;  // guarded by stop_mu_
};

}  // namespace ys::serve

#endif  // YARDSTICK_SERVE_COLLECTOR_H_
