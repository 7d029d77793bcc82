// The ranked list of `yardstick merge`: faults of each kind placed on the right entity, nothing
// on healthy nodes, the bimodal, tiny, mixed-hardware, duplicate and corrupt-document fleets.
#include <gtest/gtest.h>

#include <cctype>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/run_document_json.h"
#include "fleet/fixture.h"
#include "fleet/merge.h"
#include "validate/archive_test_util.h"

namespace ys::fleet {
namespace {

using archive_testing::ScopedTempDir;
using archive_testing::WriteFile;
using testing::FleetPlan;
using testing::MakeFleetDocuments;
using testing::NodeName;

using Row = std::tuple<std::string, std::string, std::string>;  // node, entity, kind

// Each document as nodes/<hostname>.run.json under `tmp`.
void WriteNodes(const ScopedTempDir& tmp, const std::vector<RunDocument>& docs) {
  for (const RunDocument& d : docs)
    WriteFile(tmp.Sub("nodes/" + d.host.hostname + ".run.json"), DumpJson(ToJson(d)));
}

FleetReport Merge(const ScopedTempDir& tmp, const std::vector<RunDocument>& docs,
                  MergeOptions o = {}) {
  WriteNodes(tmp, docs);
  auto r = MergeFleet({tmp.Sub("nodes")}, o);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? std::move(*r) : FleetReport{};
}

std::set<Row> Rows(const FleetReport& r, const std::string& kind = "") {
  std::set<Row> out;
  for (const RankedFinding& f : r.ranked) {
    if (kind.empty() || f.kind == kind) out.insert({f.node, f.entity, f.kind});
  }
  return out;
}

std::string Dump(const FleetReport& r) {
  std::string s;
  for (const RankedFinding& f : r.ranked)
    s += f.node + " " + f.entity + " " + f.kind + ": " + f.evidence + "\n";
  return s;
}

TEST(FleetRankTest, EachFaultIsPlacedOnTheEntityThatExplainsIt) {
  FleetPlan p;
  p.nodes = 200;
  p.gemm_node[NodeName(3)] = 0.93;              // every GPU 7% slow in GEMM: the node
  p.gemm_gpu[{NodeName(5), "gpu2"}] = 0.85;     // one GPU's GEMM
  p.hbm_gpu[{NodeName(7), "gpu6"}] = 0.86;      // one GPU's HBM, 14% low
  p.nvlink_gpu[{NodeName(11), "gpu4"}] = 0.80;  // one GPU's NVLinks, every pair both ways
  p.pcie_gpu[{NodeName(13), "gpu1"}] = 0.50;    // a PCIe link at half width
  p.nic[{NodeName(17), "mlx5_3"}] = 0.80;
  p.net_node[NodeName(19)] = 0.85;  // every NIC: the node
  p.stream_node[NodeName(23)] = 0.85;
  ScopedTempDir tmp;
  FleetReport r = Merge(tmp, MakeFleetDocuments(p));
  std::set<Row> want = {
      {NodeName(3), "node", "gemm"},     {NodeName(5), "gpu2", "gemm"},
      {NodeName(7), "gpu6", "memory"},   {NodeName(11), "gpu4", "nvlink"},
      {NodeName(13), "gpu1", "pcie"},    {NodeName(17), "mlx5_3", "network"},
      {NodeName(19), "node", "network"}, {NodeName(23), "node", "stream"},
  };
  EXPECT_EQ(Rows(r), want) << Dump(r);
  EXPECT_EQ(r.Verdict(), "fail");
  for (const RankedFinding& f : r.ranked) {
    EXPECT_LE(f.deficit_low, f.deficit) << f.node;
    EXPECT_GE(f.deficit_high, f.deficit) << f.node;
    EXPECT_FALSE(f.action.empty());
  }
  // The deficit's interval holds the planted size.
  for (const RankedFinding& f : r.ranked) {
    if (f.node == NodeName(7)) {
      EXPECT_NEAR(f.deficit, 0.14, 0.02);
    }
    if (f.node == NodeName(3)) {
      EXPECT_LE(f.deficit_low, 0.07);
      EXPECT_GE(f.deficit_high, 0.07);
    }
  }
}

TEST(FleetRankTest, AHealthyFleetDrainsNothingAndWatchesOnlyItsStatedFalseAlarms) {
  for (uint64_t seed : {1, 2}) {
    FleetPlan p;
    p.nodes = 300;
    p.seed = seed;
    ScopedTempDir tmp;
    FleetReport r = Merge(tmp, MakeFleetDocuments(p));
    EXPECT_NEAR(r.expected_false_alarms, 2.55, 1e-9);  // 5 in 10,000 of 300 x 17 entities
    EXPECT_LE(r.ranked.size(), 7u) << Dump(r);         // P(Poisson(2.55) > 7) < 0.01
    for (const RankedFinding& f : r.ranked) EXPECT_TRUE(f.watch) << Dump(r);
    EXPECT_EQ(r.Verdict(), "pass");
  }
}

TEST(FleetRankTest, DerivedParamsDoNotSplitTheGroups) {
  FleetPlan p;
  p.nodes = 20;
  ScopedTempDir tmp;
  FleetReport r = Merge(tmp, MakeFleetDocuments(p));
  // gemm: 2 dtypes x 2 shapes; mem; h2d, d2h; d2d; ib bw, latency; 2 collectives; 4 STREAM;
  // sgemm: 17.
  std::string keys;
  for (const auto& [key, k] : r.keys) keys += key + "\n";
  EXPECT_EQ(r.keys.size(), 17u) << keys;
  for (const auto& [key, k] : r.keys) {
    EXPECT_EQ(key.find("pct_of_peak"), std::string::npos) << key;
    EXPECT_EQ(key.find("hbm_traffic"), std::string::npos) << key;
    EXPECT_EQ(key.find("best="), std::string::npos) << key;
    EXPECT_EQ(key.find("peak"), std::string::npos) << key;
    EXPECT_EQ(key.find("library"), std::string::npos) << key;
    EXPECT_TRUE(k.judged) << key;
  }
}

TEST(FleetRankTest, ABimodalFleetReportsTheSlowModeNodeByNode) {
  for (double share : {0.3, 0.5}) {
    FleetPlan p;
    p.nodes = 200;
    std::set<std::string> slow;
    for (int i = 0; i < p.nodes; ++i) {
      if (i % 10 < share * 10) p.gemm_node[NodeName(i)] = 0.88, slow.insert(NodeName(i));
    }
    ScopedTempDir tmp;
    FleetReport r = Merge(tmp, MakeFleetDocuments(p));
    std::set<Row> want;
    for (const std::string& n : slow) want.insert({n, "node", "gemm"});
    EXPECT_EQ(Rows(r), want) << "share " << share << "\n" << Dump(r);
    ASSERT_FALSE(r.slow_modes.empty()) << share;
    for (const SlowMode& m : r.slow_modes) {
      EXPECT_EQ(m.kind, FigureKind::kGemm) << m.key;
      EXPECT_NEAR(m.share, share, 0.02);
      EXPECT_NEAR(m.deficit, 0.12, 0.02);
    }
  }
}

TEST(FleetRankTest, ATinyFleetIsJudgedAgainstTheSpec) {
  FleetPlan p;
  p.nodes = 3;
  p.edit = [](int i, RunDocument& d) {
    if (i != 1) return;
    for (auto& m : d.benchmarks[0].measurements) {  // gemm.gpu on gpu0 at 40% of its peak
      if (m.params["device"] == "gpu0") m.params["pct_of_peak"] = "40.0";
    }
  };
  ScopedTempDir tmp;
  FleetReport r = Merge(tmp, MakeFleetDocuments(p));
  EXPECT_TRUE(r.too_small);
  EXPECT_EQ(Rows(r), (std::set<Row>{{NodeName(1), "gpu0", "gemm"}})) << Dump(r);
  EXPECT_EQ(r.Verdict(), "fail");
  bool said = false;
  for (const auto& w : r.warnings)
    said |= w.find("too small to judge peer-wise") != std::string::npos;
  EXPECT_TRUE(said);
  p.edit = nullptr;
  ScopedTempDir tmp2;
  FleetReport healthy = Merge(tmp2, MakeFleetDocuments(p));
  EXPECT_TRUE(healthy.ranked.empty()) << Dump(healthy);
  EXPECT_EQ(healthy.Verdict(), "inconclusive");
}

// Under min_fleet documents the spec floor judges: HBM at 40% of its peak is below the 50% floor
// (FleetOptions::spec_share), a healthy HBM copy (about 87% of the peak in HBM traffic) is not.
TEST(FleetRankTest, ATinyFleetJudgesHbmAgainstItsSpecFloor) {
  auto plan = [](bool slow) {
    FleetPlan p;
    p.nodes = 3;
    p.edit = [slow](int i, RunDocument& d) {
      for (auto& b : d.benchmarks) {
        for (auto& m : b.measurements) {
          if (m.name != "mem.gpu.copy_ce") continue;
          bool bad = slow && i == 2 && m.params["device"] == "gpu5";
          m.params["pct_of_peak"] = bad ? "40.0" : "86.6";
          if (bad) m.value *= 40.0 / 86.6;
        }
      }
    };
    return p;
  };
  ScopedTempDir tmp;
  FleetReport r = Merge(tmp, MakeFleetDocuments(plan(true)));
  EXPECT_TRUE(r.too_small);
  EXPECT_EQ(Rows(r), (std::set<Row>{{NodeName(2), "gpu5", "memory"}})) << Dump(r);
  ASSERT_EQ(r.ranked.size(), 1u);
  EXPECT_NEAR(r.ranked[0].deficit, (50.0 - 40.0) / 50.0, 1e-9);  // short of the floor by 20%
  EXPECT_NE(r.ranked[0].evidence.find("below the 50% a healthy device reaches"), std::string::npos)
      << r.ranked[0].evidence;
  EXPECT_EQ(r.Verdict(), "fail");
  ScopedTempDir tmp2;
  FleetReport healthy = Merge(tmp2, MakeFleetDocuments(plan(false)));
  EXPECT_TRUE(healthy.ranked.empty()) << Dump(healthy);
  EXPECT_EQ(healthy.Verdict(), "inconclusive");
}

TEST(FleetRankTest, AMixedFleetIsSplitByGpuModel) {
  FleetPlan h100;
  h100.nodes = 100;
  auto docs = MakeFleetDocuments(h100);
  FleetPlan h200 = h100;
  h200.nodes = 5;
  h200.seed = 9;
  h200.gpu_name = "NVIDIA H200";
  for (RunDocument d : MakeFleetDocuments(h200)) {
    d.host.hostname = "h200-" + d.host.hostname;
    for (auto& b : d.benchmarks) {
      for (auto& m : b.measurements) m.value *= 1.4;  // faster hardware, not faster nodes
    }
    docs.push_back(std::move(d));
  }
  ScopedTempDir tmp;
  FleetReport r = Merge(tmp, docs);
  std::set<Row> want;
  for (int i = 0; i < 5; ++i) want.insert({"h200-" + NodeName(i), "node", "hardware"});
  EXPECT_EQ(Rows(r), want) << Dump(r);
  bool said = false;
  for (const auto& w : r.warnings) said |= w.find("mixed GPU models") != std::string::npos;
  EXPECT_TRUE(said);
}

TEST(FleetRankTest, DuplicatesAreCountedOnceAndReported) {
  FleetPlan p;
  p.nodes = 50;
  auto docs = MakeFleetDocuments(p);
  ScopedTempDir tmp;
  WriteNodes(tmp, docs);
  // The same file through a second input, a byte-identical copy, and another job on node0004.
  WriteFile(tmp.Sub("copy/again.run.json"), DumpJson(ToJson(docs[2])));
  RunDocument second = docs[4];
  second.started_at = "2026-11-30T10:00:00Z";
  WriteFile(tmp.Sub("copy/second-job.run.json"), DumpJson(ToJson(second)));
  auto r = MergeFleet({tmp.Sub("nodes"), tmp.Sub("nodes/node0001.run.json"), tmp.Sub("copy")}, {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->documents, 51u);  // 50 nodes + the second job; the two duplicates once
  EXPECT_EQ(Rows(*r), (std::set<Row>{{NodeName(1), "node", "duplicate"},
                                     {NodeName(2), "node", "duplicate"},
                                     {NodeName(4), "node", "duplicate"}}))
      << Dump(*r);
}

// The duplicate search hashes a sample of each document's bytes; documents whose samples agree are
// compared whole, so a copy that differs in one byte outside the samples is a document of its own.
TEST(FleetRankTest, ADocumentThatDiffersInOneUnsampledByteIsNotADuplicate) {
  FleetPlan p;
  p.nodes = 20;
  auto docs = MakeFleetDocuments(p);
  ScopedTempDir tmp;
  WriteNodes(tmp, docs);
  std::string text = DumpJson(ToJson(docs[3]));
  ASSERT_GT(text.size(), 3 * 4096u);
  // The third digit after a decimal point, away from the first and last 4 KiB and from the 32
  // bytes sampled at every 4 KiB.
  size_t at = std::string::npos;
  for (size_t i = 4096 + 64; i + 4096 < text.size() && at == std::string::npos; ++i) {
    if (i % 4096 >= 64 && text[i - 3] == '.' && std::isdigit(text[i - 2]) &&
        std::isdigit(text[i - 1]) && std::isdigit(text[i]))
      at = i;
  }
  ASSERT_NE(at, std::string::npos);
  text[at] = text[at] == '9' ? '8' : static_cast<char>(text[at] + 1);
  WriteFile(tmp.Sub("copy/near.run.json"), text);
  auto r = MergeFleet({tmp.Sub("nodes"), tmp.Sub("copy")}, {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  // Judged as a second document of node0003 (its host name twice), not as the same document.
  auto given_twice = [](const FleetReport& f) {
    int n = 0;
    for (const RankedFinding& x : f.ranked)
      n += x.kind == "duplicate" && x.evidence.find("the same document given twice") == 0;
    return n;
  };
  EXPECT_EQ(r->documents, 21u);
  EXPECT_EQ(given_twice(*r), 0) << Dump(*r);
  // A byte-identical copy still is the same document, counted once.
  WriteFile(tmp.Sub("copy2/same.run.json"), DumpJson(ToJson(docs[3])));
  auto again = MergeFleet({tmp.Sub("nodes"), tmp.Sub("copy2")}, {});
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->documents, 20u);
  EXPECT_EQ(given_twice(*again), 1) << Dump(*again);
}

TEST(FleetRankTest, ACorruptDocumentNeverYieldsAPass) {
  FleetPlan p;
  p.nodes = 40;
  ScopedTempDir tmp;
  auto docs = MakeFleetDocuments(p);
  WriteNodes(tmp, docs);
  std::string text = DumpJson(ToJson(docs[0]));
  WriteFile(tmp.Sub("nodes/node9999.run.json"), text.substr(0, text.size() / 3));
  MergeOptions o;
  auto stop = MergeFleet({tmp.Sub("nodes")}, o);
  ASSERT_FALSE(stop.ok());
  EXPECT_NE(stop.status().message().find("node9999.run.json"), std::string::npos);
  o.keep_going = true;
  auto r = MergeFleet({tmp.Sub("nodes")}, o);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->Verdict(), "incomplete");
  EXPECT_EQ(Rows(*r), (std::set<Row>{{"node9999", "node", "corrupt"}}));
}

TEST(FleetRankTest, NonNumericEvidenceJoinsTheVerdict) {
  FleetPlan p;
  p.nodes = 200;
  p.edit = [](int i, RunDocument& d) {
    if (i == 10 || i == 11) {  // a failing check on 1% of the nodes
      Finding f;
      f.code = "YS-GPU-007";
      f.severity = Severity::kFail;
      f.entity = "gpu5";
      f.message = "row remapping pending";
      f.fix = "reset the GPU";
      d.checks[0].findings.push_back(f);
      d.checks[0].outcome = Outcome::kFail;
    }
    if (i == 20) d.benchmarks.erase(d.benchmarks.begin() + 1);  // mem.gpu did not run
    if (i == 30) d.host.gpu_driver = "535.104.05";
    if (i == 40) {
      d.incomplete = true;
      d.incomplete_reason = "rank 3 stopped answering";
    }
    if (i == 50) {  // jittery samples on gpu3
      for (auto& b : d.benchmarks) {
        for (auto& m : b.measurements) {
          if (m.params["device"] == "gpu3") m.stats.stdev = 0.06 * m.value;
        }
      }
    }
  };
  ScopedTempDir tmp;
  FleetReport r = Merge(tmp, MakeFleetDocuments(p));
  EXPECT_EQ(Rows(r), (std::set<Row>{{NodeName(10), "gpu5", "check"},
                                    {NodeName(11), "gpu5", "check"},
                                    {NodeName(20), "node", "missing_units"},
                                    {NodeName(30), "node", "version"},
                                    {NodeName(40), "node", "incomplete"},
                                    {NodeName(50), "gpu3", "spread"}}))
      << Dump(r);
}

// A one-process document's collectives say device=gpu: the node's, not a GPU called "gpu". An
// 8-rank one-node document's job-level collectives are that node's and are judged.
TEST(FleetRankTest, JobLevelFiguresOfAOneNodeDocumentAreTheNodes) {
  FleetPlan p;
  p.nodes = 100;
  p.edit = [](int i, RunDocument& d) {
    if (i % 2 ==
        0) {  // an 8-rank document: per-node benchmarks under nodes[], collectives job-level
      NodeReport n{.hostname = d.host.hostname, .ranks = {0, 1, 2, 3, 4, 5, 6, 7}};
      std::vector<BenchmarkResult> job;
      for (auto& b : d.benchmarks)
        (b.unit_id.starts_with("coll.") ? job : n.benchmarks).push_back(b);
      d.benchmarks = job;
      d.nodes.push_back(std::move(n));
    }
    if (i == 42) {
      for (auto& b : d.benchmarks) {
        for (auto& m : b.measurements) {
          if (m.name.starts_with("coll.")) m.value *= 0.8;
        }
      }
    }
  };
  ScopedTempDir tmp;
  FleetReport r = Merge(tmp, MakeFleetDocuments(p));
  EXPECT_EQ(Rows(r), (std::set<Row>{{NodeName(42), "node", "collective"}})) << Dump(r);
}

}  // namespace
}  // namespace ys::fleet
