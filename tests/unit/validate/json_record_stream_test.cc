// The JSON streaming layer of the serving readers: records of one object, an array of objects or
// one object per line; bare NaN/Infinity quoted outside strings only; nested values kept as empty
// placeholders, length arrays summarised, server_info flattened; the first invalid value named.
#include "validate/json_record_stream.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

namespace ys::validate {
namespace {

JsonRecordStream RecordsOfText(const std::string& text) {
  std::istringstream in(text);
  return ReadJsonRecords(in);
}

TEST(JsonRecordStreamTest, OneObjectAnArrayOrOnePerLine) {
  JsonRecordStream one = RecordsOfText(R"({"a": 1, "b": "x"})");
  ASSERT_TRUE(one.ok);
  EXPECT_EQ(one.values, 1);
  ASSERT_EQ(one.records.size(), 1u);
  EXPECT_EQ(one.records[0].at("a"), 1);
  EXPECT_EQ(one.records[0].at("b"), "x");

  JsonRecordStream array = RecordsOfText(R"([{"a": 1}, {"a": 2}])");
  ASSERT_TRUE(array.ok);
  EXPECT_EQ(array.values, 1);
  ASSERT_EQ(array.records.size(), 2u);
  EXPECT_EQ(array.records[1].at("a"), 2);

  JsonRecordStream lines = RecordsOfText("{\"a\": 1}\n{\"a\": 2}\n\n{\"a\": 3}\n");
  ASSERT_TRUE(lines.ok);
  EXPECT_EQ(lines.values, 3);
  ASSERT_EQ(lines.records.size(), 3u);
  EXPECT_EQ(lines.records[2].at("a"), 3);

  JsonRecordStream empty = RecordsOfText("  \n ");
  EXPECT_TRUE(empty.ok);
  EXPECT_EQ(empty.values, 0);
  EXPECT_TRUE(empty.records.empty());
}

TEST(JsonRecordStreamTest, BareNonFiniteQuotedOutsideStringsOnly) {
  JsonRecordStream s = RecordsOfText(
      R"({"rate": Infinity, "lat": NaN, "low": -Infinity, "neg": -2.5, "text": "NaN -Infinity \" Infinity"})");
  ASSERT_TRUE(s.ok) << s.error;
  const JsonRecord& r = s.records.at(0);
  EXPECT_EQ(r.at("rate"), "Infinity");
  EXPECT_EQ(r.at("lat"), "NaN");
  EXPECT_EQ(r.at("low"), "-Infinity");
  EXPECT_DOUBLE_EQ(r.at("neg").get<double>(), -2.5);
  EXPECT_EQ(r.at("text"), "NaN -Infinity \" Infinity");
  EXPECT_TRUE(IsNonFiniteText(r.at("rate")));
  EXPECT_TRUE(IsNonFiniteText(r.at("lat")));
  EXPECT_TRUE(IsNonFiniteText(r.at("low")));
  EXPECT_FALSE(IsNonFiniteText(r.at("neg")));
  EXPECT_FALSE(IsNonFiniteText(r.at("text")));
  EXPECT_FALSE(IsNonFiniteText(nlohmann::json("inf")));
}

TEST(JsonRecordStreamTest, NestedValuesStandAsEmptyLengthsSummarised) {
  JsonRecordStream s =
      RecordsOfText(R"({"ttfts": [0.1, 0.2], "itls": [[1], [2]], "nested": {"x": 1},)"
                    R"( "output_lens": [10, 30, 20], "input_lens": [],)"
                    R"( "server_info": {"tp_size": 8, "deep": {"y": 2}}, "after": true})");
  ASSERT_TRUE(s.ok) << s.error;
  const JsonRecord& r = s.records.at(0);
  EXPECT_EQ(r.at("ttfts"), nlohmann::json::array());
  EXPECT_EQ(r.at("itls"), nlohmann::json::array());
  EXPECT_EQ(r.at("nested"), nlohmann::json::object());
  EXPECT_EQ(r.at("output_lens"),
            (nlohmann::json{{"count", 3}, {"sum", 60.0}, {"min", 10.0}, {"max", 30.0}}));
  EXPECT_EQ(r.at("input_lens"), nlohmann::json::array());  // none to summarise
  EXPECT_EQ(r.at("server_info.tp_size"), 8);
  EXPECT_EQ(r.at("server_info.deep"), nlohmann::json::object());  // its own fields are not kept
  EXPECT_EQ(r.count("x"), 0u);
  EXPECT_EQ(r.count("y"), 0u);
  EXPECT_EQ(r.at("after"), true);
}

TEST(JsonRecordStreamTest, FirstInvalidValueIsCountedAndNamed) {
  JsonRecordStream s = RecordsOfText("{\"a\": 1}\n{\"a\": }\n{\"a\": 3}\n");
  EXPECT_FALSE(s.ok);
  EXPECT_EQ(s.values, 2);
  EXPECT_FALSE(s.error.empty());
  EXPECT_EQ(s.records.size(), 1u);

  JsonRecordStream cut = RecordsOfText("{\"a\": 12");
  EXPECT_FALSE(cut.ok);
  EXPECT_EQ(cut.values, 1);
}

}  // namespace
}  // namespace ys::validate
