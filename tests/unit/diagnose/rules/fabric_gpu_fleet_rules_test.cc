// fleet.slow_node/slow_gpu, gpu.throttling, fabric.downtrained_link and
// fabric.collective_bandwidth: each fires on its evidence and stays silent on the same document
// with the cause fixed.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "diagnose/rules/rule_test_util.h"

namespace ys {
namespace {

using testing::DocWithFindings;
using testing::EvaluateRule;
using testing::InputFor;
using testing::MakeTestFinding;

Finding FleetFinding(const char* code, const char* entity, const char* deficit) {
  return MakeTestFinding(code, entity, std::string(entity) + " is below its peers' median",
                         {{"median deficit", deficit}, {"figures judged", "12"}, {"z", "9.1"}});
}

TEST(SlowMemberRuleTest, SlowNodeRecoveryFromItsDeficit) {
  RunDocument doc =
      DocWithFindings({FleetFinding("YS-FLEET-001", "node7", "20.0%")}, "fleet.outliers");
  auto d = EvaluateRule("fleet.slow_node", InputFor(doc));
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].entity, "node7");
  EXPECT_EQ(d[0].layer, "fleet");
  EXPECT_NEAR(d[0].recovery.low, 0.25, 1e-12);  // 1 / 0.8 - 1
  EXPECT_TRUE(EvaluateRule("fleet.slow_gpu", InputFor(doc)).empty());
}

TEST(SlowMemberRuleTest, SlowGpuFiresAndBothStaySilentWhenTheFleetIsEven) {
  RunDocument doc =
      DocWithFindings({FleetFinding("YS-FLEET-002", "node3/gpu5", "10.0%")}, "fleet.outliers");
  auto d = EvaluateRule("fleet.slow_gpu", InputFor(doc));
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].entity, "node3/gpu5");
  EXPECT_NEAR(d[0].recovery.high, 1 / 0.9 - 1, 1e-12);
  doc.checks[0].findings.clear();
  EXPECT_TRUE(EvaluateRule("fleet.slow_gpu", InputFor(doc)).empty());
  EXPECT_TRUE(EvaluateRule("fleet.slow_node", InputFor(doc)).empty());
}

Finding Throttle() {
  return MakeTestFinding("YS-GPU-011", "gpu2", "clocks held down: HW thermal slowdown",
                         {{"sm_clock_mhz", "1500"}, {"max_sm_clock_mhz", "1980"}});
}

TEST(GpuThrottlingRuleTest, ClockRatioAndDrift) {
  RunDocument doc = DocWithFindings({Throttle()}, "gpu.clocks");
  auto in = InputFor(doc);
  std::vector<double> steps;
  for (int i = 0; i < 60; ++i) steps.push_back(1.0 + 0.002 * i);  // +12% over the run
  in.workloads.push_back(testing::WorkloadWithSteps("proxy.llama3.1_8b", steps));
  ASSERT_TRUE(in.workloads[0].analysis->drift.drifting);
  auto d = EvaluateRule("gpu.throttling", in);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_NEAR(d[0].recovery.low, 1980.0 / 1500 - 1, 1e-12);
  EXPECT_EQ(d[0].confidence, Confidence::kHigh);
  EXPECT_NE(d[0].cause.find("gpu2"), std::string::npos);
}

TEST(GpuThrottlingRuleTest, SilentWhenTheClocksRecover) {
  RunDocument doc = DocWithFindings({Throttle()}, "gpu.clocks");
  doc.checks[0].findings.clear();
  auto in = InputFor(doc);
  in.workloads.push_back(testing::WorkloadWithSteps("proxy.llama3.1_8b", testing::Steps(60, 1.0)));
  EXPECT_TRUE(EvaluateRule("gpu.throttling", in).empty());
}

TEST(DowntrainedLinkRuleTest, OneDiagnosisPerLinkNotQuantified) {
  RunDocument doc = DocWithFindings(
      {MakeTestFinding("YS-PCI-001", "0000:1b:00.0", "PCIe link x8 of x16"),
       MakeTestFinding("YS-IB-003", "mlx5_0/1", "rate 200 Gb/s below the site minimum 400")},
      "pcie.links");
  auto d = EvaluateRule("fabric.downtrained_link", InputFor(doc));
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].entity, "0000:1b:00.0");
  EXPECT_EQ(d[1].entity, "mlx5_0/1");
  EXPECT_TRUE(diagnose::IsNotQuantified(d[0].recovery));
  doc.checks[0].findings.clear();
  EXPECT_TRUE(EvaluateRule("fabric.downtrained_link", InputFor(doc)).empty());
}

// A collective sweep point as the bench records it.
Measurement Busbw(double size, double gbps, std::map<std::string, std::string> extra) {
  Measurement m;
  m.name = "coll.all_reduce.busbw";
  m.unit = "GB/s";
  m.value = gbps;
  m.params = {{"size", fmt::format("{:.0f}", size)}, {"ranks", "8"}};
  m.params.insert(extra.begin(), extra.end());
  return m;
}

// An all_reduce sweep (1 MiB and 1 GiB), and with `gpu_name` a GPU GEMM that names the GPU.
RunDocument CollDoc(double busbw_at_1g, std::map<std::string, std::string> extra,
                    std::string gpu_name = "") {
  RunDocument doc = DocWithFindings({});
  BenchmarkResult b;
  b.unit_id = "coll.all_reduce";
  b.measurements = {Busbw(1 << 20, 20, extra), Busbw(1 << 30, busbw_at_1g, extra)};
  doc.benchmarks.push_back(b);
  if (!gpu_name.empty()) {
    BenchmarkResult g;
    g.unit_id = "gemm.gpu";
    Measurement m;
    m.name = "gemm.gpu.bf16.tflops";
    m.params = {{"gpu_name", gpu_name}, {"pct_of_peak", "80"}};
    g.measurements.push_back(m);
    doc.benchmarks.push_back(g);
  }
  return doc;
}

TEST(CollectiveBandwidthRuleTest, NcclOnH100AgainstTheSpecPeak) {
  std::map<std::string, std::string> nccl = {
      {"backend", "nccl"}, {"library", "NCCL 2.28.9"}, {"device", "gpu"}};
  RunDocument doc = CollDoc(120, nccl, "NVIDIA H100 80GB HBM3");  // 120 of 450 GB/s per direction
  auto d = EvaluateRule("fabric.collective_bandwidth", InputFor(doc));
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].entity, "coll.all_reduce");
  EXPECT_NE(d[0].cause.find("26.7%"), std::string::npos) << d[0].cause;
  EXPECT_NE(d[0].reference.find("specs/h100.toml"), std::string::npos) << d[0].reference;
  RunDocument healthy = CollDoc(400, nccl, "NVIDIA H100 80GB HBM3");
  EXPECT_TRUE(EvaluateRule("fabric.collective_bandwidth", InputFor(healthy)).empty());
  RunDocument unnamed = CollDoc(120, nccl);  // no GPU unit named the GPU: no peak to judge by
  EXPECT_TRUE(EvaluateRule("fabric.collective_bandwidth", InputFor(unnamed)).empty());
}

TEST(CollectiveBandwidthRuleTest, OneRankIsNoCommunicationNeverACause) {
  // nccl-tests' busbw at one rank is 0 by definition: "reaches 0.0 GB/s" is not a slow fabric.
  std::map<std::string, std::string> one = {
      {"backend", "nccl"}, {"library", "NCCL 2.28.9"}, {"device", "gpu"},
      {"ranks", "1"},      {"pct_of_peak", "0"},       {"peak_source", "specs/h100.toml"}};
  RunDocument doc = CollDoc(0, one, "NVIDIA H100 80GB HBM3");
  for (Measurement& m : doc.benchmarks[0].measurements) m.params["ranks"] = "1";
  EXPECT_TRUE(EvaluateRule("fabric.collective_bandwidth", InputFor(doc)).empty());
  auto why = testing::MakeRule("fabric.collective_bandwidth")->Unjudged(InputFor(doc));
  ASSERT_EQ(why.size(), 1u);
  EXPECT_NE(why[0].find("one rank: no communication to judge"), std::string::npos) << why[0];
}

TEST(CollectiveBandwidthRuleTest, StatedPeakAndSilentForMpiWithoutOne) {
  RunDocument doc = CollDoc(10, {{"backend", "mpi"},
                                 {"library", "Open MPI v4.1.4"},
                                 {"pct_of_peak", "20"},
                                 {"peak_source", "site"}});
  EXPECT_EQ(EvaluateRule("fabric.collective_bandwidth", InputFor(doc)).size(), 1u);
  RunDocument fixed = CollDoc(40, {{"backend", "mpi"},
                                   {"library", "Open MPI v4.1.4"},
                                   {"pct_of_peak", "80"},
                                   {"peak_source", "site"}});
  EXPECT_TRUE(EvaluateRule("fabric.collective_bandwidth", InputFor(fixed)).empty());
  RunDocument no_peak = CollDoc(1, {{"backend", "mpi"}, {"library", "Open MPI v4.1.4"}});
  EXPECT_TRUE(EvaluateRule("fabric.collective_bandwidth", InputFor(no_peak)).empty())
      << "no stated peak: nothing to judge against";
  auto why = testing::MakeRule("fabric.collective_bandwidth")->Unjudged(InputFor(no_peak));
  ASSERT_EQ(why.size(), 1u);
  EXPECT_EQ(
      why[0],
      "coll.all_reduce.busbw (Open MPI v4.1.4): no stated peak to judge its bus bandwidth against");
}

}  // namespace
}  // namespace ys
