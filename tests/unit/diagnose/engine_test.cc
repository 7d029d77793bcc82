// The diagnosis engine: the registered rules (golden list), ranking, a throwing rule, and the
// rules' input assembled from a run document's proxy measurements and a validation document.
#include "diagnose/engine.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>
#include <stdexcept>

#include "core/verdict.h"
#include "diagnose/rules/rule_test_util.h"
#include "testing/golden.h"

namespace ys {
namespace {

using diagnose::DiagnosisInputFor;

TEST(DiagnoseEngineTest, RegisteredRulesMatchTheGoldenList) {
  std::string list;
  for (const auto* r : UnitRegistry::Global().List(UnitKind::kRule)) {
    if (r->info.id.starts_with("zz_test.")) continue;
    list += std::string(r->info.id) + "\n";
    EXPECT_FALSE(r->info.summary.empty()) << r->info.id;
    EXPECT_TRUE(
        std::regex_match(std::string(r->info.id), std::regex("^[a-z0-9_]+(\\.[a-z0-9_]+)+$")))
        << r->info.id << " does not match the schema's rule pattern";
  }
  EXPECT_GOLDEN(list, "rules.txt");
}

class ThrowingRule : public diagnose::Rule {
 public:
  std::vector<Diagnosis> Evaluate(const diagnose::DiagnosisInput& in) const override {
    if (in.data_dir == "throw") throw std::runtime_error("boom");
    return {};
  }
};
YS_REGISTER(ThrowingRule, {.id = "zz_test.throws", .summary = "throws on request"});

TEST(DiagnoseEngineTest, RanksByRecoveryThenConfidenceAndSurvivesAThrowingRule) {
  // Case 1 (12%), case 4 (15-113%) and a downtrained link (not quantified).
  RunDocument doc = testing::DocWithFindings(
      {testing::MakeTestFinding("YS-VIRT-002", "node", "no CMDQV",
                                {{"virtualization", "kvm guest"}}),
       testing::MakeTestFinding("YS-PCI-001", "0000:1b:00.0", "x8 of x16"),
       testing::MakeTestFinding(
           "YS-ENV-001", "process",
           "NCCL_TOPO_FILE /t.xml does not exist inside the enroot container")});
  auto in = testing::InputFor(doc);
  auto report = diagnose::Diagnose(in);
  ASSERT_EQ(report.ranked.size(), 3u);
  EXPECT_EQ(report.ranked[0].rule, "container.topology_file");
  EXPECT_EQ(report.ranked[1].rule, "virt.smmu_cmdqv");
  EXPECT_EQ(report.ranked[2].rule, "fabric.downtrained_link");
  EXPECT_TRUE(report.not_evaluated.empty());
  for (const Diagnosis& d : report.ranked) {
    EXPECT_TRUE(d.recovery.estimate.empty()) << d.rule << ": no proxy, no estimate";
  }
  EXPECT_EQ(report.ranked[0].cause.find("NCCL_TOPO_FILE /t.xml is absent inside the container"), 0u)
      << report.ranked[0].cause;

  in.data_dir = "throw";
  auto thrown = diagnose::Diagnose(in);
  ASSERT_EQ(thrown.not_evaluated.size(), 1u);
  EXPECT_EQ(thrown.not_evaluated[0], "zz_test.throws: boom");
  EXPECT_EQ(thrown.ranked.size(), 3u) << "the other rules still ran";
}

TEST(DiagnoseEngineTest, WalksJobWideUnitsAndEveryNode) {
  RunDocument doc = testing::DocWithFindings(
      {testing::MakeTestFinding("YS-GPU-045", "gpu0", "NVLink link 1 inactive")});
  for (const char* host : {"node2", "node3"}) {
    NodeReport n;
    n.hostname = host;
    CheckResult c;
    c.unit_id = "gpu.nvlink";
    c.findings = {testing::MakeTestFinding("YS-GPU-045", "gpu3", "NVLink link 7 inactive")};
    n.checks.push_back(c);
    BenchmarkResult b;
    Measurement m;
    m.name = "gemm.gpu.bf16.tflops";
    b.measurements.push_back(m);
    n.benchmarks.push_back(b);
    doc.nodes.push_back(n);
  }
  auto in = testing::InputFor(doc);
  auto found = diagnose::FindingsWithCode(in, "YS-GPU-045");
  ASSERT_EQ(found.size(), 3u);
  EXPECT_EQ(found[0].node, "node1");
  EXPECT_EQ(found[2].node, "node3");
  auto measured = diagnose::MeasurementsMatching(in, "gemm.gpu.*");
  ASSERT_EQ(measured.size(), 2u);
  EXPECT_EQ(measured[1].node, "node3");
  // Several nodes: the entity says which.
  auto d = diagnose::DiagnosisFromFindings("fabric.downtrained_link", "fabric", found);
  EXPECT_EQ(d.entity, "node1/gpu0");
  EXPECT_EQ(d.evidence[1].first, "YS-GPU-045 node2/gpu3");
  EXPECT_EQ(d.finding_codes, std::vector<std::string>{"YS-GPU-045"});
}

Measurement Proxy(std::string name, double value, std::vector<double> samples = {},
                  std::map<std::string, std::string> params = {}) {
  Measurement m;
  m.name = std::move(name);
  m.value = value;
  m.samples = std::move(samples);
  m.params = std::move(params);
  return m;
}

TEST(DiagnoseEngineTest, ProxyMeasurementsBecomeAnalysedWorkloads) {
  RunDocument doc = testing::DocWithFindings({});
  BenchmarkResult b;
  b.unit_id = "proxy.llama3.1_8b";
  b.measurements = {
      Proxy("proxy.llama3.1_8b.step_time", 1.0, testing::Steps(20, 1.0)),
      Proxy("proxy.llama3.1_8b.predicted_step_time", 0.9),
      Proxy("proxy.llama3.1_8b.foreign_cpu_share", 0.3),
      Proxy("proxy.llama3.1_8b.model_tflops_per_gpu", 2, {}, {{"pct_of_peak", "41.5"}})};
  b.evidence = {{"foreign_process.1", "pid 7 (stress) on cpus 0-1: 30%"}, {"other", "x"}};
  doc.benchmarks.push_back(b);
  auto in = DiagnosisInputFor(&doc, nullptr, "data");
  ASSERT_TRUE(in.ok()) << in.status().message();
  ASSERT_EQ(in->workloads.size(), 1u);
  const auto& w = in->workloads[0];
  EXPECT_EQ(w.id, "proxy.llama3.1_8b");
  EXPECT_EQ(w.steps.size(), 20u);
  ASSERT_TRUE(w.analysis.has_value());
  EXPECT_NEAR(w.analysis->median_s, 1.0, 0.01);
  EXPECT_EQ(w.predicted_step_s, 0.9);
  EXPECT_EQ(w.foreign_cpu_share, 0.3);
  EXPECT_NEAR(*w.mfu, 0.415, 1e-12);
  EXPECT_EQ(w.foreign_processes, std::vector<std::string>{"pid 7 (stress) on cpus 0-1: 30%"});
}

// A diagnosis that rests on a proxy's measurements (the core-sharing rule on a proxy's foreign
// CPU share) is marked an estimate naming the proxy, and prints to two significant figures.
TEST(DiagnoseEngineTest, DiagnosesOnAProxyAreEstimates) {
  RunDocument doc = testing::DocWithFindings({});
  BenchmarkResult b;
  b.unit_id = "proxy.llama3.1_8b";
  b.measurements = {Proxy("proxy.llama3.1_8b.step_time", 1.0, testing::Steps(20, 1.0)),
                    Proxy("proxy.llama3.1_8b.predicted_step_time", 0.3),
                    Proxy("proxy.llama3.1_8b.foreign_cpu_share", 0.715)};
  b.evidence = {{"foreign_process.1", "pid 7 (cc1plus) on cpus 0-1: 26%"}};
  doc.benchmarks.push_back(b);
  auto in = DiagnosisInputFor(&doc, nullptr, "data");
  ASSERT_TRUE(in.ok()) << in.status().message();
  auto report = diagnose::Diagnose(*in);
  ASSERT_FALSE(report.ranked.empty());
  const Diagnosis& d = report.ranked[0];
  EXPECT_EQ(d.rule, "host.core_sharing");
  EXPECT_NE(d.recovery.estimate.find("proxy.llama3.1_8b"), std::string::npos)
      << d.recovery.estimate;
  std::string shown = ys::FormatRecovery(d.recovery);
  EXPECT_NE(shown.find("(estimate)"), std::string::npos) << shown;
  EXPECT_EQ(shown.find('.'), std::string::npos) << "no tenths on a proxy's estimate: " << shown;
}

TEST(DiagnoseEngineTest, PerRankSeriesReplaceTheJobSeries) {
  RunDocument doc = testing::DocWithFindings({});
  BenchmarkResult b;
  b.measurements = {Proxy("proxy.m.step_time", 1.0, testing::Steps(8, 1.0))};
  for (int r = 0; r < 4; ++r) {
    b.measurements.push_back(Proxy("proxy.m.rank_step_time", 1.0,
                                   testing::Steps(8, r == 3 ? 1.2 : 1.0),
                                   {{"rank", std::to_string(r)}}));
  }
  doc.benchmarks.push_back(b);
  auto in = DiagnosisInputFor(&doc, nullptr, "");
  ASSERT_TRUE(in.ok());
  ASSERT_EQ(in->workloads.size(), 1u);
  EXPECT_EQ(in->workloads[0].steps.size(), 32u);
  ASSERT_TRUE(in->workloads[0].analysis.has_value());
  EXPECT_EQ(in->workloads[0].analysis->ranks.size(), 4u);
}

nlohmann::json Validation() {
  return nlohmann::json::parse(R"({
    "kind": "yardstick-validation",
    "suite": {"threshold": 0.95},
    "workloads": [
      {"id": "pretrain_llama3.1_70b_fp8", "score": 0.8, "mfu": 0.3,
       "measured": {"log": "/runs/70b/log.txt", "tflops_per_gpu": 300},
       "reference": {"tflops_per_gpu": 400},
       "step_times_s": [1.0, 1.01, 0.99, 1.0, 1.02]},
      {"id": "pretrain_grok", "score": null, "mfu": null, "measured": null, "reference": null}
    ]})");
}

TEST(DiagnoseEngineTest, ValidationRowsBecomeWorkloads) {
  nlohmann::json v = Validation();
  auto in = DiagnosisInputFor(nullptr, &v, "");
  ASSERT_TRUE(in.ok()) << in.status().message();
  ASSERT_EQ(in->workloads.size(), 2u);
  const auto& w = in->workloads[0];
  EXPECT_EQ(w.source, "log /runs/70b/log.txt");
  EXPECT_EQ(w.score, 0.8);
  EXPECT_EQ(w.threshold, 0.95);
  EXPECT_NEAR(*w.reference_mfu, 0.4, 1e-12);  // 0.3 x 400 / 300
  EXPECT_TRUE(w.analysis.has_value());
  EXPECT_FALSE(in->workloads[1].score.has_value());
  EXPECT_FALSE(in->workloads[1].analysis.has_value());
}

TEST(DiagnoseEngineTest, MalformedValidationNamesTheField) {
  struct Case {
    const char* patch;  // JSON Pointer path and a value
    nlohmann::json value;
    const char* field;
  };
  for (const Case& c :
       {Case{"/workloads", 3, "workloads: expected an array"},
        Case{"/workloads/0/score", "high", "workloads[0].score: expected a number or null"},
        Case{"/workloads/0/id", 7, "workloads[0].id: expected the workload id as a string"},
        Case{"/workloads/0/step_times_s/2", -1, "workloads[0].step_times_s[2]"},
        Case{"/workloads/0/measured", "x", "workloads[0].measured: expected an object or null"},
        Case{"/suite/threshold", "0.95", "suite.threshold"}}) {
    nlohmann::json v = Validation();
    v[nlohmann::json::json_pointer(c.patch)] = c.value;
    auto in = DiagnosisInputFor(nullptr, &v, "");
    ASSERT_FALSE(in.ok()) << c.patch;
    EXPECT_NE(in.status().message().find(c.field), std::string::npos) << in.status().message();
  }
}

}  // namespace
}  // namespace ys
