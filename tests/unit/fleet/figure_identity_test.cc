// The identity text the lean reader interns figure shapes by: sized parts round-trip, a head
// compares by name, unit, direction and flat size, and the shape derived from the flat params
// equals what fleet/key.h derives from the same measurement.
#include "fleet/figure_identity.h"

#include <gtest/gtest.h>

#include <string>

#include "fleet/key.h"

namespace ys::fleet {
namespace {

std::string FlatOf(std::initializer_list<std::pair<std::string_view, std::string_view>> params) {
  std::string flat;
  for (const auto& [k, v] : params) {
    AppendSized(flat, k);
    AppendSized(flat, v);
  }
  return flat;
}

std::string IdentityOf(std::string_view name, std::string_view unit, char direction,
                       std::string_view flat) {
  std::string id;
  AppendSized(id, name);
  AppendSized(id, unit);
  id += direction;
  id += flat;
  return id;
}

TEST(FigureIdentityTest, SizedPartsRoundTripAndCompare) {
  std::string text;
  AppendSized(text, "bus_bw");
  AppendSized(text, "");
  AppendSized(text, std::string_view("a\0b", 3));  // any byte, no escaping
  EXPECT_EQ(text.size(), 3 * sizeof(uint32_t) + 6 + 0 + 3);
  EXPECT_TRUE(HasSizedAt(text, 0, "bus_bw"));
  EXPECT_FALSE(HasSizedAt(text, 0, "bus_b"));  // a prefix is not the part
  EXPECT_FALSE(HasSizedAt(text, 0, "bus_bwx"));
  EXPECT_TRUE(HasSizedAt(text, sizeof(uint32_t) + 6, ""));
  EXPECT_FALSE(HasSizedAt(text, text.size(), "x"));  // past the end
  std::string_view rest = text;
  EXPECT_EQ(TakeSized(rest), "bus_bw");
  EXPECT_EQ(TakeSized(rest), "");
  EXPECT_EQ(TakeSized(rest), std::string_view("a\0b", 3));
  EXPECT_TRUE(rest.empty());
}

TEST(FigureIdentityTest, HeadComparesEveryPartAndTheFlatSize) {
  std::string flat = FlatOf({{"size", "1GiB"}, {"gpu", "0"}});
  std::string id = IdentityOf("bus_bw", "GB/s", 'h', flat);
  EXPECT_EQ(FlatOfIdentity(id), flat);
  EXPECT_TRUE(HasIdentityHead(id, "bus_bw", "GB/s", 'h', flat.size()));
  EXPECT_FALSE(HasIdentityHead(id, "bus_bw", "GB/s", 'l', flat.size()));
  EXPECT_FALSE(HasIdentityHead(id, "bus_bx", "GB/s", 'h', flat.size()));
  EXPECT_FALSE(HasIdentityHead(id, "bus_bw", "GB/S", 'h', flat.size()));
  EXPECT_FALSE(HasIdentityHead(id, "bus_bw", "GB/s", 'h', flat.size() - 1));
  // The same bytes split otherwise ("bus_bwG", "B/s") are another identity.
  EXPECT_FALSE(HasIdentityHead(id, "bus_bwG", "B/s", 'h', flat.size()));
  EXPECT_EQ(FlatOfIdentity(IdentityOf("t", "ms", 'l', "")), "");
}

TEST(FigureIdentityTest, ShapeIsWhatTheKeyRulesDeriveFromTheMeasurement) {
  std::string flat = FlatOf({{"gpu", "3"}, {"gpu_name", "NVIDIA H100"}, {"gpu", "5"}});
  FigureShape sh = MakeShape("hbm_bw", "GB/s", flat, Better::kHigher);
  EXPECT_EQ(sh.proto.name, "hbm_bw");
  EXPECT_EQ(sh.proto.unit, "GB/s");
  EXPECT_EQ(sh.proto.better, Better::kHigher);
  ASSERT_EQ(sh.proto.params.size(), 2u);
  EXPECT_EQ(sh.proto.params.at("gpu"), "5");  // the last of a repeated param
  EXPECT_TRUE(sh.names_gpu_model);
  EXPECT_EQ(sh.gpu_name, "NVIDIA H100");
  EXPECT_EQ(sh.key, ComparisonKey(sh.proto));
  Entity e = EntityOf(sh.proto);
  EXPECT_EQ(sh.entity.kind, e.kind);
  EXPECT_EQ(sh.entity.label, e.label);
  EXPECT_EQ(sh.node, NodeOf(sh.proto, std::string()));

  FigureShape bare = MakeShape("latency", "us", "", Better::kLower);
  EXPECT_TRUE(bare.proto.params.empty());
  EXPECT_FALSE(bare.names_gpu_model);
  EXPECT_TRUE(bare.versions.empty());
  EXPECT_EQ(bare.proto.better, Better::kLower);
}

}  // namespace
}  // namespace ys::fleet
