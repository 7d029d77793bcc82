#include "serve/collector.h"

#include <algorithm>
#include <exception>

#include "core/log.h"

namespace ys::serve {

namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

double UnixNow() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

CollectorSet::CollectorSet(std::vector<std::unique_ptr<Collector>> collectors, Options options)
    : options_(options) {
  for (auto& c : collectors) {
    auto w = std::make_unique<Worker>();
    w->collector = std::move(c);
    workers_.push_back(std::move(w));
  }
}

CollectorSet::~CollectorSet() {
  {
    std::lock_guard<std::mutex> lock(stop_mu_);
    stop_ = true;
  }
  stop_cv_.notify_all();
  for (auto& w : workers_) {
    if (w->thread.joinable()) w->thread.join();
  }
}

void CollectorSet::Start() {
  for (auto& w : workers_) {
    if (!w->thread.joinable()) w->thread = std::thread([this, worker = w.get()] { Run(*worker); });
  }
}

void CollectorSet::Run(Worker& w) {
  double interval = std::max(options_.interval_s, w.collector->min_interval_s());
  std::string last_error;
  while (true) {
    Clock::time_point start = Clock::now();
    {
      std::lock_guard<std::mutex> lock(w.mu);
      w.running_since = start;
    }
    Result<Exposition> result = Status::Internal("not run");
    try {
      result = w.collector->Collect();
    } catch (const std::exception& e) {  // a collector's bug must not end the exporter
      result = Status::Internal(std::string("collector threw: ") + e.what());
    }
    Clock::time_point end = Clock::now();

    auto report = std::make_shared<CollectorReport>();
    report->duration_s = Seconds(end - start);
    report->finished = end;
    report->finished_unix_s = UnixNow();
    {
      std::lock_guard<std::mutex> lock(w.mu);
      if (w.latest) {
        report->metrics = w.latest->metrics;
        report->metrics_at = w.latest->metrics_at;
        report->metrics_unix_s = w.latest->metrics_unix_s;
      }
    }
    if (result.ok()) {
      report->ok = true;
      report->metrics = std::make_shared<const Exposition>(std::move(result).value());
      report->metrics_at = end;
      report->metrics_unix_s = report->finished_unix_s;
      last_error.clear();
    } else {
      report->error = result.status().message();
      if (report->error != last_error) {  // once per distinct error, not once per interval
        Log(LogLevel::kWarn, "exporter: collector {}: {}", w.collector->name(), report->error);
        last_error = report->error;
      }
    }
    {
      std::lock_guard<std::mutex> lock(w.mu);
      w.latest = std::move(report);
      w.running_since.reset();
    }

    std::unique_lock<std::mutex> lock(stop_mu_);
    auto next = start + std::chrono::duration_cast<Clock::duration>(
                            std::chrono::duration<double>(interval));
    if (stop_cv_.wait_until(lock, next, [this] { return stop_; })) return;
  }
}

std::shared_ptr<const CollectorReport> CollectorSet::Latest(std::string_view name) const {
  for (const auto& w : workers_) {
    if (w->collector->name() != name) continue;
    std::lock_guard<std::mutex> lock(w->mu);
    return w->latest;
  }
  return nullptr;
}

Exposition CollectorSet::Scrape() const {
  Exposition out;
  Clock::time_point now = Clock::now();
  for (const auto& w : workers_) {
    std::shared_ptr<const CollectorReport> latest;
    std::optional<Clock::time_point> running_since;
    {
      std::lock_guard<std::mutex> lock(w->mu);
      latest = w->latest;
      running_since = w->running_since;
    }
    std::string name(w->collector->name());
    Labels labels = {{"collector", name}};
    bool late = running_since && Seconds(now - *running_since) > options_.timeout_s;
    bool fresh = latest && latest->metrics && Seconds(now - latest->metrics_at) <= stale_after_s();
    bool up = latest && latest->ok && !late && fresh;
    out.Add("yardstick_collector_up", MetricType::kGauge,
            "1 when the collector's last run succeeded, its current run has not passed "
            "--collector-timeout and its data is fresh; else 0 (see the exporter's log)",
            labels, up ? 1 : 0);
    if (latest) {
      out.Add("yardstick_collector_duration_seconds", MetricType::kGauge,
              "How long the collector's last completed run took", labels, latest->duration_s);
    }
    if (running_since) {
      out.Add("yardstick_collector_running_seconds", MetricType::kGauge,
              "How long the collector's current run has lasted so far", labels,
              Seconds(now - *running_since));
    }
    if (latest && latest->metrics) {
      out.Add("yardstick_collector_staleness_seconds", MetricType::kGauge,
              "Age of the collector's last good reading; readings older than 3 intervals plus "
              "the collector timeout are no longer served",
              labels, Seconds(now - latest->metrics_at));
      out.Add("yardstick_collector_last_success_timestamp_seconds", MetricType::kGauge,
              "Unix time of the collector's last good reading", labels, latest->metrics_unix_s);
    }
    if (fresh) out.Merge(*latest->metrics);
  }
  return out;
}

}  // namespace ys::serve
