// The data check: inputs and expected outputs agree with an independent simulation of each
// collective for 1..8 ranks, both placements, float and bf16; one corrupted element is one wrong.
// Then the MPI backend for real (a single-process MPI job).
#include "comm/collective_data.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "comm/collectives.h"

namespace ys::comm {
namespace {

using Buffers = std::vector<std::vector<char>>;

// What rank `r` holds after `op`, computed from the inputs alone (not from ExpectedValue).
std::vector<char> Simulate(const CollectiveOp& op, const Buffers& in, int r, bool in_place) {
  const size_t chunk = op.counts.param_count;
  std::vector<char> out(op.counts.recv_bytes());
  auto at = [&](int rank, size_t i) { return LoadElement(op.dtype, in[rank].data(), i); };
  auto sum = [&](size_t i) {
    float s = 0;
    for (int q = 0; q < op.nranks; ++q) s += at(q, i);
    return s;
  };
  for (size_t i = 0; i < op.counts.recv_count; ++i) {
    float v = 0;
    switch (op.collective) {
      case Collective::kAllReduce:
        v = sum(i);
        break;
      case Collective::kReduce:
        v = r == op.root ? sum(i) : (in_place ? at(r, i) : 0.0f);
        break;
      case Collective::kReduceScatter:
        v = sum(r * chunk + i);
        break;
      case Collective::kAllGather:
        v = at(static_cast<int>(i / chunk), i % chunk);
        break;
      case Collective::kAlltoAll:
        v = at(static_cast<int>(i / chunk), r * chunk + i % chunk);
        break;
      case Collective::kBroadcast:
        v = at(op.root, i);
        break;
      case Collective::kSendRecv:
        v = at((r - 1 + op.nranks) % op.nranks, i);
        break;
    }
    StoreElement(op.dtype, out.data(), i, v);
  }
  return out;
}

TEST(CollectiveDataTest, ExpectedMatchesASimulationOfEveryCollective) {
  for (Collective c : kAllCollectives) {
    for (DataType t : {DataType::kFloat32, DataType::kBfloat16}) {
      for (int n : {1, 2, 3, 4, 8}) {
        for (bool in_place : {false, true}) {
          CollectiveOp op = MakeCollectiveOp(c, 2000, t, n, n > 2 ? 2 : 0);
          Buffers in(n, std::vector<char>(op.counts.send_bytes()));
          for (int r = 0; r < n; ++r) WriteInput(op, r, 7, in[r].data());
          for (int r = 0; r < n; ++r) {
            auto out = Simulate(op, in, r, in_place);
            EXPECT_EQ(CountWrong(op, r, 7, in_place, out.data()), 0)
                << CollectiveName(c) << " " << DataTypeName(t) << " n=" << n << " rank " << r
                << (in_place ? " in place" : "");
            if (op.counts.recv_count > 3) {
              StoreElement(t, out.data(), 3, LoadElement(t, out.data(), 3) + 1.0f);
              EXPECT_EQ(CountWrong(op, r, 7, in_place, out.data()), 1) << CollectiveName(c);
            }
          }
        }
      }
    }
  }
}

TEST(CollectiveDataTest, AMisroutedChunkIsCaught) {
  // all_gather over 4 ranks with ranks 1 and 2 swapped in rank 0's output.
  CollectiveOp op = MakeCollectiveOp(Collective::kAllGather, 4096, DataType::kFloat32, 4);
  Buffers in(4, std::vector<char>(op.counts.send_bytes()));
  for (int r = 0; r < 4; ++r) WriteInput(op, r, 3, in[r].data());
  std::vector<char> out;
  for (int r : {0, 2, 1, 3}) out.insert(out.end(), in[r].begin(), in[r].end());
  EXPECT_GT(CountWrong(op, 0, 3, false, out.data()), static_cast<int64_t>(op.counts.param_count));
  // And stale data from an earlier round (another seed) is caught too.
  CollectiveOp ar = MakeCollectiveOp(Collective::kAllReduce, 4096, DataType::kFloat32, 1);
  std::vector<char> old(ar.counts.recv_bytes());
  WriteInput(ar, 0, 3, old.data());
  EXPECT_GT(CountWrong(ar, 0, 5, false, old.data()), 0);
}

TEST(CollectiveDataTest, ReductionInputsStayExactInBf16) {
  CollectiveOp op = MakeCollectiveOp(Collective::kAllReduce, 4096, DataType::kBfloat16, 1000);
  for (size_t i = 0; i < op.counts.send_count; ++i) {
    float e = ExpectedValue(op, 0, i, 9, false);
    EXPECT_LE(std::abs(e), 256.0f);
    EXPECT_EQ(Bfloat16ToFloat(FloatToBfloat16(e)), e);
  }
}

TEST(CollectiveDataTest, Bfloat16Conversion) {
  EXPECT_EQ(FloatToBfloat16(1.0f), 0x3F80);
  EXPECT_EQ(FloatToBfloat16(-127.0f), 0xC2FE);
  EXPECT_EQ(FloatToBfloat16(1.00390625f), 0x3F80);  // 1 + 2^-8: a tie, to even
  EXPECT_EQ(FloatToBfloat16(1.01171875f), 0x3F82);  // 1 + 3*2^-8: a tie, to even
  EXPECT_EQ(Bfloat16ToFloat(0x4380), 256.0f);
}

class MpiCollectivesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto b = OpenMpiCollectives(control_);
    ASSERT_TRUE(b.ok()) << b.status().ToString();
    backend_ = std::move(*b);
  }
  SingleProcessCommunicator control_;
  std::unique_ptr<CollectiveBackend> backend_;
};

TEST_F(MpiCollectivesTest, EveryCollectiveIsCorrectInBothPlacements) {
  EXPECT_STREQ(backend_->name(), "mpi");
  EXPECT_EQ(backend_->size(), 1);
  EXPECT_NE(backend_->library().find("MPI"), std::string::npos) << backend_->library();
  ASSERT_TRUE(backend_->Reserve(1 << 16).ok());
  for (Collective c : kAllCollectives) {
    for (DataType t : {DataType::kFloat32, DataType::kBfloat16}) {
      for (bool in_place : {false, true}) {
        CollectiveOp op = MakeCollectiveOp(c, 4096, t, 1);
        ASSERT_TRUE(PrepareData(*backend_, op, in_place, 11).ok());
        Status s = backend_->Launch(op, in_place, 0);
        ASSERT_TRUE(s.ok()) << s.ToString();
        ASSERT_TRUE(backend_->Synchronize().ok());
        auto wrong = CheckData(*backend_, op, in_place, 11);
        ASSERT_TRUE(wrong.ok());
        EXPECT_EQ(*wrong, 0) << CollectiveName(c) << " " << DataTypeName(t)
                             << (in_place ? " in place" : "");
      }
    }
  }
}

TEST_F(MpiCollectivesTest, CorruptNextCheckFlipsExactlyOneElementOnce) {
  ASSERT_TRUE(backend_->Reserve(4096).ok());
  CollectiveOp op = MakeCollectiveOp(Collective::kAllReduce, 4096, DataType::kFloat32, 1);
  backend_->CorruptNextCheck(17);
  for (int64_t want : {1, 0}) {
    ASSERT_TRUE(PrepareData(*backend_, op, false, 5).ok());
    ASSERT_TRUE(backend_->Launch(op, false, 0).ok());
    auto wrong = CheckData(*backend_, op, false, 5);
    ASSERT_TRUE(wrong.ok());
    EXPECT_EQ(*wrong, want);
  }
}

TEST_F(MpiCollectivesTest, LaunchBeyondTheBuffersIsAnErrorNotACrash) {
  ASSERT_TRUE(backend_->Reserve(1024).ok());
  CollectiveOp op = MakeCollectiveOp(Collective::kAllReduce, 4096, DataType::kFloat32, 1);
  EXPECT_EQ(backend_->Launch(op, false, 0).code(), StatusCode::kInternal);
}

TEST_F(MpiCollectivesTest, SplitFormsSubGroups) {
  auto member = backend_->Split(0, 0);
  ASSERT_TRUE(member.ok());
  ASSERT_NE(*member, nullptr);
  EXPECT_EQ((*member)->size(), 1);
  auto outsider = backend_->Split(-1, 0);
  ASSERT_TRUE(outsider.ok());
  EXPECT_EQ(*outsider, nullptr);
}

TEST(NcclCollectivesTest, AbsentLibrariesAreNotFoundWithTheLoadersReason) {
  Status s = NcclAvailable();
  if (s.ok()) GTEST_SKIP() << "NCCL and a GPU are present";
  EXPECT_EQ(s.code(), StatusCode::kNotFound) << s.ToString();
  EXPECT_TRUE(s.message().find("libcuda.so.1") != std::string::npos ||
              s.message().find("libnccl.so.2") != std::string::npos)
      << s.message();
  SingleProcessCommunicator control;
  auto b = OpenNcclCollectives(control, 0);
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace ys::comm
