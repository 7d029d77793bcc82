// The serving diagnosis rules (src/diagnose/rules/serving/), each on a hand-made phase: the cause
// found, a near miss that stays silent, and the "not evaluated" line when its evidence is absent;
// and one real AIPerf export with GPU telemetry (tests/fixtures/real/serving/aiperf/).
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "diagnose/rule.h"
#include "gpu/gpu_snapshot.h"
#include "rule_test_util.h"

namespace ys::diagnose {
namespace {

ValidationPhaseMetric ServingMetric(std::string key, std::string outcome, double measured,
                                    double reference) {
  ValidationPhaseMetric m;
  m.key = key;
  m.name = key == "ttft_ms" ? "TTFT mean" : key == "tpot_ms" ? "TPOT mean" : "output tokens/s/GPU";
  m.unit = key == "output_tokens_per_s_per_gpu" ? "tok/s/GPU" : "ms";
  m.measured = measured;
  m.reference = reference;
  m.outcome = std::move(outcome);
  return m;
}

// A failed phase at concurrency `c`, TP `tp`, with the given metrics.
ServingPhaseEvidence ServingPhaseWith(int c, int tp, std::vector<ValidationPhaseMetric> metrics) {
  ServingPhaseEvidence e;
  e.row.id = "chat";
  e.row.outcome = "fail";
  e.row.tp = tp;
  e.row.gpus = tp;
  e.row.concurrency = {c};
  e.row.metrics = std::move(metrics);
  e.dir = "/runs/chat";
  return e;
}

GpuRunReadings BusyGpu(std::string name, double clock, double max) {
  GpuRunReadings g;
  g.gpu = std::move(name);
  g.source = "/runs/chat/gpu_telemetry_node1.csv";
  g.samples = 100;
  g.sm_clock_mhz = clock;
  g.max_sm_clock_mhz = max;
  g.utilization_pct = 97;
  g.memory_used_mib = 70000;
  g.reasons_recorded = true;
  return g;
}

DiagnosisInput ServingInput(ServingPhaseEvidence e) {
  DiagnosisInput in;
  in.serving.push_back(std::move(e));
  return in;
}

std::vector<std::string> ServingUnjudged(std::string_view id, const DiagnosisInput& in) {
  auto rule = testing::MakeRule(id);
  return rule ? rule->Unjudged(in) : std::vector<std::string>{};
}

TEST(ServingRules, GpuClocksHeldByPowerCap) {
  ServingPhaseEvidence e = ServingPhaseWith(64, 8, {ServingMetric("tpot_ms", "fail", 30, 20)});
  GpuRunReadings held = BusyGpu("gpu0", 1400, 1980);
  held.slowdown_share = 0.6;
  held.slowdown_reasons = gpu::kClocksEventSwPowerCap;
  e.gpus = {held, BusyGpu("gpu1", 1980, 1980)};
  auto found = testing::EvaluateRule("serving.gpu_clocks", ServingInput(e));
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].layer, "gpu");
  EXPECT_NE(found[0].cause.find("1 of 2 GPU(s) (gpu0)"), std::string::npos) << found[0].cause;
  EXPECT_NE(found[0].cause.find("SW power cap in 60.0%"), std::string::npos) << found[0].cause;
  EXPECT_NEAR(found[0].recovery.high, 1980.0 / 1400 - 1, 1e-9);
  EXPECT_EQ(found[0].confidence, Confidence::kHigh);
  // Near miss: the reason flagged, the clock at its maximum (a power cap that did not bite).
  e.gpus[0].sm_clock_mhz = 1975;
  EXPECT_TRUE(testing::EvaluateRule("serving.gpu_clocks", ServingInput(e)).empty());
  // No telemetry: said so.
  e.gpus.clear();
  auto why = ServingUnjudged("serving.gpu_clocks", ServingInput(e));
  ASSERT_EQ(why.size(), 1u);
  EXPECT_NE(why[0].find("no GPU telemetry in /runs/chat"), std::string::npos) << why[0];
}

TEST(ServingRules, IdleGpuHoldingTheModel) {
  ServingPhaseEvidence e =
      ServingPhaseWith(64, 1, {ServingMetric("output_tokens_per_s_per_gpu", "fail", 600, 1000)});
  GpuRunReadings idle = BusyGpu("gpu3", 1980, 1980);
  idle.utilization_pct = 0;
  e.gpus = {BusyGpu("gpu0", 1980, 1980), BusyGpu("gpu1", 1980, 1980), BusyGpu("gpu2", 1980, 1980),
            idle};
  auto found = testing::EvaluateRule("serving.idle_gpu", ServingInput(e));
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].cause.find("1 of the phase's loaded GPUs sat idle while 3 worked (gpu3)"),
            std::string::npos)
      << found[0].cause;
  EXPECT_NEAR(found[0].recovery.low, 1.0 / 0.75 - 1, 1e-9);
  // Near miss: the idle GPU holds no memory (not part of the deployment).
  e.gpus[3].memory_used_mib = 0;
  EXPECT_TRUE(testing::EvaluateRule("serving.idle_gpu", ServingInput(e)).empty());
  // Without memory readings: not judged, and said so.
  e.gpus[3].memory_used_mib.reset();
  auto why = ServingUnjudged("serving.idle_gpu", ServingInput(e));
  ASSERT_EQ(why.size(), 1u);
  EXPECT_NE(why[0].find("without memory readings"), std::string::npos);
}

TEST(ServingRules, XidDuringThePhase) {
  ServingPhaseEvidence e = ServingPhaseWith(8, 1, {});
  e.logs = {"/runs/chat/dmesg.txt"};
  auto app = gpu::ParseXidLine("NVRM: Xid (PCI:0000:1b:00): 13, Graphics Exception");
  auto fatal = gpu::ParseXidLine("NVRM: Xid (PCI:0000:43:00): 79, pid=1, GPU has fallen off");
  ASSERT_TRUE(app && fatal);
  e.xids = {{"/runs/chat/dmesg.txt", 10, *app}, {"/runs/chat/dmesg.txt", 12, *fatal}};
  auto found = testing::EvaluateRule("serving.xid", ServingInput(e));
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].cause.find("the worst: Xid 79 at 0000:43:00"), std::string::npos)
      << found[0].cause;
  EXPECT_EQ(found[0].confidence, Confidence::kHigh);
  // A phase that passed is not diagnosed.
  e.row.outcome = "pass";
  EXPECT_TRUE(testing::EvaluateRule("serving.xid", ServingInput(e)).empty());
  // No log and no telemetry: said so.
  e.row.outcome = "inconclusive";
  e.xids.clear();
  e.logs.clear();
  auto why = ServingUnjudged("serving.xid", ServingInput(e));
  ASSERT_EQ(why.size(), 1u);
  EXPECT_NE(why[0].find("no log in /runs/chat"), std::string::npos);
}

TEST(ServingRules, HostFrontendAtLowConcurrency) {
  ServingPhaseEvidence e = ServingPhaseWith(
      4, 1, {ServingMetric("ttft_ms", "fail", 300, 90), ServingMetric("tpot_ms", "pass", 10, 10)});
  auto found = testing::EvaluateRule("serving.host_frontend", ServingInput(e));
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].layer, "host");
  EXPECT_EQ(found[0].confidence, Confidence::kLow);
  EXPECT_NE(found[0].fix.find("cpu.frequency.governor"), std::string::npos);
  // Near misses: at concurrency 64 TTFT is queueing; TPOT failing too points at the GPUs.
  EXPECT_TRUE(testing::EvaluateRule("serving.host_frontend",
                                    ServingInput(ServingPhaseWith(64, 1, e.row.metrics)))
                  .empty());
  e.row.metrics[1].outcome = "fail";
  EXPECT_TRUE(testing::EvaluateRule("serving.host_frontend", ServingInput(e)).empty());
  // TPOT not compared: said so.
  e.row.metrics.pop_back();
  auto why = ServingUnjudged("serving.host_frontend", ServingInput(e));
  ASSERT_EQ(why.size(), 1u);
  EXPECT_NE(why[0].find("TPOT was not compared"), std::string::npos);
}

TEST(ServingRules, TpAllReduceWithClocksNormal) {
  ServingPhaseEvidence e = ServingPhaseWith(64, 8, {ServingMetric("tpot_ms", "fail", 30, 20)});
  e.gpus = {BusyGpu("gpu0", 1980, 1980), BusyGpu("gpu1", 1980, 1980)};
  e.telemetry_files = {"/runs/chat/gpu_telemetry_node1.csv"};
  auto found = testing::EvaluateRule("serving.tp_allreduce", ServingInput(e));
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].layer, "fabric");
  EXPECT_NE(found[0].cause.find("tensor-parallel size 8"), std::string::npos);
  // Near miss: TP 1 has no all-reduce.
  ServingPhaseEvidence tp1 = e;
  tp1.row.tp = 1;
  EXPECT_TRUE(testing::EvaluateRule("serving.tp_allreduce", ServingInput(tp1)).empty());
  // Clocks held: the clocks rule explains it; no telemetry: the clocks cannot be ruled out.
  e.gpus[0].sm_clock_mhz = 1400;
  e.gpus[0].slowdown_share = 0.5;
  e.gpus[0].slowdown_reasons = gpu::kClocksEventHwSlowdown;
  EXPECT_TRUE(testing::EvaluateRule("serving.tp_allreduce", ServingInput(e)).empty());
  EXPECT_NE(ServingUnjudged("serving.tp_allreduce", ServingInput(e)).at(0).find("held down"),
            std::string::npos);
  e.gpus.clear();
  EXPECT_NE(ServingUnjudged("serving.tp_allreduce", ServingInput(e)).at(0).find("no GPU telemetry"),
            std::string::npos);
}

TEST(ServingRules, KvTransferInADisaggregatedPhase) {
  ServingPhaseEvidence e = ServingPhaseWith(
      256, 4,
      {ServingMetric("ttft_ms", "fail", 4000, 1500), ServingMetric("tpot_ms", "pass", 20, 20)});
  e.row.prefill_workers = 3;
  e.row.prefill_tp = 4;
  e.row.decode_workers = 1;
  e.row.decode_tp = 8;
  e.workers = {{"prefill_0", true, 9000, 50, "p0.log"},
               {"prefill_1", true, 5000, 50, "p1.log"},
               {"prefill_2", true, 9100, 50, "p2.log"}};
  e.transfer = {{"UCX_TLS", "tcp,cuda_copy", "p0.log"}};
  auto found = testing::EvaluateRule("serving.kv_transfer", ServingInput(e));
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].entity, "prefill_1");
  EXPECT_NE(found[0].cause.find("prefill_1 ran at 55.6%"), std::string::npos) << found[0].cause;
  EXPECT_NE(found[0].cause.find("over TCP"), std::string::npos);
  EXPECT_EQ(found[0].confidence, Confidence::kMedium);
  // An RDMA transport and even workers: still the symptom, low confidence, no worker named.
  e.transfer = {{"UCX_TLS", "rc_x,cuda_copy", "p0.log"}};
  e.workers[1].tokens_per_s = 8900;
  found = testing::EvaluateRule("serving.kv_transfer", ServingInput(e));
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].confidence, Confidence::kLow);
  EXPECT_EQ(found[0].entity, "phase chat");
  // Near miss: an aggregated phase.
  e.row.prefill_workers = 0;
  EXPECT_TRUE(testing::EvaluateRule("serving.kv_transfer", ServingInput(e)).empty());
}

// A real AIPerf export with DCGM telemetry (wellflat/k8s-dev, gpt-oss-20b on one of a node's 8
// A100s), as a failed phase: the 7 idle GPUs hold no memory, so no idle-GPU cause; DCGM gives no
// maximum clock, reasons or violation counters, so the clocks are not judged, and said so.
TEST(ServingRules, RealAiperfTelemetryGivesNoCauseFromNothing) {
  std::ifstream f(std::string(YS_SOURCE_DIR) +
                  "/tests/fixtures/real/serving/aiperf/aiperf_wellflat_gpt_oss_20b_a100_c1.json");
  std::stringstream text;
  text << f.rdbuf();
  auto gpus = ReadAiperfTelemetryJson(nlohmann::json::parse(text.str()), "wellflat.json");
  ASSERT_TRUE(gpus.ok());
  ServingPhaseEvidence e = ServingPhaseWith(1, 1, {ServingMetric("tpot_ms", "fail", 18.03, 15)});
  e.gpus = *gpus;
  const DiagnosisInput in = ServingInput(e);
  EXPECT_TRUE(testing::EvaluateRule("serving.idle_gpu", in).empty());
  EXPECT_TRUE(ServingUnjudged("serving.idle_gpu", in).empty());
  EXPECT_TRUE(testing::EvaluateRule("serving.gpu_clocks", in).empty());
  auto why = ServingUnjudged("serving.gpu_clocks", in);
  ASSERT_EQ(why.size(), 1u);
  EXPECT_NE(why[0].find("no maximum SM clock"), std::string::npos) << why[0];
  EXPECT_TRUE(testing::EvaluateRule("serving.xid", in).empty());  // DCGM's XID field is 0
}

// The other real export with telemetry (AIPerf's plot fixture, one RTX 6000 Ada near its maximum
// clock at 139 W of 300 W) as a failed phase: no clock cause, though its violation counter moved.
TEST(ServingRules, RealAiperfTelemetryNearFullClocksIsNoClockCause) {
  std::ifstream f(std::string(YS_SOURCE_DIR) +
                  "/tests/fixtures/real/serving/aiperf/aiperf_plot_fixture_qwen3_0.6b_c8.json");
  std::stringstream text;
  text << f.rdbuf();
  auto gpus = ReadAiperfTelemetryJson(nlohmann::json::parse(text.str()), "qwen3.json");
  ASSERT_TRUE(gpus.ok());
  ServingPhaseEvidence e =
      ServingPhaseWith(8, 1, {ServingMetric("output_tokens_per_s_per_gpu", "fail", 385.67, 420)});
  e.gpus = *gpus;
  const DiagnosisInput in = ServingInput(e);
  EXPECT_TRUE(testing::EvaluateRule("serving.gpu_clocks", in).empty());
  EXPECT_TRUE(ServingUnjudged("serving.gpu_clocks", in).empty());  // the counters can tell
  // The same GPU power-limited a third of the run at its limit: the counter is believed.
  e.gpus[0].power_violation_share = 0.33;
  e.gpus[0].power_w = 295;
  auto found = testing::EvaluateRule("serving.gpu_clocks", ServingInput(e));
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].cause.find("held by its power limit 33.0% of the run"), std::string::npos)
      << found[0].cause;
}

}  // namespace
}  // namespace ys::diagnose
