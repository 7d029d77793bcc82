// The one strict TOML reader: every message names the file, the line, the table, the key and what
// was expected; unknown and missing keys are told apart.
#include "core/toml_reader.h"

#include <gtest/gtest.h>

namespace ys {
namespace {

constexpr char kText[] = R"([slurm]
partition = "gpu"
gpus = 8
ratio = 0.5
exclusive = true
options = ["--a", "--b"]
xids = [13, 48]
)";

toml::table Parse(std::string_view text) {
  auto t = ParseToml(text, "c.toml");
  EXPECT_TRUE(t.ok()) << t.status().message();
  return t.ok() ? std::move(*t) : toml::table();
}

TEST(TomlReaderTest, ReadsEveryKindOfValue) {
  toml::table root = Parse(kText);
  TomlTableReader r(*root["slurm"].as_table(), "c.toml", "[slurm]");
  std::string partition;
  int gpus = 0;
  double ratio = 0;
  bool exclusive = false;
  std::vector<std::string> options;
  ASSERT_TRUE(r.String("partition", &partition).ok());
  ASSERT_TRUE(r.Int("gpus", &gpus, 1, 64).ok());
  ASSERT_TRUE(r.Double("ratio", &ratio, 0, 1, /*required=*/true, LowerBound::kExclusive).ok());
  ASSERT_TRUE(r.Bool("exclusive", &exclusive).ok());
  ASSERT_TRUE(r.Strings("options", &options).ok());
  auto xids = ReadTomlInts(*r.Get("xids"), r.Where("xids"), 1, 1000);
  ASSERT_TRUE(xids.ok()) << xids.status().message();
  EXPECT_TRUE(r.NoOtherKeys().ok());
  EXPECT_EQ(partition, "gpu");
  EXPECT_EQ(gpus, 8);
  EXPECT_DOUBLE_EQ(ratio, 0.5);
  EXPECT_TRUE(exclusive);
  EXPECT_EQ(options, (std::vector<std::string>{"--a", "--b"}));
  EXPECT_EQ(*xids, (std::vector<int>{13, 48}));
  std::optional<int> absent;
  EXPECT_TRUE(r.OptionalInt("nodes", &absent, 1, 10).ok());
  EXPECT_FALSE(absent.has_value());
}

TEST(TomlReaderTest, MessagesNameFileLineTableKeyAndExpectation) {
  toml::table root = Parse(kText);
  TomlTableReader r(*root["slurm"].as_table(), "c.toml", "[slurm]");
  int i = 0;
  std::string s;
  double d = 0;
  bool b = false;
  std::vector<std::string> list;
  EXPECT_EQ(r.Int("partition", &i, 1, 64).message(),
            "c.toml:2: [slurm] partition: expected a whole number from 1 to 64");
  EXPECT_EQ(r.Int("gpus", &i, 1, 4).message(),
            "c.toml:3: [slurm] gpus: 8 is out of range (expected a whole number from 1 to 4)");
  EXPECT_EQ(r.String("gpus", &s).message(), "c.toml:3: [slurm] gpus: expected a string");
  EXPECT_EQ(r.Double("ratio", &d, 0.6, 1).message(),
            "c.toml:4: [slurm] ratio: 0.5 is out of range (expected a number from 0.6 to 1)");
  EXPECT_EQ(r.Bool("gpus", &b).message(), "c.toml:3: [slurm] gpus: expected true or false");
  EXPECT_EQ(r.Strings("xids", &list).message(),
            "c.toml:7: [slurm] xids: expected an array of strings; an element is not a string");
  // A missing key is reported at the table's line, with what was expected.
  EXPECT_EQ(r.Int("nodes", &i, 1, 10).message(),
            "c.toml:1: [slurm] nodes: missing; expected a whole number from 1 to 10");
  EXPECT_TRUE(r.Int("nodes", &i, 1, 10, /*required=*/false).ok());
}

TEST(TomlReaderTest, UnknownKeysAreNamedWithTheKnownOnes) {
  toml::table root = Parse("[t]\na = 1\nb = 2\n");
  TomlTableReader r(*root["t"].as_table(), "u.toml", "[t]");
  int a = 0;
  ASSERT_TRUE(r.Int("a", &a, 0, 9).ok());
  EXPECT_EQ(r.NoOtherKeys().message(), "u.toml:3: [t] b: unknown key (expected one of a)");
  EXPECT_EQ(r.OnlyKeys({"a"}).message(), "u.toml:3: [t] b: unknown key");
  EXPECT_TRUE(r.OnlyKeys({"a", "b"}).ok());
}

TEST(TomlReaderTest, SyntaxErrorsAndMisshapenTables) {
  auto bad = ParseToml("[t]\na = \n", "s.toml");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidInput);
  EXPECT_EQ(bad.status().message().rfind("s.toml:2:", 0), 0u) << bad.status().message();
  toml::table root = Parse("t = 3\n[u]\n");
  auto t = TomlSubTable(root, "s.toml", "t");
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().message(), "s.toml:1: t: expected a table [t]");
  auto u = TomlSubTable(root, "s.toml", "u");
  ASSERT_TRUE(u.ok());
  EXPECT_NE(*u, nullptr);
  auto none = TomlSubTable(root, "s.toml", "v");
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(*none, nullptr);
}

TEST(TomlReaderTest, ValuesThatFailAFurtherCheckReportAtTheKey) {
  toml::table root = Parse("[t]\n\nname = \"\"\n");
  TomlTableReader r(*root["t"].as_table(), "v.toml", "[t]");
  std::string name;
  EXPECT_EQ(r.String("name", &name, /*required=*/true, /*allow_empty=*/false).message(),
            "v.toml:3: [t] name: expected a non-empty string");
  EXPECT_EQ(r.Check("name", Status::Invalid("too short")).message(),
            "v.toml:3: [t] name: too short");
  EXPECT_TRUE(r.Check("name", Status::Ok()).ok());
  EXPECT_EQ(r.Error("", "whole table").message(), "v.toml:1: [t]: whole table");
}

}  // namespace
}  // namespace ys
