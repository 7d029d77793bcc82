// A serving phase's folder read for the diagnosis (diagnose/serving_evidence.h): telemetry, Xid
// lines, KV-transfer settings and per-worker rates, with a malformed file kept as a problem; and
// validate's diagnosis input built from a validation document and its runs folder.
#include "diagnose/serving_evidence.h"

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "diagnose/engine.h"
#include "testing/bench_test_util.h"

namespace ys::diagnose {
namespace {

void WriteEvidenceFile(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

ValidationPhase FailedDisaggRow() {
  ValidationPhase row;
  row.id = "disagg";
  row.outcome = "fail";
  row.prefill_workers = 2;
  row.decode_workers = 1;
  row.point = "concurrency 4";
  return row;
}

TEST(ServingEvidence, ReadsWhatThePhaseFolderHolds) {
  testing::TempDir dir;
  WriteEvidenceFile(dir.path() + "/gpu_telemetry_node1.csv",
                    "index, clocks.sm [MHz], utilization.gpu [%]\n0, 1980 MHz, 97 %\n");
  WriteEvidenceFile(dir.path() + "/dmesg.txt",
                    "[ 10.0] eth0 up\n[ 12.5] NVRM: Xid (PCI:0000:1b:00): 79, pid=1, GPU has "
                    "fallen off the bus.\n");
  WriteEvidenceFile(
      dir.path() + "/prefill_0.log",
      "env UCX_TLS=tcp,cuda_copy NIXL_X\nINFO Avg prompt throughput: 1000.0 tokens/s, Avg "
      "generation throughput: 0.0 tokens/s\nINFO Avg prompt throughput: 0.0 "
      "tokens/s\nINFO Avg prompt throughput: 3000.0 tokens/s\n");
  WriteEvidenceFile(dir.path() + "/decode_0.log",
                    "env: {'UCX_NET_DEVICES': 'mlx5_0:1,mlx5_1:1', 'X': 1}\n"
                    "[2025] Decode batch. #running-req: 4, gen throughput (token/s): 250.5\n");
  WriteEvidenceFile(dir.path() + "/bad_telemetry.csv", "index, clocks.sm\n0, fast\n0, 1\n");
  ServingPhaseEvidence e = ReadServingPhaseEvidence(FailedDisaggRow(), dir.path());
  ASSERT_EQ(e.gpus.size(), 1u);
  EXPECT_DOUBLE_EQ(*e.gpus[0].sm_clock_mhz, 1980);
  ASSERT_EQ(e.xids.size(), 1u);
  EXPECT_EQ(e.xids[0].xid.xid, 79);
  EXPECT_EQ(e.xids[0].line, 2);
  ASSERT_EQ(e.transfer.size(), 2u);
  EXPECT_EQ(e.transfer[0].name, "UCX_NET_DEVICES");
  EXPECT_EQ(e.transfer[0].value, "mlx5_0:1,mlx5_1:1");
  EXPECT_EQ(e.transfer[1].name, "UCX_TLS");
  EXPECT_EQ(e.transfer[1].value, "tcp,cuda_copy");
  ASSERT_EQ(e.workers.size(), 2u);
  EXPECT_EQ(e.workers[0].worker, "decode_0");
  EXPECT_DOUBLE_EQ(e.workers[0].tokens_per_s, 250.5);
  EXPECT_EQ(e.workers[1].worker, "prefill_0");
  EXPECT_DOUBLE_EQ(e.workers[1].tokens_per_s, 2000);  // idle intervals (0.0) left out
  EXPECT_EQ(e.workers[1].samples, 2);
  ASSERT_EQ(e.problems.size(), 1u);
  EXPECT_NE(e.problems[0].find("bad_telemetry.csv: line 2"), std::string::npos) << e.problems[0];
  EXPECT_EQ(e.Concurrency(), 4);
  EXPECT_TRUE(e.Disaggregated());
}

TEST(ServingEvidence, NoFolderAndAMissingFolder) {
  ServingPhaseEvidence none = ReadServingPhaseEvidence(FailedDisaggRow(), "");
  EXPECT_TRUE(none.problems.empty());
  EXPECT_TRUE(none.gpus.empty());
  ServingPhaseEvidence missing = ReadServingPhaseEvidence(FailedDisaggRow(), "/nonexistent/x");
  ASSERT_EQ(missing.problems.size(), 1u);
  EXPECT_NE(missing.problems[0].find("not a folder"), std::string::npos);
}

// validate's input: only the phases that did not pass, each with its folder under the runs dir.
TEST(ServingEvidence, DiagnosisInputTakesThePhasesThatFellShort) {
  testing::TempDir runs;
  std::filesystem::create_directory(runs.path() + "/chat");
  WriteEvidenceFile(runs.path() + "/chat/kmsg.txt", "NVRM: Xid (PCI:0000:1b:00): 48, pid=1, DBE\n");
  auto doc = nlohmann::json::parse(R"({"kind": "yardstick-validation", "workloads": [],
    "phases": [{"id": "chat", "outcome": "fail", "metrics": []},
               {"id": "reasoning", "outcome": "pass", "metrics": []}]})");
  auto in = DiagnosisInputFor(nullptr, &doc, "", runs.path());
  ASSERT_TRUE(in.ok()) << in.status().message();
  ASSERT_EQ(in->serving.size(), 1u);
  EXPECT_EQ(in->serving[0].row.id, "chat");
  ASSERT_EQ(in->serving[0].xids.size(), 1u);
  EXPECT_EQ(in->serving[0].xids[0].xid.xid, 48);
}

}  // namespace
}  // namespace ys::diagnose
