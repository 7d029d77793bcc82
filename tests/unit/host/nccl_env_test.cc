#include "host/nccl_env.h"

#include <gtest/gtest.h>

namespace ys::host {
namespace {

TEST(NcclIbHcaTest, PrefixListWithPorts) {
  auto s = ParseNcclIbHca("mlx5_0:1,mlx5_1");
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_FALSE(s->exclude);
  EXPECT_FALSE(s->exact);
  ASSERT_EQ(s->entries.size(), 2u);
  EXPECT_EQ(s->entries[0].name, "mlx5_0");
  EXPECT_EQ(s->entries[0].port, 1);
  EXPECT_EQ(s->entries[1].name, "mlx5_1");
  EXPECT_FALSE(s->entries[1].port.has_value());
  // Without '=', "mlx5_1" is a prefix: it also takes mlx5_10 .. mlx5_17.
  EXPECT_TRUE(IbHcaSelects(*s, "mlx5_1", 1));
  EXPECT_TRUE(IbHcaSelects(*s, "mlx5_10", 1));
  EXPECT_TRUE(IbHcaSelects(*s, "mlx5_17", 2));
  EXPECT_TRUE(IbHcaSelects(*s, "mlx5_0", 1));
  EXPECT_FALSE(IbHcaSelects(*s, "mlx5_0", 2));  // port-limited
  EXPECT_FALSE(IbHcaSelects(*s, "mlx5_2", 1));
  EXPECT_FALSE(IbHcaSelects(*s, "mlx4_1", 1));
}

TEST(NcclIbHcaTest, ExactAndExclude) {
  auto exact = ParseNcclIbHca("=mlx5_1");
  ASSERT_TRUE(exact.ok());
  EXPECT_TRUE(exact->exact);
  EXPECT_TRUE(IbHcaSelects(*exact, "mlx5_1", 1));
  EXPECT_FALSE(IbHcaSelects(*exact, "mlx5_10", 1));

  auto excl = ParseNcclIbHca("^mlx5_1");
  ASSERT_TRUE(excl.ok());
  EXPECT_TRUE(excl->exclude);
  EXPECT_FALSE(excl->exact);
  EXPECT_FALSE(IbHcaSelects(*excl, "mlx5_1", 1));
  EXPECT_FALSE(IbHcaSelects(*excl, "mlx5_12", 1));  // excluded by prefix too
  EXPECT_TRUE(IbHcaSelects(*excl, "mlx5_2", 1));

  auto both = ParseNcclIbHca("^=mlx5_1:1");
  ASSERT_TRUE(both.ok());
  EXPECT_TRUE(both->exclude);
  EXPECT_TRUE(both->exact);
  EXPECT_FALSE(IbHcaSelects(*both, "mlx5_1", 1));
  EXPECT_TRUE(IbHcaSelects(*both, "mlx5_1", 2));
  EXPECT_TRUE(IbHcaSelects(*both, "mlx5_10", 1));
  EXPECT_EQ(FormatIbHcaSpec(*both), "^=mlx5_1:1");
}

TEST(NcclIbHcaTest, WholeDevicesOnTheirPortsOrAnyPort) {
  auto s = ParseNcclIbHca("mlx5_0:2,mlx5_1");
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(IbHcaListsDevice(*s, "mlx5_0", {1, 2}));
  EXPECT_FALSE(IbHcaListsDevice(*s, "mlx5_0", {1}));  // port 2 limits the entry
  EXPECT_TRUE(IbHcaListsDevice(*s, "mlx5_0", {}));    // no ports: the name decides
  EXPECT_FALSE(IbHcaListsDevice(*s, "mlx5_2", {}));
  auto excl = ParseNcclIbHca("^=mlx5_1:1");
  ASSERT_TRUE(excl.ok());
  EXPECT_FALSE(IbHcaSelectsDevice(*excl, "mlx5_1", {}));
  EXPECT_FALSE(IbHcaSelectsDevice(*excl, "mlx5_1", {1, 2}));  // listed on one port
  EXPECT_TRUE(IbHcaSelectsDevice(*excl, "mlx5_1", {2}));
  EXPECT_TRUE(IbHcaSelectsDevice(*excl, "mlx5_10", {}));
}

TEST(NcclIbHcaTest, RailAndPlaneFieldsEmptyEntriesAndTheLimit) {
  auto s = ParseNcclIbHca("=mlx5_0:1:0:0,,mlx5_1:1:1,");
  ASSERT_TRUE(s.ok()) << s.status().message();
  ASSERT_EQ(s->entries.size(), 2u);
  EXPECT_EQ(s->entries[1].port, 1);
  std::string many;
  for (int i = 0; i < 40; ++i) many += (i ? "," : "") + std::string("mlx5_") + std::to_string(i);
  auto m = ParseNcclIbHca(many);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->entries.size(), kNcclMaxIbHcaEntries);
  EXPECT_EQ(m->ignored, 8u);
}

TEST(NcclIbHcaTest, MalformedValuesAreInvalid) {
  for (const char* bad :
       {"", "^", "=", "^=", ",", ",,", ":1", "mlx5_0:", "mlx5_0:x", "mlx5_0:0", "mlx5_0:-1",
        "mlx5_0:99999", "mlx5_0:1:2:3:4", "mlx5_0:1:a", " mlx5_0", "mlx5_0 ,mlx5_1"}) {
    auto s = ParseNcclIbHca(bad);
    EXPECT_FALSE(s.ok()) << "\"" << bad << "\"";
  }
  std::string huge(100000, 'm');
  EXPECT_TRUE(ParseNcclIbHca(huge).ok());  // one long name: valid, matches nothing real
}

TEST(NcclConfTest, LinesCommentsAndFirstWins) {
  auto kv = ParseNcclConf(
      "# comment\nNCCL_DEBUG=INFO\n  NCCL_ALGO = Ring \ngarbage line\n=x\n"
      "NCCL_DEBUG=TRACE\n");
  ASSERT_EQ(kv.size(), 2u);
  EXPECT_EQ(kv[0].first, "NCCL_DEBUG");
  EXPECT_EQ(kv[0].second, "INFO");
  EXPECT_EQ(kv[1].first, "NCCL_ALGO");
  EXPECT_EQ(kv[1].second, "Ring");
  EXPECT_TRUE(ParseNcclConf("").empty());
}

TEST(NcclIntTest, StrtollRules) {
  EXPECT_EQ(ParseNcclInt("1"), 1);
  EXPECT_EQ(ParseNcclInt("0x2"), 2);
  EXPECT_EQ(ParseNcclInt(" 3 "), 3);
  EXPECT_FALSE(ParseNcclInt("").has_value());
  EXPECT_FALSE(ParseNcclInt("one").has_value());
  EXPECT_FALSE(ParseNcclInt("1x").has_value());
  EXPECT_FALSE(ParseNcclInt("99999999999999999999999").has_value());
}

}  // namespace
}  // namespace ys::host
