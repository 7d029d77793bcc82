// The nccl-tests reader on literal strings: both table layouts (with root and #wrong; the older
// one with "error" and no root), one placement, -c 0, the launcher prefixes, several tables in one
// file, the collective told from the columns, and malformed input (file:line, what was expected).
#include "validate/nccl_tests_log.h"

#include <gtest/gtest.h>

#include "validate/nccl_tests_run.h"

namespace ys::validate {
namespace {

constexpr const char* kHeader =
    "#       size         count      type   redop    root     time   algbw   busbw #wrong     "
    "time   algbw   busbw #wrong\n"
    "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            "
    "(us)  (GB/s)  (GB/s)\n";

std::string FourRankReduceScatter(const std::string& wrong_in_place = "0") {
  return std::string(
             "# nThread 1 nGpus 1 minBytes 1024 maxBytes 4096 step: 2(factor) warmup "
             "iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0\n#\n"
             "# Using devices\n") +
         "#  Rank  0 Group  0 Pid   101 on     node-a device  0 [0000:18:00] NVIDIA "
         "A100-SXM4-80GB\n"
         "#  Rank  1 Group  0 Pid   102 on     node-a device  1 [0000:2a:00] NVIDIA "
         "A100-SXM4-80GB\n"
         "#  Rank  2 Group  0 Pid   201 on     node-b device  0 [0000:18:00] NVIDIA "
         "A100-SXM4-80GB\n"
         "#  Rank  3 Group  0 Pid   202 on     node-b device  1 [0000:2a:00] NVIDIA "
         "A100-SXM4-80GB\n"
         "#\n" +
         kHeader +
         "        1024            64     float     sum      -1    20.00    0.05    0.04      0    "
         "19.50    0.05    0.04      0\n"
         "        4096           256     float     sum      -1    21.00    0.20    0.15      0    "
         "20.00    0.20    0.15      " +
         wrong_in_place +
         "\n"
         "# Out of bounds values : " +
         (wrong_in_place == "0" ? "0 OK" : "1 FAILED") +
         "\n"
         "# Avg bus bandwidth    : 0.095\n#\n";
}

TEST(NcclTestsLog, ReadsTheDeviceListRowsAndFooter) {
  auto log = ParseNcclTestsLog(FourRankReduceScatter(), "rs.log");
  ASSERT_TRUE(log.ok()) << log.status().message();
  ASSERT_EQ(log->ranks.size(), 4u);
  EXPECT_EQ(log->ranks[2].host, "node-b");
  EXPECT_EQ(log->ranks[3].device, 1);
  EXPECT_EQ(log->ranks[3].bus_id, "0000:2a:00");
  EXPECT_EQ(log->ranks[0].gpu, "NVIDIA A100-SXM4-80GB");
  EXPECT_EQ(log->validation, 1);
  ASSERT_EQ(log->tables.size(), 1u);
  const NcclTestsTable& t = log->tables[0];
  EXPECT_EQ(t.collective, "");  // not named: told from the columns later
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_EQ(t.rows[1].size_bytes, 4096u);
  EXPECT_EQ(t.rows[1].count, 256u);
  EXPECT_DOUBLE_EQ(t.rows[1].out_of_place.busbw_gbps, 0.15);
  ASSERT_TRUE(t.rows[1].in_place.has_value());
  EXPECT_EQ(t.rows[1].in_place->wrong, 0);
  EXPECT_EQ(t.out_of_bounds, 0);
  EXPECT_FALSE(t.out_of_bounds_failed);
  EXPECT_DOUBLE_EQ(*t.avg_busbw_gbps, 0.095);
}

TEST(NcclTestsLog, TellsReduceScatterFromItsColumns) {
  // Per-rank count (64 x 4 B x 4 ranks = 1024 B), a reduction, no root, busbw = 3/4 algbw.
  auto doc = IngestNcclTestsText(FourRankReduceScatter(), "rs.log");
  ASSERT_TRUE(doc.ok()) << doc.status().message();
  ASSERT_EQ(doc->benchmarks.size(), 1u);
  EXPECT_EQ(doc->benchmarks[0].unit_id, "coll.reduce_scatter");
  // Two nodes: the network between them is not in the log, so the bandwidth is not judged.
  EXPECT_EQ(doc->benchmarks[0].outcome, Outcome::kError);
  EXPECT_NE(doc->benchmarks[0].summary.find("span 2 nodes"), std::string::npos);
  ASSERT_EQ(doc->nodes.size(), 2u);
  EXPECT_EQ(doc->nodes[1].hostname, "node-b");
  EXPECT_EQ(doc->nodes[1].ranks, (std::vector<int>{2, 3}));
  EXPECT_EQ(doc->host.hostname, "node-a");
}

TEST(NcclTestsLog, AWrongElementFailsTheDataCheck) {
  auto doc = IngestNcclTestsText(FourRankReduceScatter("3"), "rs.log", "reduce_scatter");
  ASSERT_TRUE(doc.ok()) << doc.status().message();
  const BenchmarkResult& r = doc->benchmarks[0];
  EXPECT_EQ(r.outcome, Outcome::kFail);
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].code, "YS-BENCH-001");
  EXPECT_NE(r.findings[0].message.find("3 wrong element(s)"), std::string::npos);
  EXPECT_EQ(doc->Verdict(), Outcome::kFail);
}

TEST(NcclTestsLog, OlderLayoutWithErrorColumnAndNoRoot) {
  // nccl-tests before the root column: "error" is a deviation; the footer judges.
  std::string text =
      "nThread 1 nGpus 8 minBytes 32 maxBytes 64 step: 2(factor) warmup iters: 5 iters: 20 "
      "validation: 1\n\n Using devices\n"
      "   Rank  0 Pid 1821213 on AI-A100-Beethoven01 device  0 [0x00] NVIDIA A100-SXM4-40GB\n\n"
      "                                                     out-of-place                       "
      "in-place\n"
      "       size         count    type   redop     time   algbw   busbw  error     time   "
      "algbw   busbw  error\n"
      "        (B)    (elements)                     (us)  (GB/s)  (GB/s)            (us)  "
      "(GB/s)  (GB/s)\n"
      "          32             8   float     sum    30.50    0.00    0.00  0e+00    30.10    "
      "0.00    0.00  0e+00\n"
      "          64            16   float     sum    30.60    0.00    0.00  1e-07    30.20    "
      "0.00    0.00  0e+00\n"
      " Out of bounds values : 0 OK\n Avg bus bandwidth    : 0.00\n";
  auto log = ParseNcclTestsLog(text, "old.log");
  ASSERT_TRUE(log.ok()) << log.status().message();
  const NcclTestsTable& t = log->tables[0];
  EXPECT_TRUE(t.error_column);
  EXPECT_EQ(log->gpus_per_thread, 8);
  EXPECT_FALSE(t.rows[1].out_of_place.wrong.has_value());
  EXPECT_DOUBLE_EQ(*t.rows[1].out_of_place.max_error, 1e-7);
  auto doc = NcclTestsRunDocument(*log, "old.log", "all_reduce");
  ASSERT_TRUE(doc.ok()) << doc.status().message();
  // A deviation in bounds is no failure; a sweep that stops at 64 B judges no bandwidth.
  EXPECT_TRUE(doc->benchmarks[0].findings.empty());
  EXPECT_EQ(doc->benchmarks[0].outcome, Outcome::kError);
  // 8 ranks: nGpus 8 in one process, though the device list shows one line.
  EXPECT_EQ(doc->benchmarks[0].measurements[0].params.at("ranks"), "8");
  // The printed table keeps the bench's columns: the missing root column is -1.
  EXPECT_EQ(doc->benchmarks[0].tables[0].rows[0][4], "-1");
}

TEST(NcclTestsLog, PrefixesAreStripped) {
  std::string kind;
  EXPECT_EQ(StripLaunchPrefix("[1,0]<stdout>:# nThread 1", &kind), "# nThread 1");
  EXPECT_EQ(kind, "mpirun --tag-output");
  EXPECT_EQ(StripLaunchPrefix("[1,3]<stderr>:NCCL WARN x"), "");
  EXPECT_EQ(StripLaunchPrefix("[0]      1048576 262144", &kind), "      1048576 262144");
  EXPECT_EQ(kind, "[N]");
  EXPECT_EQ(StripLaunchPrefix("0: # Avg bus bandwidth : 1", &kind), "# Avg bus bandwidth : 1");
  EXPECT_EQ(kind, "srun --label");
  // A data row is not a label: digits followed by spaces, not ": ".
  EXPECT_EQ(StripLaunchPrefix("     1048576        262144"), "     1048576        262144");
}

TEST(NcclTestsLog, BinaryNames) {
  EXPECT_EQ(CollectiveOfBinary("./build/all_reduce_perf"), "all_reduce");
  EXPECT_EQ(CollectiveOfBinary("alltoall_perf_mpi"), "alltoall");
  EXPECT_EQ(CollectiveOfBinary("hypercube_perf"), "hypercube");
  EXPECT_EQ(CollectiveOfBinary("perf"), "");
  EXPECT_EQ(CollectiveOfBinary("nccl_perf.log"), "");
}

TEST(NcclTestsLog, SeveralTablesAndOnePlacementWithDataCheckOff) {
  std::string text =
      "# Collective test starting: all_gather_perf\n"
      "# nThread 1 nGpus 2 minBytes 8 maxBytes 8 validation: 0 graph: 0\n" +
      std::string(kHeader) +
      "           8             1     float    none      -1    10.00    0.00    0.00    N/A    "
      "9.00    0.00    0.00    N/A\n"
      "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 0\n"
      "srun ./build/broadcast_perf -b 8 -e 8 -g 2\n"
      "#       size    count   type  redop  root   time   algbw   busbw  #wrong\n"
      "           8        2  float   none     0   5.00    0.00    0.00       0\n"
      "# Avg bus bandwidth    : 0\n";
  auto doc = IngestNcclTestsText(text, "two.log");
  ASSERT_TRUE(doc.ok()) << doc.status().message();
  ASSERT_EQ(doc->benchmarks.size(), 2u);
  EXPECT_EQ(doc->benchmarks[0].unit_id, "coll.all_gather");
  EXPECT_EQ(doc->benchmarks[1].unit_id, "coll.broadcast");
  // One process driving 2 GPUs (-g 2): named as the bench names it.
  EXPECT_EQ(doc->benchmarks[0].measurements[0].params.at("gpus_per_process"), "2");
  EXPECT_EQ(doc->benchmarks[0].measurements[0].params.at("ranks"), "2");
  bool noted = false;
  for (const auto& [k, v] : doc->benchmarks[0].evidence) {
    noted |= k == "data_check" && v.find("off (-c 0)") != std::string::npos;
  }
  EXPECT_TRUE(noted);
  EXPECT_EQ(doc->benchmarks[1].measurements.size(), 4u);  // busbw, algbw, time_us, avg_busbw
}

TEST(NcclTestsLog, MalformedInputNamesFileLineAndExpectation) {
  std::string bad_row = std::string(kHeader) + "   1024  256  float  sum  -1  20.0  0.05\n";
  auto r = ParseNcclTestsLog(bad_row, "bad.log");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("bad.log:3: a table row: expected 13 columns"),
            std::string::npos)
      << r.status().message();
  auto bad_number = ParseNcclTestsLog(
      std::string(kHeader) + "1024 256 float sum -1 20.0 x 0.04 0 19.5 0.05 0.04 0\n", "n.log");
  ASSERT_FALSE(bad_number.ok());
  EXPECT_NE(bad_number.status().message().find("n.log:3: column 7 ('x'): expected a number"),
            std::string::npos)
      << bad_number.status().message();
  auto none = ParseNcclTestsLog("hello\nworld\n", "empty.log");
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("no nccl-tests table"), std::string::npos);
  auto ambiguous = IngestNcclTestsText(
      std::string(kHeader) + "1024 256 float sum -1 20.0 0.05 0.05 0 19.5 0.05 0.05 0\n",
      "amb.log");
  ASSERT_FALSE(ambiguous.ok());
  EXPECT_NE(ambiguous.status().message().find("give --collective"), std::string::npos);
}

TEST(NcclTestsLog, DetectsFromContent) {
  EXPECT_TRUE(LooksLikeNcclTests("[1,0]<stdout>:# nThread 1 nGpus 1 minBytes 8\n"));
  EXPECT_TRUE(LooksLikeNcclTests(kHeader));
  EXPECT_FALSE(LooksLikeNcclTests("iteration 10/100 | elapsed time per iteration (ms): 1\n"));
  EXPECT_FALSE(LooksLikeNcclTests("size of the array: 10 time 3\n"));
}

}  // namespace
}  // namespace ys::validate
