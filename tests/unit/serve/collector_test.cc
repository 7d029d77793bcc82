#include "serve/collector.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace ys::serve {
namespace {

using namespace std::chrono_literals;

class FixedCollector : public Collector {
 public:
  std::string_view name() const override { return "fixed"; }
  Result<Exposition> Collect() override {
    Exposition e;
    e.Add("fixed_value", MetricType::kGauge, "A constant", {}, 42);
    return e;
  }
};

// Sleeps far longer than the collector timeout on every run after the first.
class SlowCollector : public Collector {
 public:
  std::string_view name() const override { return "slow"; }
  Result<Exposition> Collect() override {
    if (runs_++ > 0) std::this_thread::sleep_for(2000ms);
    Exposition e;
    e.Add("slow_value", MetricType::kGauge, "Slow", {}, 1);
    return e;
  }
  std::atomic<int> runs_ = 0;
};

class FailingCollector : public Collector {
 public:
  std::string_view name() const override { return "failing"; }
  Result<Exposition> Collect() override { return Status::Io("sensor unreadable"); }
};

bool WaitFor(const CollectorSet& set, std::string_view name) {
  for (int i = 0; i < 200 && !set.Latest(name); ++i) std::this_thread::sleep_for(10ms);
  return set.Latest(name) != nullptr;
}

TEST(CollectorSetTest, ServesTheLatestSnapshotAndHealth) {
  std::vector<std::unique_ptr<Collector>> cs;
  cs.push_back(std::make_unique<FixedCollector>());
  cs.push_back(std::make_unique<FailingCollector>());
  CollectorSet set(std::move(cs), {0.1, 1});
  set.Start();
  ASSERT_TRUE(WaitFor(set, "fixed"));
  ASSERT_TRUE(WaitFor(set, "failing"));
  std::string text = set.Scrape().Text();
  EXPECT_NE(text.find("fixed_value 42\n"), std::string::npos) << text;
  EXPECT_NE(text.find("yardstick_collector_up{collector=\"fixed\"} 1\n"), std::string::npos);
  EXPECT_NE(text.find("yardstick_collector_up{collector=\"failing\"} 0\n"), std::string::npos);
  EXPECT_NE(text.find("yardstick_collector_duration_seconds{collector=\"fixed\"}"),
            std::string::npos);
  EXPECT_EQ(set.Latest("failing")->error, "sensor unreadable");
  EXPECT_EQ(set.Latest("nobody"), nullptr);
}

TEST(CollectorSetTest, ASlowCollectorDoesNotBlockAScrape) {
  std::vector<std::unique_ptr<Collector>> cs;
  cs.push_back(std::make_unique<SlowCollector>());
  cs.push_back(std::make_unique<FixedCollector>());
  // Readings stay fresh for 3 x 0.3 + 0.1 = 1 s; the second run starts 0.3 s after the first.
  CollectorSet set(std::move(cs), {0.3, 0.1});
  set.Start();
  ASSERT_TRUE(WaitFor(set, "slow"));
  std::this_thread::sleep_for(600ms);  // the second run is now about 0.3 s into its 2 s sleep
  auto start = std::chrono::steady_clock::now();
  std::string text = set.Scrape().Text();
  auto took = std::chrono::steady_clock::now() - start;
  // Not a speed assertion: far below the sleep, which a blocking scrape would wait out.
  EXPECT_LT(took, 1000ms);
  EXPECT_NE(text.find("yardstick_collector_up{collector=\"slow\"} 0\n"), std::string::npos) << text;
  EXPECT_NE(text.find("yardstick_collector_running_seconds{collector=\"slow\"}"),
            std::string::npos);
  EXPECT_NE(text.find("slow_value 1\n"), std::string::npos) << "last good reading still fresh";
  EXPECT_NE(text.find("fixed_value 42\n"), std::string::npos);
}

TEST(CollectorSetTest, ConcurrentScrapesAreSafe) {
  std::vector<std::unique_ptr<Collector>> cs;
  cs.push_back(std::make_unique<FixedCollector>());
  cs.push_back(std::make_unique<FailingCollector>());
  CollectorSet set(std::move(cs), {0.01, 1});  // republishing all the time, under the scrapes
  set.Start();
  ASSERT_TRUE(WaitFor(set, "fixed"));
  std::atomic<int> good = 0;
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 200; ++i) {
        if (set.Scrape().Text().find("fixed_value 42\n") != std::string::npos) ++good;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(good.load(), 8 * 200);
}

TEST(CollectorSetTest, StopsPromptly) {
  std::vector<std::unique_ptr<Collector>> cs;
  cs.push_back(std::make_unique<FixedCollector>());
  auto set = std::make_unique<CollectorSet>(std::move(cs), CollectorSet::Options{3600, 1});
  set->Start();
  ASSERT_TRUE(WaitFor(*set, "fixed"));
  set.reset();  // a worker waiting out a one-hour interval is woken, not waited for
  SUCCEED();
}

}  // namespace
}  // namespace ys::serve
