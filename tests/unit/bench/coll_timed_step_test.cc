// One timed step of the collective engine (bench/coll/internal/timed_step.h): the rotation of
// buffer offsets, and a step on a rank outside the measured group (no backend), whose slot the
// gathered samples keep with no time and no wrong element. The timed path over several ranks runs
// against the fake GPUs (coll_one_process_test.cc).
#include <gtest/gtest.h>

#include <cmath>

#include "bench/coll/internal/timed_step.h"

namespace ys::bench::coll {
namespace {

TEST(CollTimedStep, RotationStepsFitTheMessageInTheBufferAtLeastOnce) {
  comm::CollectiveOp op =
      comm::MakeCollectiveOp(comm::Collective::kAllReduce, 1024, comm::DataType::kFloat32, 2);
  ASSERT_GT(op.counts.size_bytes(), 0U);
  EXPECT_EQ(RotationSteps(op, 8 * op.counts.size_bytes()), 8U);
  EXPECT_EQ(RotationSteps(op, 8 * op.counts.size_bytes() + 1), 8U);
  EXPECT_EQ(RotationSteps(op, op.counts.size_bytes() / 2), 1U);  // the message alone
}

TEST(CollTimedStep, RankOutsideTheGroupKeepsAnEmptySlot) {
  comm::SingleProcessCommunicator world;
  comm::CollectiveOp op =
      comm::MakeCollectiveOp(comm::Collective::kAllReduce, 1024, comm::DataType::kFloat32, 2);
  auto step = MeasureStep(world, nullptr, op, /*in_place=*/false, /*iters=*/3, 1 << 20, 7);
  ASSERT_TRUE(step.ok()) << step.status().message();
  ASSERT_EQ(step->time_us.size(), 1U);
  EXPECT_TRUE(std::isnan(step->time_us[0]));
  ASSERT_EQ(step->wrong.size(), 1U);
  EXPECT_EQ(step->wrong[0], 0);
}

}  // namespace
}  // namespace ys::bench::coll
