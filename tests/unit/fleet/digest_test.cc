// The temporary file of digests (DigestSpill) gives back what was written, a digest without
// figures included (its empty vector's null data() was once handed to memcpy).
#include "fleet/digest.h"

#include <gtest/gtest.h>

namespace ys::fleet {
namespace {

TEST(DigestSpillTest, DigestsWithAndWithoutFiguresComeBack) {
  auto spill = DigestSpill::Create();
  ASSERT_TRUE(spill.ok()) << spill.status().message();
  DocumentDigest empty;
  empty.source = "empty.json";
  empty.incomplete = true;
  empty.incomplete_reason = "no benchmarks";
  DocumentDigest full;
  full.source = "full.json";
  full.labels = {"node-1", "gpu0"};
  full.figures.push_back({.key = 7, .node = 0, .entity = 1, .value = 740.5, .spread = 0.01f});
  full.lost = {"node-2"};
  ASSERT_TRUE((*spill)->Write(empty).ok());
  ASSERT_TRUE((*spill)->Write(full).ok());
  ASSERT_TRUE((*spill)->Rewind().ok());
  auto next = [&](DocumentDigest* d) {
    Result<bool> read = (*spill)->Read(d);
    EXPECT_TRUE(read.ok()) << read.status().message();
    return read.ok() && *read;
  };

  DocumentDigest got;
  ASSERT_TRUE(next(&got));
  EXPECT_EQ(got.source, "empty.json");
  EXPECT_TRUE(got.figures.empty());
  EXPECT_TRUE(got.incomplete);
  EXPECT_EQ(got.incomplete_reason, "no benchmarks");
  ASSERT_TRUE(next(&got));
  EXPECT_EQ(got.source, "full.json");
  EXPECT_EQ(got.labels, full.labels);
  ASSERT_EQ(got.figures.size(), 1u);
  EXPECT_EQ(got.figures[0].key, 7u);
  EXPECT_EQ(got.figures[0].entity, 1u);
  EXPECT_EQ(got.figures[0].value, 740.5);
  EXPECT_EQ(got.figures[0].spread, 0.01f);
  EXPECT_EQ(got.lost, full.lost);
  EXPECT_FALSE(next(&got));  // the end
}

}  // namespace
}  // namespace ys::fleet
