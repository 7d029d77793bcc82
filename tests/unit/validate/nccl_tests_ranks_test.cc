// The rank count of an nccl-tests table, on literal strings: each source the log may hold (device
// list, shortened device list, NCCL's nranks, the command line, busbw/algbw, the nThread line), in
// that order, and the source named.
#include "validate/nccl_tests_ranks.h"

#include <gtest/gtest.h>

namespace ys::validate {
namespace {

// One all_reduce row at 1 GiB with the given algbw and busbw.
std::string RanksAllReduceRow(const std::string& algbw, const std::string& busbw) {
  return "#       size         count      type   redop    root     time   algbw   busbw #wrong     "
         "time   algbw   busbw #wrong\n"
         "  1073741824     268435456     float     sum      -1   1000.0  " +
         algbw + "  " + busbw + "      0   1000.0  " + algbw + "  " + busbw + "      0\n";
}

NcclTestsRankCount RanksCount(const std::string& text, std::string_view collective) {
  auto log = ParseNcclTestsLog(text, "ranks.log");
  EXPECT_TRUE(log.ok()) << log.status().message();
  if (!log.ok()) return {};
  return ResolveNcclTestsRanks(*log, log->tables.at(0), collective);
}

constexpr const char* kMpiThreads =
    "# nThread 1 nGpus 1 minBytes 8 maxBytes 1073741824 step: 2(factor) validation: 1\n";

TEST(NcclTestsRanks, ShortenedDeviceListCountsToItsLastRank) {
  std::string text = std::string(kMpiThreads) +
                     "#  Rank  0 Group  0 Pid 1 on a device  0 [0x01] NVIDIA GB300\n"
                     "#  Rank  1 Group  0 Pid 2 on a device  1 [0x02] NVIDIA GB300\n"
                     "...\n"
                     "#  Rank 62 Group  0 Pid 3 on z device  2 [0x03] NVIDIA GB300\n"
                     "#  Rank 63 Group  0 Pid 4 on z device  3 [0x04] NVIDIA GB300\n" +
                     RanksAllReduceRow("455.88", "897.52");
  NcclTestsRankCount c = RanksCount(text, "all_reduce");
  EXPECT_EQ(c.n, 64);
  EXPECT_NE(c.source.find("shortened"), std::string::npos) << c.source;
}

TEST(NcclTestsRanks, NcclNranksThenTheLauncherCommandLine) {
  std::string nranks =
      std::string(kMpiThreads) +
      "h:1:1 [0] NCCL INFO ncclCommInitRank comm 0x1 rank 0 nranks 24 cudaDev 0\n" +
      RanksAllReduceRow("100.00", "191.67");
  EXPECT_EQ(RanksCount(nranks, "all_reduce").n, 24);
  std::string mpirun = "mpirun -np 16 -N 8 ./build/all_reduce_perf -b 8 -e 1G -f 2 -g 1\n" +
                       std::string(kMpiThreads) + RanksAllReduceRow("100.00", "187.50");
  NcclTestsRankCount c = RanksCount(mpirun, "all_reduce");
  EXPECT_EQ(c.n, 16);
  EXPECT_NE(c.source.find("16 processes"), std::string::npos) << c.source;
  // Without a launcher, -g and -t are one process's GPUs (also written -g8).
  EXPECT_EQ(RanksCount("./build/sendrecv_perf -b 8 -e 1G -t 2 -g4\n" +
                           RanksAllReduceRow("100.00", "100.00"),
                       "sendrecv")
                .n,
            8);
}

TEST(NcclTestsRanks, TheColumnsGiveTheCountWhenNothingElseDoes) {
  // An MPI run (nThread 1 nGpus 1 per process) without a device list: not 1 rank.
  std::string text = "srun --mpi=pmix all_reduce_perf_mpi -b 1G -e 1G\n" +
                     std::string(kMpiThreads) + RanksAllReduceRow("357.16", "708.75");
  NcclTestsRankCount c = RanksCount(text, "all_reduce");
  EXPECT_EQ(c.n, 128);
  EXPECT_NE(c.source.find("busbw/algbw"), std::string::npos) << c.source;
  // sendrecv's factor is 1: its columns say nothing of n.
  EXPECT_EQ(RanksCount(text, "sendrecv").n, 0);
  // A ratio no whole n gives is not a count.
  EXPECT_EQ(RanksCount("srun x_perf\n" + RanksAllReduceRow("100.00", "130.00"), "all_reduce").n, 0);
}

TEST(NcclTestsRanks, TheNThreadLineIsOneProcessOnlyWithoutMpi) {
  std::string one = "# nThread 1 nGpus 4 minBytes 8 maxBytes 8 validation: 1\n" +
                    RanksAllReduceRow("100.00", "150.00");
  NcclTestsRankCount c = RanksCount(one, "sendrecv");
  EXPECT_EQ(c.n, 4);
  EXPECT_NE(c.source.find("nThread"), std::string::npos) << c.source;
  // A log cut from a Slurm job (no launcher line in it): the columns outrank "nGpus 1".
  std::string cut = "# nThread 1 nGpus 1 minBytes 8 maxBytes 8 validation: 1\n" +
                    RanksAllReduceRow("776.74", "679.65");
  EXPECT_EQ(RanksCount(cut, "alltoall").n, 8);
}

TEST(NcclTestsRanks, ShapesAndFactors) {
  const NcclTestsShape* ar = FindNcclTestsShape("all_reduce");
  ASSERT_NE(ar, nullptr);
  EXPECT_DOUBLE_EQ(ar->factor(8), 1.75);
  EXPECT_DOUBLE_EQ(FindNcclTestsShape("alltoall")->factor(8), 0.875);
  EXPECT_DOUBLE_EQ(FindNcclTestsShape("broadcast")->factor(8), 1);
  EXPECT_FALSE(FindNcclTestsShape("sendrecv")->factor_depends_on_ranks);
  EXPECT_EQ(FindNcclTestsShape("all_reduce_perf"), nullptr);
}

}  // namespace
}  // namespace ys::validate
