// The real nccl-tests logs of tests/fixtures/real/nccl-tests (SOURCES.md there: where each came
// from and the verdict an operator gives): each gives that verdict, and every busbw of the run
// document equals the log's own figure at that size and placement. The log's figures are read
// here by a plain regular expression over the rows, independently of the reader under test.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "validate/nccl_tests_log.h"
#include "validate/nccl_tests_ranks.h"
#include "validate/nccl_tests_run.h"

namespace ys::validate {
namespace {

std::string Real(const std::string& name) {
  std::string path = std::string(YS_FIXTURES_DIR) + "/real/nccl-tests/" + name;
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << path;
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// (size, inplace) -> busbw as printed, for 13-column rows, after any "[1,0]<stdout>:" prefix.
std::map<std::pair<std::string, std::string>, double> PrintedBusbw(const std::string& text) {
  static const std::regex row(
      R"(^(?:\[\d+,\d+\]<stdout>:)?\s*(\d+)\s+\d+\s+\w+\s+\w+\s+-?\d+\s+\S+\s+\S+\s+(\S+)\s+\S+)"
      R"(\s+\S+\s+\S+\s+(\S+)\s+\S+\s*$)");
  std::map<std::pair<std::string, std::string>, double> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (!std::regex_match(line, m, row)) continue;
    out[{m[1], "0"}] = std::stod(m[2]);
    out[{m[1], "1"}] = std::stod(m[3]);
  }
  return out;
}

void ExpectBusbwAsPrinted(const RunDocument& doc, const std::string& text, size_t rows) {
  auto printed = PrintedBusbw(text);
  ASSERT_EQ(printed.size(), 2 * rows);
  size_t seen = 0;
  for (const Measurement& m : doc.benchmarks.at(0).measurements) {
    if (m.name != "coll.all_reduce.busbw") continue;
    auto it = printed.find({m.params.at("size"), m.params.at("inplace")});
    ASSERT_NE(it, printed.end()) << m.params.at("size");
    EXPECT_EQ(m.value, it->second) << m.params.at("size") << " inplace " << m.params.at("inplace");
    EXPECT_EQ(m.unit, "GB/s");
    ++seen;
  }
  EXPECT_EQ(seen, printed.size());
}

const Measurement* Find(const RunDocument& doc, const std::string& name, const std::string& size,
                        const std::string& inplace) {
  for (const Measurement& m : doc.benchmarks.at(0).measurements) {
    auto s = m.params.find("size");
    if (m.name == name && s != m.params.end() && s->second == size &&
        m.params.at("inplace") == inplace)
      return &m;
  }
  return nullptr;
}

// The bandwidth verdict's reason, from the result's evidence.
std::string BandwidthNote(const BenchmarkResult& r) {
  for (const auto& [k, v] : r.evidence) {
    if (k == "bandwidth") return v;
  }
  return "";
}

std::string Evidence(const BenchmarkResult& r, const std::string& key) {
  for (const auto& [k, v] : r.evidence) {
    if (k == key) return v;
  }
  return "";
}

TEST(NcclTestsReal, H100TwoNodesAllReduceDataCheckPassesBandwidthNotJudged) {
  const std::string text = Real("a3mega_h100_2x8_all_reduce.txt");
  auto doc = IngestNcclTestsText(text, "a3mega");
  ASSERT_TRUE(doc.ok()) << doc.status().message();
  ASSERT_EQ(doc->benchmarks.size(), 1u);
  const BenchmarkResult& r = doc->benchmarks[0];
  EXPECT_EQ(r.unit_id, "coll.all_reduce");
  // The data check passes; the network between the two nodes is not in the log: INCONCLUSIVE.
  EXPECT_EQ(r.outcome, Outcome::kError);
  EXPECT_TRUE(r.findings.empty());
  EXPECT_NE(BandwidthNote(r).find("not judged: the ranks span 2 nodes"), std::string::npos);
  ExpectBusbwAsPrinted(*doc, text, 31);
  const Measurement* big = Find(*doc, "coll.all_reduce.busbw", "8589934592", "0");
  ASSERT_NE(big, nullptr);
  EXPECT_EQ(big->value, 338.82);
  EXPECT_EQ(big->params.at("ranks"), "16");
  EXPECT_EQ(big->params.at("backend"), "nccl");
  ASSERT_EQ(doc->nodes.size(), 2u);
  EXPECT_EQ(doc->nodes[0].hostname, "ztan-mig-235z");
  EXPECT_EQ(doc->nodes[1].ranks.size(), 8u);
  EXPECT_EQ(doc->host.hostname, "ztan-mig-235z");
  EXPECT_EQ(doc->ranks.size(), 16u);
  EXPECT_EQ(doc->Verdict(), Outcome::kError);
}

TEST(NcclTestsReal, Rtx5090TwoRanksOnOneGpuAreNotJudged) {
  const std::string text = Real("rtx5090_tag_output_all_reduce_mpi.log");
  auto log = ParseNcclTestsLog(text, "rtx5090");
  ASSERT_TRUE(log.ok()) << log.status().message();
  EXPECT_EQ(log->prefix, "mpirun --tag-output");
  EXPECT_EQ(log->tests_version, "2.18.0");
  EXPECT_EQ(log->nccl_version, "2.29.7");
  ASSERT_EQ(log->ranks.size(), 2u);
  EXPECT_EQ(log->ranks[1].gpu, "NVIDIA GeForce RTX 5090");
  auto doc = NcclTestsRunDocument(*log, "rtx5090");
  ASSERT_TRUE(doc.ok()) << doc.status().message();
  EXPECT_EQ(doc->benchmarks[0].unit_id, "coll.all_reduce");
  EXPECT_EQ(doc->benchmarks[0].outcome, Outcome::kError);
  EXPECT_NE(BandwidthNote(doc->benchmarks[0]).find("ranks share a GPU"), std::string::npos);
  ExpectBusbwAsPrinted(*doc, text, 8);
  const Measurement* m = Find(*doc, "coll.all_reduce.busbw", "1048576", "0");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->params.at("library"), "NCCL 2.29.7");
}

TEST(NcclTestsReal, K80WithoutDataCheckNeedsTheCollectiveAndIsNotJudged) {
  const std::string text = Real("pkb_k80_2node_all_reduce_c0.txt");
  // On 2 ranks all_reduce and sendrecv print the same columns: the log must be told which.
  auto unnamed = IngestNcclTestsText(text, "pkb");
  ASSERT_FALSE(unnamed.ok());
  EXPECT_NE(unnamed.status().message().find("all_reduce or sendrecv"), std::string::npos)
      << unnamed.status().message();
  auto doc = IngestNcclTestsText(text, "pkb", "all_reduce");
  ASSERT_TRUE(doc.ok()) << doc.status().message();
  const BenchmarkResult& r = doc->benchmarks[0];
  EXPECT_EQ(r.outcome, Outcome::kError);  // no data check, and two VMs over TCP
  ExpectBusbwAsPrinted(*doc, text, 11);
  bool not_checked = false;
  for (const auto& [k, v] : r.evidence)
    not_checked |= k == "data_check" && v.find("-c 0") != std::string::npos;
  EXPECT_TRUE(not_checked);
  for (const auto& [k, v] : r.evidence) {
    if (k == "gpus") {
      EXPECT_EQ(v, "2 x Tesla K80");
    }
  }
  EXPECT_EQ(doc->nodes.size(), 2u);
}

TEST(NcclTestsReal, H100WithAWrongElementFails) {
  // The failing case on the real H100 log: the 8 GiB row's in-place #wrong set to 5 and the
  // footer to what nccl-tests prints then (no complete public failing log was found).
  std::string text = Real("a3mega_h100_2x8_all_reduce.txt");
  const std::string row = "47743  179.92  337.35      0";
  size_t at = text.find(row);
  ASSERT_NE(at, std::string::npos);
  text.replace(at, row.size(), "47743  179.92  337.35      5");
  at = text.find("# Out of bounds values : 0 OK");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 29, "# Out of bounds values : 1 FAILED");
  auto doc = IngestNcclTestsText(text, "a3mega-wrong");
  ASSERT_TRUE(doc.ok()) << doc.status().message();
  const BenchmarkResult& r = doc->benchmarks[0];
  EXPECT_EQ(r.outcome, Outcome::kFail);
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].code, "YS-BENCH-001");
  EXPECT_NE(r.findings[0].message.find("5 wrong element(s)"), std::string::npos);
  EXPECT_EQ(doc->Verdict(), Outcome::kFail);
}

TEST(NcclTestsReal, Gb300ShortenedDeviceListIs128Ranks) {
  // The author kept ranks 0, 1, 126 and 127 and a "..." line: 128 ranks, not 4.
  const std::string text = Real("oci_gb300_32node_128rank_all_reduce_elided.txt");
  auto log = ParseNcclTestsLog(text, "gb300");
  ASSERT_TRUE(log.ok()) << log.status().message();
  EXPECT_TRUE(log->rank_list_elided);
  EXPECT_EQ(log->ranks.size(), 4u);
  auto doc = NcclTestsRunDocument(*log, "gb300");
  ASSERT_TRUE(doc.ok()) << doc.status().message();
  const BenchmarkResult& r = doc->benchmarks.at(0);
  EXPECT_EQ(r.unit_id, "coll.all_reduce");
  EXPECT_EQ(Evidence(r, "ranks"), "128");
  EXPECT_NE(Evidence(r, "ranks_from").find("last rank is 127"), std::string::npos);
  const Measurement* m = Find(*doc, "coll.all_reduce.busbw", "17179869184", "0");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->value, 738.39);
  EXPECT_EQ(m->params.at("ranks"), "128");
  EXPECT_EQ(r.outcome, Outcome::kError);  // several nodes: the link between them is not shown
  EXPECT_TRUE(r.findings.empty());
  // The count the columns give agrees: 708.75 / 357.16 = 2 x 127 / 128.
  auto ratio = RanksFromRatio(log->tables[0], "all_reduce");
  ASSERT_TRUE(ratio.has_value());
  EXPECT_EQ(ratio->n, 128);
}

TEST(NcclTestsReal, Gb300TwoNodeAlltoallIsEightRanks) {
  const std::string text = Real("oci_gb300_2node_alltoall_elided.txt");
  auto doc = IngestNcclTestsText(text, "gb300-a2a");
  ASSERT_TRUE(doc.ok()) << doc.status().message();
  const BenchmarkResult& r = doc->benchmarks.at(0);
  EXPECT_EQ(r.unit_id, "coll.alltoall");
  EXPECT_EQ(Evidence(r, "ranks"), "8");
  EXPECT_EQ(r.outcome, Outcome::kError);
  EXPECT_NE(BandwidthNote(r).find("span several nodes"), std::string::npos);
  auto log = ParseNcclTestsLog(text, "gb300-a2a");
  ASSERT_TRUE(log.ok());
  auto ratio = RanksFromRatio(log->tables[0], "alltoall");
  ASSERT_TRUE(ratio.has_value());
  EXPECT_EQ(ratio->n, 8);  // 679.65 / 776.74 = 7/8
}

TEST(NcclTestsReal, OneProcessSendrecvTakesRanksFromTheCommandLine) {
  // No device list, no nThread line: "-g 8" on the command line says 8 ranks, not 0.
  const std::string text = Real("liplus_a100x8_one_process_sendrecv.txt");
  auto doc = IngestNcclTestsText(text, "sendrecv");
  ASSERT_TRUE(doc.ok()) << doc.status().message();
  const BenchmarkResult& r = doc->benchmarks.at(0);
  EXPECT_EQ(r.unit_id, "coll.sendrecv");
  EXPECT_EQ(Evidence(r, "ranks"), "8");
  EXPECT_NE(Evidence(r, "ranks_from").find("-g 8"), std::string::npos);
  const Measurement* m = Find(*doc, "coll.sendrecv.busbw", "1073741824", "0");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->value, 195.10);
  EXPECT_EQ(m->params.at("ranks"), "8");
  // The log names no GPU: the link class is unknown, the bandwidth not judged.
  EXPECT_EQ(r.outcome, Outcome::kError);
  EXPECT_NE(BandwidthNote(r).find("no device list"), std::string::npos);
}

TEST(NcclTestsReal, OneGpuReduceIsNoCommunicationAndNoBandwidth) {
  // nGpus 1: the in-place column (0.19 us, 5706839.35 GB/s) and the 267 GB/s local copy are no
  // bus bandwidth.
  const std::string text = Real("autodl_2080ti_1gpu_reduce.txt");
  auto doc = IngestNcclTestsText(text, "onegpu");
  ASSERT_TRUE(doc.ok()) << doc.status().message();
  const BenchmarkResult& r = doc->benchmarks.at(0);
  EXPECT_EQ(r.unit_id, "coll.reduce");
  EXPECT_EQ(Evidence(r, "ranks"), "1");
  for (const Measurement& m : r.measurements) {
    EXPECT_EQ(m.name, "coll.reduce.time_us") << m.name << " = " << m.value;
  }
  EXPECT_FALSE(r.measurements.empty());
  EXPECT_EQ(r.outcome, Outcome::kError);
  EXPECT_NE(r.summary.find("no communication"), std::string::npos) << r.summary;
  EXPECT_EQ(doc->Verdict(), Outcome::kError);
}

TEST(NcclTestsReal, TwoGeForceGpusWithoutP2pWarnFarBelowPcie) {
  // 2 x RTX 2080 Ti, P2P unavailable: all_reduce plateaus at 4 GB/s, a PCIe Gen3 x16 path gives
  // 12-15.75 GB/s.
  const std::string text = Real("autodl_2080ti_x2_pcie_no_p2p_all_reduce.txt");
  auto doc = IngestNcclTestsText(text, "2080ti");
  ASSERT_TRUE(doc.ok()) << doc.status().message();
  const BenchmarkResult& r = doc->benchmarks.at(0);
  EXPECT_EQ(r.unit_id, "coll.all_reduce");
  EXPECT_EQ(Evidence(r, "ranks"), "2");
  EXPECT_EQ(r.outcome, Outcome::kWarn);
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].code, "YS-BENCH-004");
  EXPECT_NE(r.findings[0].message.find("12-15.75 GB/s of PCIe Gen3 x16"), std::string::npos)
      << r.findings[0].message;
  EXPECT_NE(r.findings[0].reference.find("PCI Express Base Specification"), std::string::npos);
  ExpectBusbwAsPrinted(*doc, text, 28);
  EXPECT_EQ(doc->Verdict(), Outcome::kWarn);
}

}  // namespace
}  // namespace ys::validate
