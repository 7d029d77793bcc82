#include "host/numa_maps.h"

#include <gtest/gtest.h>

#include "testing/check_test_util.h"

namespace ys::host {
// A namespace of the file's own: its file-local names stay its own in a unity batch.
namespace numa_maps_test {
namespace {

// Lines from host-sample/proc/self/numa_maps.head and numa_maps(5).
constexpr const char* kSample =
    "55663c444000 default file=/usr/bin/head mapped=2 N0=2 kernelpagesize_kB=4\n"
    "55663c44f000 default file=/usr/bin/head anon=1 dirty=1 active=0 N0=1 kernelpagesize_kB=4\n"
    "556651789000 default heap anon=4 dirty=4 active=0 N0=4 kernelpagesize_kB=4\n"
    "7f3df231e000 default file=/usr/lib/locale/C.utf8/LC_CTYPE mapped=32 mapmax=10 N0=32 "
    "kernelpagesize_kB=4\n"
    "7f0000000000 bind:1 anon=300 dirty=300 N0=100 N1=200 kernelpagesize_kB=4\n"
    "7f1000000000 interleave:0-1 anon=20 N0=10 N1=10 kernelpagesize_kB=4\n"
    "7f2000000000 default file=/anon_hugepage\\040(deleted) huge anon=3 dirty=3 N1=3 "
    "kernelpagesize_kB=2048\n"
    "7f3000000000 default file=/dev/shm/torch_1_2 dirty=8 mapped=8 N1=8 kernelpagesize_kB=4\n"
    "7f4000000000 prefer (many):0-1 anon=2 N0=2 kernelpagesize_kB=4\n"
    "7f5000000000 default file=/dev/nvidia0\n"
    "7ffc1e9f1000 default stack anon=33 dirty=33 active=0 N0=33 kernelpagesize_kB=4\n";

TEST(NumaMapsTest, ParsesSampleLines) {
  auto e = ParseNumaMaps(kSample);
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  ASSERT_EQ(e->size(), 11u);
  EXPECT_EQ((*e)[0].start, 0x55663c444000u);
  EXPECT_EQ((*e)[0].file, "/usr/bin/head");
  EXPECT_FALSE((*e)[0].IsProcessData());
  EXPECT_TRUE((*e)[2].heap);
  EXPECT_TRUE((*e)[2].IsProcessData());
  EXPECT_EQ((*e)[2].anon, 4u);
  EXPECT_EQ((*e)[4].policy, "bind:1");
  EXPECT_EQ((*e)[4].node_pages.at(1), 200u);
  EXPECT_EQ((*e)[4].TotalPages(), 300u);
  EXPECT_TRUE((*e)[5].IsInterleaved());
  EXPECT_TRUE((*e)[6].huge);
  EXPECT_EQ((*e)[6].page_kb, 2048u);
  EXPECT_TRUE((*e)[6].IsProcessData());
  EXPECT_TRUE((*e)[7].IsProcessData());  // /dev/shm
  EXPECT_EQ((*e)[8].policy, "prefer (many):0-1");
  EXPECT_EQ((*e)[8].node_pages.at(0), 2u);
  EXPECT_EQ((*e)[9].TotalPages(), 0u);
  EXPECT_FALSE((*e)[9].page_kb.has_value());
  EXPECT_TRUE((*e)[10].stack);
}

TEST(NumaMapsTest, SummaryWeighsByPageSizeAndSeparatesClasses) {
  auto e = ParseNumaMaps(kSample);
  ASSERT_TRUE(e.ok());
  NumaFootprint fp = SummariseNumaMaps(*e);
  // Data: heap 4 + bind 100/200 + prefer-many 2 + stack 33 (4 kB pages), hugetlb 3 x 2048 kB,
  // shm 8 x 4 kB.
  EXPECT_DOUBLE_EQ(fp.data_kb.at(0), (4 + 100 + 2 + 33) * 4.0);
  EXPECT_DOUBLE_EQ(fp.data_kb.at(1), 200 * 4.0 + 3 * 2048.0 + 8 * 4.0);
  EXPECT_DOUBLE_EQ(fp.file_kb.at(0), (2 + 1 + 32) * 4.0);
  EXPECT_DOUBLE_EQ(fp.interleaved_kb.at(1), 40.0);
  EXPECT_EQ(fp.vmas, 11u);
  EXPECT_EQ(fp.vmas_with_policy, 3u);
}

TEST(NumaMapsTest, EmptyTextIsNoMappings) {
  auto e = ParseNumaMaps("");
  ASSERT_TRUE(e.ok());
  EXPECT_TRUE(e->empty());
}

TEST(NumaMapsTest, RejectsMalformedLines) {
  for (const char* bad : {
           "garbage\n",
           "zz00 default N0=1\n",
           "0x7f00 default N0=1\n",
           "7f00\n",              // truncated: no policy
           "7f00 default N0=\n",  // truncated value
           "7f00 default N0=12abc\n",
           "7f00 default N0=-3\n",
           "7f00 default N0=99999999999999999999999\n",  // overflows
           "7f00 default N0=1099511627777\n",            // over 2^40 pages
           "7f00 default N99999999=1\n",
           "7f00 default kernelpagesize_kB=0 N0=1\n",
           "7f00 default anon=x N0=1\n",
           "7f00 N0=1 kernelpagesize_kB=4\n",  // no policy
           "7f00 default file= N0=1\n",
       }) {
    auto e = ParseNumaMaps(bad);
    EXPECT_FALSE(e.ok()) << bad;
    if (!e.ok()) {
      EXPECT_NE(e.status().message().find("line 1"), std::string::npos) << e.status().message();
    }
  }
}

TEST(NumaMapsTest, IgnoresUnknownTokensOfNewerKernels) {
  auto e = ParseNumaMaps("7f00 default anon=1 shiny newkey=zz N0=1 kernelpagesize_kB=4\n");
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  EXPECT_EQ((*e)[0].TotalPages(), 1u);
}

TEST(NumaMapsTest, ReadNamesThePath) {
  testing::TempHost t;
  t.Write("/proc/self/numa_maps", "not a numa_maps line\n");
  auto e = ReadNumaMaps(t.Host(), "/proc/self/numa_maps");
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.status().message().find(t.root() + "/proc/self/numa_maps"), std::string::npos);
}

}  // namespace
}  // namespace numa_maps_test
}  // namespace ys::host
