// nccl-tests arithmetic on known inputs. Every expected value is worked out by hand from the
// formulas of src/<coll>.cu (GetCollByteCount, GetBw) in the comments beside it.
#include "comm/collective_math.h"

#include <gtest/gtest.h>

namespace ys::comm {
namespace {

TEST(CollectiveMathTest, NamesRoundTrip) {
  for (Collective c : kAllCollectives) EXPECT_EQ(ParseCollective(CollectiveName(c)), c);
  EXPECT_FALSE(ParseCollective("allreduce"));
  EXPECT_EQ(ParseDataType("bf16"), DataType::kBfloat16);
  EXPECT_EQ(ParseDataType(" Float "), DataType::kFloat32);
  EXPECT_FALSE(ParseDataType("half"));
  EXPECT_STREQ(DataTypeName(DataType::kFloat32), "float");
  EXPECT_STREQ(DataTypeName(DataType::kBfloat16), "bfloat16");
  EXPECT_EQ(ElementSize(DataType::kFloat32), 4u);
  EXPECT_EQ(ElementSize(DataType::kBfloat16), 2u);
}

TEST(CollectiveMathTest, BusBandwidthFactors) {
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(Collective::kAllReduce, 8), 14.0 / 8);  // 2(n-1)/n
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(Collective::kAllGather, 8), 7.0 / 8);   // (n-1)/n
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(Collective::kReduceScatter, 8), 7.0 / 8);
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(Collective::kAlltoAll, 8), 7.0 / 8);
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(Collective::kBroadcast, 8), 1.0);
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(Collective::kReduce, 8), 1.0);
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(Collective::kSendRecv, 8), 1.0);
  // One rank: nothing crosses a bus, nccl-tests prints busbw 0 for these four.
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(Collective::kAllReduce, 1), 0.0);
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(Collective::kAllGather, 1), 0.0);
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(Collective::kSendRecv, 1), 1.0);
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(Collective::kAllReduce, 2), 1.0);
}

TEST(CollectiveMathTest, AllReduceEightRanks) {
  // 1 MiB of float: count 262144 on every rank, size column 1048576.
  CollectiveCounts k = CountsFor(Collective::kAllReduce, 1 << 20, DataType::kFloat32, 8);
  EXPECT_EQ(k.send_count, 262144u);
  EXPECT_EQ(k.recv_count, 262144u);
  EXPECT_EQ(k.param_count, 262144u);
  EXPECT_EQ(k.size_bytes(), 1048576u);
  // 100 us: algbw = 1048576 / 1e9 / 1e-4 = 10.48576; busbw = 10.48576 * 14/8 = 18.35008.
  Bandwidth bw = ComputeBandwidth(Collective::kAllReduce, k, 8, 100e-6);
  EXPECT_NEAR(bw.algbw_gbps, 10.48576, 1e-9);
  EXPECT_NEAR(bw.busbw_gbps, 18.35008, 1e-9);
}

TEST(CollectiveMathTest, AllGatherEightRanksUsesTheTotalArray) {
  // count 262144; chunk = 262144/8 = 32768 (already a multiple of 4 floats = 16 bytes).
  CollectiveCounts k = CountsFor(Collective::kAllGather, 1 << 20, DataType::kFloat32, 8);
  EXPECT_EQ(k.send_count, 32768u);
  EXPECT_EQ(k.recv_count, 262144u);
  EXPECT_EQ(k.param_count, 32768u);
  EXPECT_EQ(k.send_inplace_offset, 32768u);
  EXPECT_EQ(k.recv_inplace_offset, 0u);
  EXPECT_EQ(k.size_bytes(), 1048576u);
  EXPECT_DOUBLE_EQ(AlgorithmBytes(Collective::kAllGather, k, 8), 1048576.0);  // 32768*4*8
  Bandwidth bw = ComputeBandwidth(Collective::kAllGather, k, 8, 100e-6);
  EXPECT_NEAR(bw.algbw_gbps, 10.48576, 1e-9);
  EXPECT_NEAR(bw.busbw_gbps, 9.17504, 1e-9);  // x 7/8
}

TEST(CollectiveMathTest, SplitCollectivesRoundTheChunkDownTo16Bytes) {
  // 1000 B float over 3 ranks: count 250, 250/3 = 83 -> 80 (multiple of 4); size 80*3*4 = 960.
  CollectiveCounts g = CountsFor(Collective::kAllGather, 1000, DataType::kFloat32, 3);
  EXPECT_EQ(g.param_count, 80u);
  EXPECT_EQ(g.recv_count, 240u);
  EXPECT_EQ(g.size_bytes(), 960u);
  // bf16: count 500, 500/3 = 166 -> 160 (multiple of 8); size 160*3*2 = 960.
  CollectiveCounts b = CountsFor(Collective::kReduceScatter, 1000, DataType::kBfloat16, 3);
  EXPECT_EQ(b.param_count, 160u);
  EXPECT_EQ(b.send_count, 480u);
  EXPECT_EQ(b.recv_count, 160u);
  EXPECT_EQ(b.recv_inplace_offset, 160u);
  EXPECT_EQ(b.size_bytes(), 960u);
  // 8 B over 8 ranks: count 2, chunk 0: nccl-tests prints a row of size 0, count 0.
  CollectiveCounts z = CountsFor(Collective::kAlltoAll, 8, DataType::kFloat32, 8);
  EXPECT_EQ(z.param_count, 0u);
  EXPECT_EQ(z.size_bytes(), 0u);
  EXPECT_DOUBLE_EQ(ComputeBandwidth(Collective::kAlltoAll, z, 8, 1e-5).busbw_gbps, 0.0);
}

TEST(CollectiveMathTest, ReduceScatterAndAlltoAllFourRanks) {
  CollectiveCounts rs = CountsFor(Collective::kReduceScatter, 1 << 20, DataType::kFloat32, 4);
  EXPECT_EQ(rs.send_count, 262144u);
  EXPECT_EQ(rs.recv_count, 65536u);
  EXPECT_EQ(rs.param_count, 65536u);
  // 1 ms: algbw = 65536*4*4 / 1e9 / 1e-3 = 1.048576; busbw x 3/4 = 0.786432.
  Bandwidth bw = ComputeBandwidth(Collective::kReduceScatter, rs, 4, 1e-3);
  EXPECT_NEAR(bw.algbw_gbps, 1.048576, 1e-12);
  EXPECT_NEAR(bw.busbw_gbps, 0.786432, 1e-12);
  CollectiveCounts a2a = CountsFor(Collective::kAlltoAll, 1 << 20, DataType::kFloat32, 4);
  EXPECT_EQ(a2a.param_count, 65536u);
  EXPECT_EQ(a2a.send_count, 262144u);
  EXPECT_EQ(a2a.recv_count, 262144u);
  EXPECT_NEAR(ComputeBandwidth(Collective::kAlltoAll, a2a, 4, 1e-3).busbw_gbps, 0.786432, 1e-12);
}

TEST(CollectiveMathTest, RootedAndPointToPointUseThePerRankBuffer) {
  for (Collective c : {Collective::kBroadcast, Collective::kReduce, Collective::kSendRecv}) {
    CollectiveCounts k = CountsFor(c, 4096, DataType::kBfloat16, 8);
    EXPECT_EQ(k.param_count, 2048u);
    EXPECT_EQ(k.size_bytes(), 4096u);
    // 2 us: 4096 / 1e9 / 2e-6 = 2.048 GB/s, factor 1.
    Bandwidth bw = ComputeBandwidth(c, k, 8, 2e-6);
    EXPECT_NEAR(bw.algbw_gbps, 2.048, 1e-12);
    EXPECT_NEAR(bw.busbw_gbps, 2.048, 1e-12);
  }
}

TEST(CollectiveMathTest, OneRank) {
  // nccl-tests with one rank is valid: algbw is the buffer over time, busbw 0 for all_reduce.
  CollectiveCounts k = CountsFor(Collective::kAllReduce, 8, DataType::kFloat32, 1);
  EXPECT_EQ(k.param_count, 2u);
  Bandwidth bw = ComputeBandwidth(Collective::kAllReduce, k, 1, 1e-6);
  EXPECT_NEAR(bw.algbw_gbps, 0.008, 1e-15);
  EXPECT_DOUBLE_EQ(bw.busbw_gbps, 0.0);
  CollectiveCounts g = CountsFor(Collective::kAllGather, 1000, DataType::kFloat32, 1);
  EXPECT_EQ(g.param_count, 248u);  // 250 rounded down to a multiple of 4
  EXPECT_EQ(g.size_bytes(), 992u);
}

TEST(CollectiveMathTest, ColumnsAsNcclTestsPrintsThem) {
  EXPECT_STREQ(RedOpColumn(Collective::kAllReduce), "sum");
  EXPECT_STREQ(RedOpColumn(Collective::kSendRecv), "sum");
  EXPECT_STREQ(RedOpColumn(Collective::kAllGather), "none");
  EXPECT_STREQ(RedOpColumn(Collective::kBroadcast), "none");
  EXPECT_EQ(RootColumn(Collective::kAllReduce, 0), -1);
  EXPECT_EQ(RootColumn(Collective::kReduce, 0), 0);
  EXPECT_EQ(RootColumn(Collective::kBroadcast, 3), 3);
}

TEST(CollectiveMathTest, FormatNcclFloat) {
  EXPECT_EQ(FormatNcclFloat(10.48576, 6), " 10.49");
  EXPECT_EQ(FormatNcclFloat(0, 6), "  0.00");
  EXPECT_EQ(FormatNcclFloat(12.345, 7), "  12.35");
  EXPECT_EQ(FormatNcclFloat(1234.5678, 6), "1234.6");
  EXPECT_EQ(FormatNcclFloat(123456.789, 7), " 123457");
  EXPECT_EQ(FormatNcclFloat(1234567.0, 6), " 1e+06");
  EXPECT_EQ(FormatNcclFloat(12345678.0, 7), "1.2e+07");
}

}  // namespace
}  // namespace ys::comm
