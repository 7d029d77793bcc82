// workload.low_mfu, workload.slow_rank and workload.periodic_stalls: each fires on its evidence
// and stays silent on the near miss.
#include <gtest/gtest.h>

#include "diagnose/rules/rule_test_util.h"

namespace ys {
namespace {

using testing::DocWithFindings;
using testing::EvaluateRule;
using testing::InputFor;

RunDocument HealthyGemmDoc(const char* pct) {
  RunDocument doc = DocWithFindings({});
  BenchmarkResult b;
  b.unit_id = "gemm.gpu";
  Measurement m;
  m.name = "gemm.gpu.bf16";
  m.value = 700;
  m.params = {{"pct_of_peak", pct}};
  b.measurements.push_back(m);
  doc.benchmarks.push_back(b);
  return doc;
}

diagnose::WorkloadEvidence Ingested(double mfu, double reference_mfu) {
  diagnose::WorkloadEvidence w;
  w.id = "pretrain_llama3.1_70b_fp8";
  w.source = "log /runs/70b/log.txt";
  w.mfu = mfu;
  w.reference_mfu = reference_mfu;
  w.threshold = 0.95;
  w.score = mfu / reference_mfu;
  return w;
}

TEST(LowMfuRuleTest, FiresWithHealthyMicroBenchmarks) {
  RunDocument doc = HealthyGemmDoc("78.5");
  auto in = InputFor(doc);
  in.workloads.push_back(Ingested(0.30, 0.40));
  auto d = EvaluateRule("workload.low_mfu", in);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_NEAR(d[0].recovery.low, 0.40 / 0.30 - 1, 1e-12);
  EXPECT_EQ(d[0].confidence, Confidence::kMedium);
  EXPECT_NE(d[0].fix.find("micro batch"), std::string::npos);
}

TEST(LowMfuRuleTest, AFixedRecipeIsNotOfferedForTuning) {
  // A suite's workload (validated against its reference) runs the suite's recipe: its parallelism
  // is not the operator's to change, so the fix compares the launch with the recipe's instead.
  RunDocument doc = HealthyGemmDoc("78.5");
  auto in = InputFor(doc);
  diagnose::WorkloadEvidence w = Ingested(0.30, 0.40);
  w.fixed_recipe = true;
  in.workloads.push_back(w);
  auto d = EvaluateRule("workload.low_mfu", in);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].fix.find("tune the workload"), std::string::npos) << d[0].fix;
  EXPECT_NE(d[0].fix.find("the suite fixes the recipe"), std::string::npos) << d[0].fix;
}

TEST(LowMfuRuleTest, SilentAtTheReferenceOrWhenAMicroBenchmarkIsSick) {
  RunDocument doc = HealthyGemmDoc("78.5");
  auto in = InputFor(doc);
  in.workloads.push_back(Ingested(0.39, 0.40));  // 97.5%: passes
  EXPECT_TRUE(EvaluateRule("workload.low_mfu", in).empty());
  RunDocument sick = HealthyGemmDoc("35");
  auto in2 = InputFor(sick);
  in2.workloads.push_back(Ingested(0.30, 0.40));
  EXPECT_TRUE(EvaluateRule("workload.low_mfu", in2).empty())
      << "the GEMM gap is the cause, not tuning";
}

diagnose::WorkloadEvidence Ranked(double slow_rank_factor) {
  diagnose::WorkloadEvidence w;
  w.id = "proxy.llama3.1_8b";
  w.source = "test";
  for (int step = 0; step < 20; ++step) {
    for (int rank = 0; rank < 8; ++rank) {
      double s = 1.0 + 0.001 * ((step + rank) % 3) + (rank == 5 ? slow_rank_factor - 1 : 0);
      w.steps.push_back({s, rank});
    }
  }
  w.analysis = *workloads::AnalyzeStepTimes(w.steps);
  return w;
}

TEST(SlowRankRuleTest, FiresOnTheSlowRank) {
  RunDocument doc = DocWithFindings({});
  auto in = InputFor(doc);
  in.workloads.push_back(Ranked(1.15));
  auto d = EvaluateRule("workload.slow_rank", in);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].entity, "rank 5");
  EXPECT_NEAR(d[0].recovery.low, 0.15, 0.01);
}

TEST(SlowRankRuleTest, SilentWhenRanksAgree) {
  RunDocument doc = DocWithFindings({});
  auto in = InputFor(doc);
  in.workloads.push_back(Ranked(1.0));
  EXPECT_TRUE(EvaluateRule("workload.slow_rank", in).empty());
}

TEST(PeriodicStallsRuleTest, FiresAndQuantifiesFromTheSpikes) {
  RunDocument doc = DocWithFindings({});
  auto in = InputFor(doc);
  in.workloads.push_back(
      testing::WorkloadWithSteps("proxy.llama3.1_8b", testing::Steps(100, 1.0, 0.08, 10)));
  auto d = EvaluateRule("workload.periodic_stalls", in);
  ASSERT_EQ(d.size(), 1u);
  // 10 spikes of ~0.08 s in ~100.8 s: about 0.8% of the run.
  EXPECT_NEAR(d[0].recovery.low, 0.008, 0.001);
  EXPECT_NE(d[0].cause.find("every 10.0 steps"), std::string::npos) << d[0].cause;
}

TEST(PeriodicStallsRuleTest, SilentWithoutTheSpikes) {
  RunDocument doc = DocWithFindings({});
  auto in = InputFor(doc);
  in.workloads.push_back(testing::WorkloadWithSteps("proxy.llama3.1_8b", testing::Steps(100, 1.0)));
  EXPECT_TRUE(EvaluateRule("workload.periodic_stalls", in).empty());
}

std::vector<double> Ramp(double total_rise) {
  std::vector<double> steps;
  for (int i = 0; i < 60; ++i) steps.push_back(1.0 + total_rise * i / 59);
  return steps;
}

TEST(DriftRuleTest, FiresOnASlowdownWithoutAThrottlingFinding) {
  RunDocument doc = DocWithFindings({});
  auto in = InputFor(doc);
  in.workloads.push_back(testing::WorkloadWithSteps("proxy.llama3.1_8b", Ramp(0.12)));
  auto d = EvaluateRule("workload.drift", in);
  ASSERT_EQ(d.size(), 1u);
  double p = in.workloads[0].analysis->drift.total_percent / 100;
  EXPECT_GT(p, 0.1);
  EXPECT_DOUBLE_EQ(d[0].recovery.low, p / 2);
  EXPECT_DOUBLE_EQ(d[0].recovery.high, p);
  EXPECT_EQ(d[0].confidence, Confidence::kLow);
}

TEST(DriftRuleTest, SilentOnASteadyRunAndWhenThrottlingNamesTheCause) {
  RunDocument doc = DocWithFindings({});
  auto in = InputFor(doc);
  in.workloads.push_back(testing::WorkloadWithSteps("proxy.llama3.1_8b", testing::Steps(60, 1.0)));
  EXPECT_TRUE(EvaluateRule("workload.drift", in).empty());
  RunDocument throttled = DocWithFindings(
      {testing::MakeTestFinding("YS-GPU-013", "gpu1", "clocks held down: SW thermal slowdown")});
  auto in2 = InputFor(throttled);
  in2.workloads.push_back(testing::WorkloadWithSteps("proxy.llama3.1_8b", Ramp(0.12)));
  EXPECT_TRUE(EvaluateRule("workload.drift", in2).empty());
  EXPECT_EQ(EvaluateRule("gpu.throttling", in2).size(), 1u);
}

}  // namespace
}  // namespace ys
