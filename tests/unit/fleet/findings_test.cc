// A gathered multi-node document judged in memory: slow nodes and devices become findings.
#include "fleet/findings.h"

#include <gtest/gtest.h>

#include <random>

namespace ys::fleet {
namespace {

// `nodes` nodes with 8 GPUs each; node `slow_node` 15% low everywhere, GPU 3 of node
// `slow_gpu_node` 20% low; 0.5% noise.
RunDocument Gathered(int nodes, int slow_node, int slow_gpu_node) {
  std::mt19937 rng(7);
  std::normal_distribution<double> noise(1.0, 0.005);
  RunDocument doc;
  doc.host.hostname = "n0";
  for (int n = 0; n < nodes; ++n) {
    NodeReport node{.hostname = "n" + std::to_string(n), .ranks = {n}};
    BenchmarkResult b;
    for (int g = 0; g < 8; ++g) {
      for (const char* name : {"gemm.gpu.tflops", "mem.gpu.bandwidth", "copy.h2d.bandwidth"}) {
        double v = 100 * noise(rng);
        if (n == slow_node) v *= 0.85;
        if (n == slow_gpu_node && g == 3) v *= 0.80;
        Measurement m;
        m.name = name;
        m.value = v;
        m.unit = "x";
        m.params = {{"device", "gpu" + std::to_string(g)}};
        b.measurements.push_back(m);
      }
    }
    node.benchmarks.push_back(b);
    doc.nodes.push_back(node);
  }
  return doc;
}

TEST(FleetFindingsTest, NamesTheSlowNodeAndTheSlowGpuOnce) {
  CheckResult r = FleetOutliers(Gathered(8, 2, 5));
  ASSERT_EQ(r.outcome, Outcome::kFail) << r.summary;
  ASSERT_EQ(r.findings.size(), 2u);
  EXPECT_EQ(r.findings[0].code, "YS-FLEET-001");
  EXPECT_EQ(r.findings[0].entity, "n2");
  // 15% planted, measured against a noisy median.
  double deficit = std::stod(r.findings[0].evidence.at(0).second);
  EXPECT_NEAR(deficit, 15.0, 1.0) << r.findings[0].message;
  EXPECT_EQ(r.findings[1].code, "YS-FLEET-002");
  EXPECT_EQ(r.findings[1].entity, "n5/gpu3");
  EXPECT_FALSE(r.findings[1].fix.empty());
}

TEST(FleetFindingsTest, HealthyNodesPassAndTooFewNodesSkip) {
  CheckResult healthy = FleetOutliers(Gathered(8, -1, -1));
  EXPECT_EQ(healthy.outcome, Outcome::kPass)
      << (healthy.findings.empty() ? "" : healthy.findings[0].message);
  EXPECT_NE(healthy.summary.find("8 nodes"), std::string::npos);
  CheckResult two = FleetOutliers(Gathered(2, 1, -1));
  EXPECT_EQ(two.outcome, Outcome::kSkip);
  EXPECT_NE(two.summary.find("needs 3"), std::string::npos);
}

}  // namespace
}  // namespace ys::fleet
