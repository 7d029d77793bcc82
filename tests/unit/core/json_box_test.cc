// JsonBox: a JSON value held by value in a struct whose header sees only json_fwd.hpp.
#include "core/json_box.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace ys {
namespace {

TEST(JsonBoxTest, IsEmptyUntilAValueIsStoredAndThenHoldsIt) {
  JsonBox<nlohmann::json> box;
  EXPECT_FALSE(box.has_value());
  EXPECT_FALSE(static_cast<bool>(box));
  const JsonBox<nlohmann::json>& read = box;
  EXPECT_TRUE(read->is_null());  // a const read of an empty box is a null, and stores nothing
  EXPECT_FALSE(box.has_value());
  box = nlohmann::json{{"profile", "compute"}};
  ASSERT_TRUE(box.has_value());
  EXPECT_EQ((*box)["profile"], "compute");
  box.reset();
  EXPECT_FALSE(box.has_value());
  (*box)["added"] = 1;  // a non-const access stores a null first
  EXPECT_EQ(*box, nlohmann::json({{"added", 1}}));
}

TEST(JsonBoxTest, CopiesDeeplyAndMovesTheValue) {
  JsonBox<nlohmann::ordered_json> a = nlohmann::ordered_json{{"b", 1}, {"a", 2}};
  JsonBox<nlohmann::ordered_json> b = a;
  (*b)["b"] = 5;
  EXPECT_EQ((*a)["b"], 1);  // the copy is its own value
  EXPECT_EQ(a->dump(), R"({"b":1,"a":2})");
  JsonBox<nlohmann::ordered_json> c = std::move(b);
  EXPECT_EQ((*c)["b"], 5);
  JsonBox<nlohmann::ordered_json> empty;
  a = empty;
  EXPECT_FALSE(a.has_value());
}

}  // namespace
}  // namespace ys
