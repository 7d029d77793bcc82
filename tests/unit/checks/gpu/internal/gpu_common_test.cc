#include "checks/gpu/internal/gpu_common.h"

#include <gtest/gtest.h>

namespace ys::checks {
namespace {

TEST(GpuCommonTest, CanonicalBdf) {
  EXPECT_EQ(CanonicalBdf("00000000:1B:00.0"), "0000:1b:00.0");
  EXPECT_EQ(CanonicalBdf("0000:1b:00.0"), "0000:1b:00.0");
  EXPECT_EQ(CanonicalBdf("0000:1b:00"), "0000:1b:00.0");
  EXPECT_EQ(CanonicalBdf("00000009:01:00.1"), "0009:01:00.1");
  for (const char* bad : {"", "garbage", "1b:00.0", "0000:1b:00.9", "0000:1b:20.0", "0000:1bb:00.0",
                          "000100000:1b:00.0", "0000:1b:00.", "0000::00.0", "0000:1b:00.0.0"}) {
    EXPECT_FALSE(CanonicalBdf(bad).has_value()) << bad;
  }
}

TEST(GpuCommonTest, UnansweredGroupsGpusByReason) {
  gpu::GpuDevice a, b, c;
  a.index = 0;
  b.index = 1;
  c.index = 2;
  Unanswered un;
  EXPECT_TRUE(un.empty());
  gpu::Field<int> missing = gpu::Field<int>::Missing("Not Supported");
  gpu::Field<int> other = gpu::Field<int>::Missing("Unknown Error");
  gpu::Field<int> present = gpu::Field<int>::Of(3);
  EXPECT_EQ(un.Get(a, missing, "x"), nullptr);
  EXPECT_EQ(un.Get(a, missing, "x"), nullptr);  // same GPU twice (per-link answers): named once
  EXPECT_EQ(un.Get(b, missing, "x"), nullptr);
  EXPECT_EQ(un.Get(c, other, "x"), nullptr);
  ASSERT_NE(un.Get(c, present, "y"), nullptr);
  EXPECT_EQ(un.First(), "x: Not Supported; x: Unknown Error");
  CheckResult r;
  un.NoteInto(r);
  ASSERT_EQ(r.evidence.size(), 2u);
  EXPECT_EQ(r.evidence[0],
            (std::pair<std::string, std::string>("unavailable: x", "gpu0, gpu1: Not Supported")));
  EXPECT_EQ(r.evidence[1].second, "gpu2: Unknown Error");
}

}  // namespace
}  // namespace ys::checks
