// The four Exemplar root-cause rules: each fires on the finding its case produces (from the real
// check on a recorded host where a fixture has it) and stays silent on the same document with the
// cause fixed.
#include <gtest/gtest.h>

#include "diagnose/rules/rule_test_util.h"
#include "testing/check_test_util.h"

namespace ys {
namespace {

using testing::DocWithFindings;
using testing::EvaluateRule;
using testing::InputFor;
using testing::MakeTestFinding;

// The preflight's check on a fixture, as a document.
RunDocument DocFromCheck(std::string_view check, std::string_view fixture) {
  CheckResult r = testing::RunOnFixture(check, fixture);
  return DocWithFindings(r.findings, std::string(check));
}

RunDocument Fixed(RunDocument doc) {
  for (auto& c : doc.checks) c.findings.clear();
  return doc;
}

TEST(SmmuCmdqvRuleTest, FiresOnTheGraceVmFixture) {
  RunDocument doc = DocFromCheck("virt.iommu", "grace-vm-smmu");
  auto d = EvaluateRule("virt.smmu_cmdqv", InputFor(doc));
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].layer, "virtualisation");
  EXPECT_EQ(d[0].finding_codes, std::vector<std::string>{"YS-VIRT-002"});
  EXPECT_DOUBLE_EQ(d[0].recovery.high, 0.12);
  EXPECT_NE(d[0].recovery.basis.find("Exemplar case 1"), std::string::npos);
  EXPECT_NE(d[0].fix.find("CONFIG_TEGRA241_CMDQV"), std::string::npos) << d[0].fix;
  EXPECT_NE(d[0].fix.find("VCMDQ"), std::string::npos) << "a VM needs the hypervisor's part";
  EXPECT_EQ(d[0].confidence, Confidence::kHigh) << "a VM, as in the case";
}

TEST(SmmuCmdqvRuleTest, SilentWhenCmdqvWorks) {
  RunDocument doc = Fixed(DocFromCheck("virt.iommu", "grace-vm-smmu"));
  EXPECT_TRUE(EvaluateRule("virt.smmu_cmdqv", InputFor(doc)).empty());
}

TEST(SmmuCmdqvRuleTest, IdentityDomainsMakeTheCaseAnUpperBound) {
  Finding f = MakeTestFinding("YS-VIRT-002", "node", "Grace SMMUv3 runs without CMDQV");
  f.severity = Severity::kWarn;
  RunDocument doc = DocWithFindings({f});
  auto d = EvaluateRule("virt.smmu_cmdqv", InputFor(doc));
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].recovery.low, 0);
  EXPECT_DOUBLE_EQ(d[0].recovery.high, 0.12);
  EXPECT_EQ(d[0].confidence, Confidence::kLow);
}

Finding NumaFinding() {
  return MakeTestFinding("YS-NUMA-003", "process", "process CPUs 0-31 not local to gpu0 (node 1)");
}

TEST(CpuPlacementRuleTest, FiresOnPlacementWithTheCaseFigure) {
  RunDocument doc = DocWithFindings({NumaFinding()});
  auto d = EvaluateRule("host.cpu_placement", InputFor(doc));
  ASSERT_EQ(d.size(), 1u);
  EXPECT_NEAR(d[0].recovery.low, 0.97 / 0.88 - 1, 1e-12);
  EXPECT_NE(d[0].recovery.basis.find("12% to 3%"), std::string::npos);
  EXPECT_EQ(d[0].confidence, Confidence::kMedium);
}

TEST(CpuPlacementRuleTest, ClockIsItsOwnCauseAndStallsRaisePlacementOnly) {
  RunDocument doc = DocWithFindings(
      {NumaFinding(), MakeTestFinding("YS-CPU-002", "node", "C6 disabled on every CPU")});
  auto in = InputFor(doc);
  in.workloads.push_back(
      testing::WorkloadWithSteps("proxy.llama3.1_8b", testing::Steps(60, 1.0, 0.08, 10)));
  ASSERT_TRUE(in.workloads[0].analysis->stalls.periodic);
  auto d = EvaluateRule("host.cpu_placement", in);
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].confidence, Confidence::kHigh) << "stalls: the case's placement symptom";
  EXPECT_EQ(d[1].finding_codes, std::vector<std::string>{"YS-CPU-002"});
  EXPECT_DOUBLE_EQ(d[1].recovery.low, 0.04);
  EXPECT_EQ(d[1].confidence, Confidence::kLow) << "a setting, the clock not measured";
}

TEST(CpuPlacementRuleTest, MeasuredBusyClockMakesTheClockCauseMedium) {
  RunDocument doc = DocWithFindings(
      {MakeTestFinding("YS-CPU-011", "node", "turbo disabled"),
       MakeTestFinding("YS-CPU-016", "node", "median busy-core clock 3000 MHz is 79% of 3800")});
  auto d = EvaluateRule("host.cpu_placement", InputFor(doc));
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].finding_codes, (std::vector<std::string>{"YS-CPU-011", "YS-CPU-016"}));
  EXPECT_EQ(d[0].confidence, Confidence::kMedium);
}

TEST(CpuPlacementRuleTest, SilentOnceBoundAndC6Allowed) {
  RunDocument doc = Fixed(DocWithFindings({NumaFinding()}));
  auto in = InputFor(doc);
  in.workloads.push_back(testing::WorkloadWithSteps("proxy.llama3.1_8b", testing::Steps(60, 1.0)));
  EXPECT_TRUE(EvaluateRule("host.cpu_placement", in).empty());
}

Finding QpsFinding() {
  Finding f = MakeTestFinding(
      "YS-ENV-003", "process",
      "NCCL_IB_QPS_PER_CONNECTION=1 on 8 port(s) at 400 Gb/s or more: one QP cannot spread a "
      "connection over the fabric's paths");
  f.fix = "NCCL_IB_QPS_PER_CONNECTION=2, or remove the override";
  return f;
}

TEST(NcclQpsRuleTest, FiresWithTheCaseRange) {
  RunDocument doc = DocWithFindings({QpsFinding()}, "env.runtime");
  auto d = EvaluateRule("fabric.nccl_qps", InputFor(doc));
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].layer, "fabric");
  EXPECT_EQ(d[0].recovery.low, 0);
  EXPECT_NEAR(d[0].recovery.high, 1 / 0.69 - 1, 1e-12);
  EXPECT_NE(d[0].fix.find("NCCL_IB_QPS_PER_CONNECTION=2"), std::string::npos);
}

TEST(NcclQpsRuleTest, SilentWithTwoQueuePairs) {
  RunDocument doc = Fixed(DocWithFindings({QpsFinding()}, "env.runtime"));
  EXPECT_TRUE(EvaluateRule("fabric.nccl_qps", InputFor(doc)).empty());
}

TEST(TopologyFileRuleTest, FiresOnTheContainerFixtureWithTheBindMount) {
  RunDocument doc = DocFromCheck("env.runtime", "container-topo-missing");
  auto d = EvaluateRule("container.topology_file", InputFor(doc));
  ASSERT_EQ(d.size(), 1u) << testing::Describe(doc.checks[0]);
  EXPECT_EQ(d[0].layer, "container");
  EXPECT_NE(d[0].fix.find("--container-mounts="), std::string::npos) << d[0].fix;
  EXPECT_NEAR(d[0].recovery.low, 1 / 0.87 - 1, 1e-12);
  EXPECT_NEAR(d[0].recovery.high, 1 / 0.47 - 1, 1e-12);
}

TEST(TopologyFileRuleTest, SilentWhenTheFileIsMounted) {
  RunDocument doc = Fixed(DocFromCheck("env.runtime", "container-topo-missing"));
  EXPECT_TRUE(EvaluateRule("container.topology_file", InputFor(doc)).empty());
}

}  // namespace
}  // namespace ys
