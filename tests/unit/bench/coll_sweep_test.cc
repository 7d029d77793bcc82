// The collective engine: one rank on one device skipped with the reason, the nccl-tests table
// format, the per-rank and per-pair findings, the pairwise schedule and the skip and error paths.
// The sweep over several ranks, its arithmetic and the fault-injection proof that one wrong
// element fails the unit with YS-BENCH-001 run against the fake GPUs (coll_one_process_test.cc).
#include <gtest/gtest.h>

#include <set>
#include <sstream>

#include "bench/coll/internal/sweep.h"
#include "report/console_reporter.h"

namespace ys::bench::coll {
namespace {

using comm::Collective;

class CollSweepTest : public ::testing::Test {
 protected:
  BenchmarkResult Run(Collective c, const SweepHooks& hooks = {}) {
    BenchContext ctx(host_, control_, options_);
    BenchmarkResult r = RunCollectiveSweep(ctx, c, hooks);
    r.Seal(std::string("coll.") + comm::CollectiveName(c));
    return r;
  }
  void SetUp() override {
    options_.sizes = *SizeSweep::Parse("1K:4K:x2");
    options_.iters = 2;
    options_.warmup = 1;
    options_.backend = Backend::kCpu;
  }
  host::Host host_ = host::Host::Live();
  comm::SingleProcessCommunicator control_;
  BenchOptions options_;
};

TEST_F(CollSweepTest, OneRankOnOneDeviceIsSkippedWithTheReason) {
  // Nothing moves between devices: no figure (all_reduce would print 0 GB/s, broadcast and
  // reduce a memcpy's speed), no table, only the reason. The engine itself is tested over
  // several ranks with the fake GPUs (coll_one_process_test.cc) and under mpirun (integration).
  options_.dtypes = {"float", "bf16"};
  for (Collective c : comm::kAllCollectives) {
    BenchmarkResult r = Run(c);
    EXPECT_EQ(r.outcome, Outcome::kSkip) << comm::CollectiveName(c);
    EXPECT_EQ(r.summary,
              "one rank, one device: nothing to exchange; run under mpirun/srun or on a node with "
              "several GPUs");
    EXPECT_TRUE(r.measurements.empty()) << comm::CollectiveName(c);
    EXPECT_TRUE(r.tables.empty()) << comm::CollectiveName(c);
  }
  options_.pairwise = true;
  EXPECT_EQ(Run(Collective::kSendRecv).outcome, Outcome::kSkip);
}

TEST_F(CollSweepTest, BadDtypeIsAnErrorNamingTheOption) {
  options_.dtypes = {"half"};
  BenchmarkResult r = Run(Collective::kAllReduce);
  EXPECT_EQ(r.outcome, Outcome::kError);
  EXPECT_NE(r.summary.find("--dtype \"half\""), std::string::npos) << r.summary;
}

TEST_F(CollSweepTest, GpuBackendSkipsWithTheReasonWhenNcclIsAbsent) {
  if (comm::NcclAvailable().ok()) GTEST_SKIP() << "NCCL and a GPU are present";
  options_.backend = Backend::kGpu;
  BenchmarkResult r = Run(Collective::kAllReduce);
  EXPECT_EQ(r.outcome, Outcome::kSkip);
  EXPECT_TRUE(r.summary.find("libcuda.so.1") != std::string::npos ||
              r.summary.find("libnccl.so.2") != std::string::npos)
      << r.summary;
  // auto falls back to MPI, which on one rank has nothing to exchange either.
  options_.backend = Backend::kAuto;
  BenchmarkResult a = Run(Collective::kAllReduce);
  EXPECT_EQ(a.outcome, Outcome::kSkip);
  EXPECT_EQ(a.summary, comm::kNothingToExchange);
}

SweepRow Row(Collective c, uint64_t size, int n, std::vector<double> oop_us,
             std::vector<double> ip_us) {
  SweepRow row{.op = comm::MakeCollectiveOp(c, size, comm::DataType::kFloat32, n)};
  row.out_of_place.rank_time_us = std::move(oop_us);
  row.out_of_place.rank_wrong.assign(n, 0);
  row.in_place.rank_time_us = std::move(ip_us);
  row.in_place.rank_wrong.assign(n, 0);
  Summarise(row.op, row.out_of_place);
  Summarise(row.op, row.in_place);
  return row;
}

TEST(CollSweepTableTest, NcclTestsColumnsAndFooter) {
  // 4 ranks, all_reduce (factor 2*3/4 = 1.5). 1 MiB out of place: 100 us on every rank ->
  // 1048576 / 1e9 / 1e-4 = 10.48576 GB/s algbw, 15.72864 busbw; in place the ranks' 150, 250,
  // 200, 200 us average to 200 us -> 5.24288 / 7.86432; one rank saw 3 wrong elements.
  std::vector<SweepRow> rows = {
      Row(Collective::kAllReduce, 8, 4, {10, 10, 10, 10}, {10, 10, 10, 10}),
      Row(Collective::kAllReduce, 1 << 20, 4, {100, 100, 100, 100}, {150, 250, 200, 200})};
  rows[1].in_place.rank_wrong = {0, 3, 0, 0};
  Summarise(rows[1].op, rows[1].in_place);
  ResultTable t = MakeSweepTable("coll.all_reduce: test", rows);
  std::ostringstream out;
  report::WriteTable(t, out);
  EXPECT_EQ(
      out.str(),
      "# coll.all_reduce: test\n"
      "#    size  count  type redop root   time algbw busbw #wrong   time algbw busbw #wrong\n"
      "        8      2 float   sum   -1  10.00  0.00  0.00      0  10.00  0.00  0.00      0\n"
      "  1048576 262144 float   sum   -1 100.00 10.49 15.73      0 200.00  5.24  7.86      3\n"
      "# Out of bounds values : 1 FAILED\n"
      "# Avg bus bandwidth    : 5.89884\n");
  // 8 B: 8 / 1e9 / 1e-5 = 0.0008 GB/s algbw, x 1.5 = 0.0012 busbw, both placements.
  // (0.0012 + 0.0012 + 15.72864 + 7.86432) / 4 = 5.89884
  EXPECT_NEAR(AverageBusBandwidth(rows), 5.89884, 1e-9);
}

TEST(CollSweepFindingsTest, ASlowRankIsFlaggedOnlyWhenItIsSlowMostOfTheTime) {
  std::vector<std::string> hosts = {"a", "b", "c", "d"};
  std::vector<SweepRow> slow = {
      Row(Collective::kAllReduce, 1024, 4, {10, 10, 10, 30}, {10, 11, 10, 25}),
      Row(Collective::kAllReduce, 2048, 4, {20, 20, 21, 50}, {20, 20, 20, 20})};
  auto f = SlowRankFindings("coll.all_reduce", slow, hosts);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].code, "YS-BENCH-002");
  EXPECT_EQ(f[0].entity, "rank3 (d)");
  std::vector<SweepRow> sporadic = {
      Row(Collective::kAllReduce, 1024, 4, {10, 10, 10, 30}, {10, 10, 10, 10}),
      Row(Collective::kAllReduce, 2048, 4, {20, 20, 20, 20}, {20, 20, 20, 20})};
  EXPECT_TRUE(SlowRankFindings("coll.all_reduce", sporadic, hosts).empty());
  std::vector<SweepRow> two = {Row(Collective::kAllReduce, 1024, 2, {10, 30}, {10, 30})};
  EXPECT_TRUE(SlowRankFindings("coll.all_reduce", two, hosts).empty());  // no median to speak of
}

TEST(CollSweepFindingsTest, WrongDataNamesTheRank) {
  std::vector<SweepRow> rows = {Row(Collective::kAllGather, 4096, 4, {1, 1, 1, 1}, {1, 1, 1, 1})};
  rows[0].out_of_place.rank_wrong = {0, 0, 2, 0};
  auto f = WrongDataFindings("coll.all_gather", rows, {"a", "b", "c", "d"}, "mpi");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].code, "YS-BENCH-001");
  EXPECT_EQ(f[0].entity, "rank2 (c)");
}

TEST(CollPairwiseTest, RoundsCoverEveryPairOnceWithDisjointPairs) {
  for (int n : {2, 3, 4, 5, 8, 16}) {
    std::set<std::pair<int, int>> seen;
    auto rounds = PairRounds(n);
    EXPECT_EQ(rounds.size(), static_cast<size_t>(n % 2 ? n : n - 1)) << n;
    for (const auto& round : rounds) {
      std::set<int> busy;
      for (auto [a, b] : round) {
        EXPECT_LT(a, b);
        EXPECT_TRUE(busy.insert(a).second && busy.insert(b).second)
            << "rank twice in a round, n=" << n;
        EXPECT_TRUE(seen.insert({a, b}).second) << "pair twice, n=" << n;
      }
    }
    EXPECT_EQ(seen.size(), static_cast<size_t>(n * (n - 1) / 2)) << n;
  }
  // Large jobs: ring neighbours only, in 2 rounds (even n) or 3 (odd n).
  for (int n : {20, 17}) {
    size_t pairs = 0;
    auto rounds = PairRounds(n);
    for (const auto& round : rounds) pairs += round.size();
    EXPECT_EQ(pairs, static_cast<size_t>(n));
    EXPECT_EQ(rounds.size(), n % 2 ? 3u : 2u);
  }
  EXPECT_TRUE(PairRounds(1).empty());
}

TEST(CollPairwiseTest, APairFarBelowTheMedianIsFlagged) {
  comm::CollectiveOp op =
      comm::MakeCollectiveOp(Collective::kSendRecv, 1 << 20, comm::DataType::kFloat32, 2);
  std::vector<PairResult> pairs;
  for (auto [a, b, us] : {std::tuple{0, 1, 100.0}, {2, 3, 105.0}, {0, 2, 98.0}, {1, 3, 400.0}}) {
    PairResult p{.a = a, .b = b};
    p.result.rank_time_us = {us, us};
    p.result.rank_wrong = {0, 0};
    Summarise(op, p.result);
    pairs.push_back(p);
  }
  auto f = SlowPairFindings("coll.sendrecv", pairs, {"n0", "n1", "n2", "n3"});
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].code, "YS-BENCH-003");
  EXPECT_EQ(f[0].entity, "rank1 (n1) - rank3 (n3)");
  pairs.pop_back();
  pairs.pop_back();
  EXPECT_TRUE(SlowPairFindings("coll.sendrecv", pairs, {}).empty());  // two pairs: no median
}

}  // namespace
}  // namespace ys::bench::coll
