// The continuous batcher's bookkeeping over a fake engine on a fake clock (prefill P seconds,
// decode step D seconds): every request gets its OSL tokens, TTFT <= latency, concurrency never
// exceeded, the warm-up staggers the slots, TPOT and throughput follow their definitions; the
// stream's sizes are checked; percentiles by nearest rank.
#include "workloads/serving_batcher.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

namespace ys::workloads {
namespace {

// Advances a fake clock: each prefill by `prefill_s`, each decode step by `decode_s`; checks the
// slots the batcher uses.
class FakeServingEngine final : public ServingEngine {
 public:
  FakeServingEngine(int slots, double prefill_s, double decode_s)
      : busy_(slots, false), prefill_s_(prefill_s), decode_s_(decode_s) {}
  Status Prefill(int slot, int request) override {
    EXPECT_GE(slot, 0);
    EXPECT_LT(slot, static_cast<int>(busy_.size()));
    EXPECT_EQ(request, prefills_) << "requests are numbered in admission order";
    ++prefills_;
    now += prefill_s_;
    return Status::Ok();
  }
  Status Decode(const std::vector<int>& slots) override {
    EXPECT_FALSE(slots.empty());
    EXPECT_LE(slots.size(), busy_.size());
    EXPECT_TRUE(std::is_sorted(slots.begin(), slots.end()));
    max_batch = std::max(max_batch, static_cast<int>(slots.size()));
    now += decode_s_;
    return Status::Ok();
  }
  double now = 100;
  int prefills_ = 0;
  int max_batch = 0;

 private:
  std::vector<bool> busy_;
  double prefill_s_, decode_s_;
};

ServingTrace RunFake(const ServingStream& s, FakeServingEngine& e) {
  std::function<double()> clock = [&e] { return e.now; };
  auto t = RunContinuousBatching(s, e, clock, {});
  EXPECT_TRUE(t.ok()) << t.status().message();
  return t.ok() ? *t : ServingTrace{};
}

TEST(ServingBatcherTest, EveryCountedRequestGetsItsTokensWithinTheConcurrency) {
  const ServingStream s{.concurrency = 4, .isl = 16, .osl = 8, .measured_requests = 10};
  FakeServingEngine e(4, 0.010, 0.002);
  const ServingTrace t = RunFake(s, e);
  EXPECT_LE(t.max_in_flight, 4);
  EXPECT_EQ(t.max_in_flight, 4);
  EXPECT_LE(e.max_batch, 4);
  int counted = 0;
  for (const ServedRequest& r : t.requests) {
    if (r.id < 4) {
      EXPECT_FALSE(r.counted) << "warm-up request " << r.id;
      EXPECT_EQ(r.osl, 2 * (r.id + 1)) << "staggered: ceil(8 (i + 1) / 4)";
    } else {
      EXPECT_EQ(r.osl, 8);
    }
    if (!r.counted) continue;
    ++counted;
    ASSERT_TRUE(r.Complete()) << r.id;
    EXPECT_TRUE(std::is_sorted(r.token_s.begin(), r.token_s.end()));
    EXPECT_GE(r.token_s.front(), r.arrival_s);
  }
  EXPECT_EQ(counted, 10);
  auto stats = SummarizeServing(t);
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->completed, 10);
  for (size_t i = 0; i < stats->ttft_s.size(); ++i)
    EXPECT_LE(stats->ttft_s[i], stats->latency_s[i]);
}

// The staggered warm-up spreads completions: with K = 4 and OSL = 8 one request finishes every
// 2 steps, so each counted request is admitted alone and its TTFT is exactly one prefill. From its
// first token to its last: the rest of its own step (a decode, D), then 7 steps of which 3 admit
// a request first (P each): TPOT = (8 D + 3 P) / 7.
TEST(ServingBatcherTest, SteadyStateFiguresFollowTheDefinitions) {
  const double P = 0.010, D = 0.002;
  const ServingStream s{.concurrency = 4, .isl = 16, .osl = 8, .measured_requests = 12};
  FakeServingEngine e(4, P, D);
  auto stats = SummarizeServing(RunFake(s, e));
  ASSERT_TRUE(stats.ok());
  for (double ttft : stats->ttft_s) EXPECT_NEAR(ttft, P, 1e-12);
  EXPECT_NEAR(stats->ttft_p99_s, P, 1e-12);
  ASSERT_EQ(stats->tpot_s.size(), 12u);
  for (double tpot : stats->tpot_s) EXPECT_NEAR(tpot, (8 * D + 3 * P) / 7, 1e-12);
  EXPECT_NEAR(stats->tokens_per_s_per_user, 1 / stats->tpot_mean_s, 1e-9);
  // 4 tokens per step (4 decodes, or 3 decodes and a first token), a step D + P/2 on average.
  EXPECT_NEAR(stats->output_tokens_per_s, 4 / (D + P / 2), 0.06 * 4 / (D + P / 2));
}

TEST(ServingBatcherTest, TimeLimitStopsAdmissionsAndInFlightRequestsFinish) {
  const ServingStream s{
      .concurrency = 2, .isl = 4, .osl = 4, .measured_requests = 1000, .time_limit_s = 0.05};
  FakeServingEngine e(2, 0.010, 0.010);
  const ServingTrace t = RunFake(s, e);
  EXPECT_TRUE(t.time_limited);
  EXPECT_LT(t.requests.size(), 20u);
  for (const ServedRequest& r : t.requests) EXPECT_TRUE(r.Complete()) << r.id;
  EXPECT_TRUE(SummarizeServing(t).ok());
}

TEST(ServingBatcherTest, BadStreamAndEmptyTraceAreErrors) {
  FakeServingEngine e(1, 0.01, 0.01);
  std::function<double()> clock = [&e] { return e.now; };
  auto bad = RunContinuousBatching({.concurrency = 1, .osl = 1}, e, clock, {});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("osl"), std::string::npos) << bad.status().message();
  EXPECT_FALSE(RunContinuousBatching({.concurrency = 0}, e, clock, {}).ok());
  EXPECT_FALSE(SummarizeServing(ServingTrace{}).ok());
}

TEST(ServingBatcherTest, NearestRankPercentile) {
  EXPECT_EQ(NearestRankPercentile({}, 50), 0);
  EXPECT_EQ(NearestRankPercentile({3, 1, 2, 4}, 50), 2);
  EXPECT_EQ(NearestRankPercentile({3, 1, 2, 4}, 99), 4);
  EXPECT_EQ(NearestRankPercentile({5}, 1), 5);
}

}  // namespace
}  // namespace ys::workloads
