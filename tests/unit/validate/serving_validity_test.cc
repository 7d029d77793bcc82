// Each validity rule refuses the run shape it names and lets a clean point through.
#include "validate/serving_validity.h"

#include <gtest/gtest.h>

namespace ys::validate {
namespace {

// 1000 of 1000 requests at concurrency 64, outputs of the asked length, latency well inside.
ServingPoint CleanServingPoint() {
  ServingPoint p;
  p.mode = ServingMode::kServing;
  p.max_concurrency = 64;
  p.request_rate = "inf";
  p.num_prompts = 1000;
  p.completed = 1000;
  p.failed = 0;
  p.osl_asked = 500;
  p.osl_tokens["mean"] = 499.2;
  p.request_throughput = 9.5;
  p.output_throughput = 4750;
  p.ttft_ms = {{"mean", 180}, {"p50", 150}};
  p.e2el_ms = {{"mean", 6700}, {"p50", 6650}};
  return p;
}

std::vector<std::string> FlawNames(const ServingPoint& p, const ServingLimits& l = {}) {
  std::vector<std::string> out;
  for (const ServingFlawFound& f : FindServingFlaws(p, l)) out.push_back(ServingFlawName(f.flaw));
  return out;
}

using Names = std::vector<std::string>;

TEST(ServingValidityTest, ACleanPointHasNoFlaw) {
  EXPECT_EQ(FlawNames(CleanServingPoint()), Names{});
}

TEST(ServingValidityTest, LostAndFailedRequests) {
  ServingPoint p = CleanServingPoint();
  p.completed = 353;
  p.num_prompts = 500;
  p.failed = 147;
  auto flaws = FindServingFlaws(p);
  ASSERT_GE(flaws.size(), 2u);
  EXPECT_EQ(DescribeFlaws({flaws[0], flaws[1]}),
            "requests_lost: 353 of 500 requests completed; requests_failed: 147 request(s) failed");
}

TEST(ServingValidityTest, OutputsShortOfTheAskedLength) {
  ServingPoint p = CleanServingPoint();
  p.osl_tokens["mean"] = 270;
  p.ignore_eos = false;
  auto flaws = FindServingFlaws(p);
  ASSERT_EQ(flaws.size(), 1u);
  EXPECT_EQ(flaws[0].flaw, ServingFlaw::kOutputsShort);
  EXPECT_EQ(flaws[0].detail,
            "outputs average 270.0 tokens of the 500 asked (46.0% short); ignore_eos was false");
  // 2% short is within the tolerance; any counted mismatch is not.
  p.osl_tokens["mean"] = 490;
  EXPECT_EQ(FlawNames(p), Names{});
  p.osl_mismatch = 11;
  EXPECT_EQ(FlawNames(p), Names{"outputs_short"});
}

TEST(ServingValidityTest, ARunThatKeptUpWithItsRateMeasuredTheRate) {
  ServingPoint p = CleanServingPoint();
  p.request_rate = "10";
  p.request_throughput = 9.8;
  EXPECT_EQ(FlawNames(p), Names{"rate_limited"});
  p.request_throughput = 7.1;  // fell behind its offered load: at capacity
  EXPECT_EQ(FlawNames(p), Names{});
}

TEST(ServingValidityTest, QueueingIsOverload) {
  ServingPoint p = CleanServingPoint();
  p.ttft_ms = {{"p50", 33000}};
  EXPECT_EQ(FlawNames(p), Names{"overloaded"});
  p.ttft_ms = {{"p50", 4000}};
  p.e2el_ms = {{"p50", 6000}};
  EXPECT_EQ(FlawNames(p), Names{"overloaded"});
  // With the phase's limit, the limit decides.
  ServingLimits l;
  l.ttft_limit_ms = 5000;
  EXPECT_EQ(FlawNames(p, l), Names{});
  // An offline run queues every request at once: its TTFT is not a serving TTFT.
  p.mode = ServingMode::kOffline;
  p.ttft_ms = {{"p50", 60000}};
  EXPECT_EQ(FlawNames(p), Names{});
}

TEST(ServingValidityTest, TooFewRequestsForTheConcurrency) {
  ServingPoint p = CleanServingPoint();
  p.num_prompts = 500;
  p.completed = 500;  // 7.8x of 64
  EXPECT_EQ(FlawNames(p), Names{"too_few_requests"});
  p.max_concurrency = 1;
  p.mode = ServingMode::kLatency;
  p.num_prompts = p.completed = 7;
  EXPECT_EQ(FindServingFlaws(p).at(0).detail,
            "7 requests measured; a steady state needs at least 10 (10)");
}

TEST(ServingValidityTest, LoadgenInvalidAndWarmup) {
  ServingPoint p = CleanServingPoint();
  p.loadgen_valid = false;
  p.warmup_in_window = true;
  EXPECT_EQ(FlawNames(p), (Names{"loadgen_invalid", "warmup_in_window"}));
}

}  // namespace
}  // namespace ys::validate
