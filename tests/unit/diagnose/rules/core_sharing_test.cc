// host.core_sharing: a measured share of stolen CPU time names the process and its cores and
// computes the recovery; a small share (the neighbour gone) keeps the rule silent.
#include <gtest/gtest.h>

#include "diagnose/rules/rule_test_util.h"

namespace ys {
namespace {

using testing::EvaluateRule;
using testing::InputFor;

diagnose::WorkloadEvidence Proxy(double share, bool tail) {
  auto w = testing::WorkloadWithSteps(
      "proxy.llama3.1_8b", tail ? testing::Steps(40, 0.10, 0.05, 4) : testing::Steps(40, 0.10));
  w.foreign_cpu_share = share;
  w.foreign_processes = {"pid 4242 (stress) on cpus 0-1: 46%"};
  w.predicted_step_s = 0.098;
  return w;
}

TEST(CoreSharingRuleTest, FiresOnAMeasuredShareAndNamesTheProcess) {
  RunDocument doc = testing::DocWithFindings({});
  auto in = InputFor(doc);
  in.workloads.push_back(Proxy(0.25, /*tail=*/true));
  auto d = EvaluateRule("host.core_sharing", in);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].entity, "cpu0-1");
  EXPECT_NE(d[0].cause.find("pid 4242 (stress)"), std::string::npos) << d[0].cause;
  EXPECT_NE(d[0].fix.find("AllowedCPUs="), std::string::npos);
  EXPECT_NE(d[0].fix.find("taskset -acp <housekeeping cores> 4242"), std::string::npos) << d[0].fix;
  EXPECT_NEAR(d[0].recovery.low, 1 / 0.75 - 1, 1e-12);
  EXPECT_NE(d[0].recovery.basis.find("1 / (1 - s) - 1"), std::string::npos);
  EXPECT_EQ(d[0].confidence, Confidence::kHigh) << "the step times have a tail";
}

TEST(CoreSharingRuleTest, AGapToThePredictionBeyondTheShareRaisesTheTopOfTheRange) {
  RunDocument doc = testing::DocWithFindings({});
  auto in = InputFor(doc);
  in.workloads.push_back(Proxy(0.25, /*tail=*/false));
  in.workloads[0].predicted_step_s = 0.05;  // the measured median (0.1 s) is twice the prediction
  auto d = EvaluateRule("host.core_sharing", in);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_NEAR(d[0].recovery.low, 1 / 0.75 - 1, 1e-12);
  EXPECT_NEAR(d[0].recovery.high, 1.0, 0.01);
  EXPECT_NE(d[0].recovery.basis.find("synchronise"), std::string::npos);
  EXPECT_EQ(d[0].confidence, Confidence::kHigh) << "the gap to the prediction is a symptom";
}

TEST(CoreSharingRuleTest, WithoutATailTheConfidenceIsMedium) {
  RunDocument doc = testing::DocWithFindings({});
  auto in = InputFor(doc);
  in.workloads.push_back(Proxy(0.25, /*tail=*/false));
  auto d = EvaluateRule("host.core_sharing", in);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].confidence, Confidence::kMedium);
}

TEST(CoreSharingRuleTest, SilentWhenTheNeighbourIsGone) {
  RunDocument doc = testing::DocWithFindings({});
  auto in = InputFor(doc);
  in.workloads.push_back(Proxy(0.01, /*tail=*/false));
  EXPECT_TRUE(EvaluateRule("host.core_sharing", in).empty());
}

TEST(CoreSharingRuleTest, FiresOnThePreflightFindingAlone) {
  RunDocument doc = testing::DocWithFindings({testing::MakeTestFinding(
      "YS-ISO-001", "cpu0-1",
      "1 process(es) outside the job pinned to or running on its cores 0-1: stress (pid 4242)")});
  auto d = EvaluateRule("host.core_sharing", InputFor(doc));
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].entity, "cpu0-1");
  EXPECT_EQ(d[0].finding_codes, std::vector<std::string>{"YS-ISO-001"});
  EXPECT_NEAR(d[0].recovery.low, 0.97 / 0.88 - 1, 1e-12);
  EXPECT_EQ(d[0].confidence, Confidence::kMedium);
}

}  // namespace
}  // namespace ys
