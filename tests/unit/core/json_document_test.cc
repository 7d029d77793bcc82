#include "core/json_document.h"

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "testing/bench_test_util.h"

namespace ys {
namespace {

using nlohmann::json;

std::string Message(const Result<json>& r) { return r.ok() ? "(ok)" : r.status().message(); }

TEST(JsonDocumentTest, ParsesAValidDocument) {
  auto r = ParseJsonDocument(R"({"a": [1, 2.5, "x"], "b": {"c": null}})", "doc.json");
  ASSERT_TRUE(r.ok()) << Message(r);
  EXPECT_EQ((*r)["a"][1], 2.5);
}

TEST(JsonDocumentTest, DeepNestingFailsFastWithTheByte) {
  // 100,000 levels: the tree is never built (json::parse would build it and dump() would
  // overflow the stack).
  std::string deep = std::string(100000, '[') + std::string(100000, ']');
  auto r = ParseJsonDocument(deep, "deep.json");
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidInput);
  EXPECT_EQ(Message(r), "deep.json: arrays and objects nested deeper than 128 levels, at byte 128");
  std::string objects;
  for (int i = 0; i < 100000; ++i) objects += "{\"k\":";
  auto o = ParseJsonDocument(objects, "objects.json");
  EXPECT_NE(Message(o).find("objects.json: arrays and objects nested deeper than 128 levels"),
            std::string::npos)
      << Message(o);
  // At the limit it parses; brackets inside strings do not count.
  std::string at_limit = std::string(128, '[') + "\"[[[[{{{{\"" + std::string(128, ']');
  EXPECT_TRUE(ParseJsonDocument(at_limit, "limit.json").ok());
  EXPECT_FALSE(ParseJsonDocument(at_limit, "limit.json", 127).ok());
}

TEST(JsonDocumentTest, NumberOutOfDoubleRangeIsNamed) {
  auto r = ParseJsonDocument(R"({"value": 1e309})", "big.json");
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidInput);
  EXPECT_NE(Message(r).find("big.json: not JSON: number overflow parsing '1e309', at byte 15"),
            std::string::npos)
      << Message(r);
  EXPECT_TRUE(ParseJsonDocument("[1e308, -1e308, 1e-400]", "ok.json").ok());
}

TEST(JsonDocumentTest, MalformedTextNamesSourceAndByte) {
  auto cut = ParseJsonDocument(R"({"a": [1, 2)", "cut.json");
  EXPECT_NE(Message(cut).find("cut.json: not JSON: "), std::string::npos) << Message(cut);
  EXPECT_NE(Message(cut).find(", at byte 12"), std::string::npos) << Message(cut);
  EXPECT_EQ(Message(cut).find("[json.exception"), std::string::npos) << Message(cut);
  EXPECT_EQ(Message(ParseJsonDocument(" \n", "e.json")),
            "e.json: not JSON: empty, expected a JSON document");
  EXPECT_NE(Message(ParseJsonDocument("{} {}", "two.json")).find("two.json: not JSON"),
            std::string::npos);
}

TEST(JsonDocumentTest, NonUtf8IsRefusedNotThrown) {
  auto r = ParseJsonDocument("{\"host\": \"a\xff\xfe\"}", "bad.json");
  EXPECT_NE(Message(r).find("bad.json: not JSON"), std::string::npos) << Message(r);
}

TEST(JsonDocumentTest, ReadJsonFileNamesTheFile) {
  testing::TempDir dir;
  std::string path = dir.path() + "/v.json";
  std::ofstream(path) << "{\"x\": 1e999}";
  auto r = ReadJsonFile(path);
  EXPECT_NE(Message(r).find(path + ": not JSON: number overflow"), std::string::npos) << Message(r);
  auto zero = ReadJsonFile("/dev/zero");
  EXPECT_NE(Message(zero).find("/dev/zero: is a character device"), std::string::npos)
      << Message(zero);
}

TEST(JsonDocumentTest, TypedAccessNamesFieldAndTypes) {
  json j = json::parse(R"({"name": 3, "ok": true, "n": "7", "s": "x"})");
  std::string s;
  Status st = JsonString(j, "name", &s, "run.json: workloads[3]");
  EXPECT_EQ(st.message(), "run.json: workloads[3].name: expected a string, found a number");
  EXPECT_TRUE(JsonString(j, "s", &s, "w").ok());
  EXPECT_EQ(s, "x");
  double d = 0;
  EXPECT_EQ(JsonNumber(j, "n", &d, "w").message(), "w.n: expected a number, found a string");
  EXPECT_EQ(JsonNumber(j, "gone", &d, "w").message(), "w.gone: missing, expected a number");
  EXPECT_TRUE(JsonNumber(j, "gone", &d, "w", /*required=*/false).ok());
  bool b = false;
  EXPECT_TRUE(JsonBool(j, "ok", &b, "w").ok());
  EXPECT_TRUE(b);
  // A non-object holds no keys; never a throw.
  EXPECT_EQ(JsonString(json::array(), "name", &s, "w").message(),
            "w.name: missing, expected a string");
}

TEST(JsonDocumentTest, ValuesQuotedInMessagesNeverThrow) {
  EXPECT_EQ(JsonForMessage(json("a\xff")), "\"a\xef\xbf\xbd\"");
  EXPECT_EQ(JsonForMessage(json(std::string(200, 'x')), 10), "\"xxxxxxxxx...");
  EXPECT_EQ(JsonForMessage(json(std::vector<int>(1000, 1))), "an array");
}

}  // namespace
}  // namespace ys
