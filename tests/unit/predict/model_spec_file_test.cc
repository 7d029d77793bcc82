// The model file's reader: tables and keys read strictly, malformed files rejected naming the file,
// the key and what was expected, numbers out of range named with their range, duplicate recipe rows
// refused, and every shipped entry carrying its release.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <string_view>

#include "predict/model_spec.h"
#include "testing/bad_numbers.h"
#include "testing/text_edit.h"
#include "testing/tiny_model.h"

namespace ys::predict {
namespace {

using ::ys::testing::kGood;
using ::ys::testing::kModels;
using ::ys::testing::Replace;

TEST(ModelSpecFileTest, MoeRoutingGroupsAndDispatcherAreReadStrictly) {
  std::string text = Replace(kGood, "architecture = \"dense\"", "architecture = \"moe\"");
  text = Replace(text, "[[parallelism]]",
                 "[moe]\nexperts = 8\ntop_k = 2\nexpert_ffn_hidden_size = 32\nGROUPS"
                 "source = \"test\"\n\n[[parallelism]]");
  text = Replace(text, "ep = 1", "ep = 4\nmoe_dispatcher = \"deepep\"");
  auto good = ParseModelSpec(Replace(text, "GROUPS", "groups = 4\ntopk_groups = 2\n"), "x.toml");
  ASSERT_TRUE(good.ok()) << good.status().message();
  EXPECT_EQ(good->moe->groups, 4);
  EXPECT_EQ(good->moe->topk_groups, 2);
  EXPECT_EQ(good->parallelism[0].moe_dispatcher, "deepep");
  auto plain = ParseModelSpec(Replace(text, "GROUPS", ""), "x.toml");
  ASSERT_TRUE(plain.ok()) << plain.status().message();
  EXPECT_EQ(plain->moe->groups, 0);
  for (const char* bad :
       {"groups = 4\n", "groups = 3\ntopk_groups = 1\n", "groups = 4\ntopk_groups = 5\n"}) {
    auto spec = ParseModelSpec(Replace(text, "GROUPS", bad), "x.toml");
    ASSERT_FALSE(spec.ok()) << bad;
    EXPECT_NE(spec.status().message().find("[moe] groups"), std::string::npos)
        << spec.status().message();
  }
}

TEST(ModelSpecFileTest, MissingFiguresMakeArithmeticUnsupportedNotGuessed) {
  auto spec = ParseModelSpec(Replace(kGood, "vocab_size = 1000\n", ""), "x.toml");
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  auto c = CountParameters(*spec);
  EXPECT_EQ(c.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(c.status().message().find("vocab_size is not given"), std::string::npos);
}

struct Bad {
  const char* from;
  const char* to;
  const char* expect;
};

TEST(ModelSpecFileTest, MalformedFilesNameTheFileKeyAndExpectation) {
  const Bad cases[] = {
      {"layers = 2", "layers = \"two\"", "x.toml:8: [shape] layers: expected a whole number"},
      {"layers = 2", "layers = 0",
       "x.toml:8: [shape] layers: 0 is out of range (expected a whole number from 1 to 100000)"},
      {"vocab_size = 1000", "vocab = 1000", "x.toml:13: [shape] vocab: unknown key"},
      {"hidden_size = 64", "hidden_size = 64.5",
       "x.toml:9: [shape] hidden_size: expected a whole number"},
      {"kv_heads = 2", "kv_heads = 3", "[shape] kv_heads: 3 does not divide attention_heads 4"},
      {"architecture = \"dense\"", "architecture = \"sparse\"", "[model] architecture: \"sparse\""},
      {"architecture = \"dense\"", "architecture = \"moe\"",
       "architecture \"moe\" needs a [moe] table"},
      {"name = \"tiny\"\n", "", "x.toml:1: [model] name: missing; expected a non-empty string"},
      {"[shape]", "[shapes]", "x.toml:7: [shapes]: unknown section"},
      {"source = \"test\"\n\n[[parallelism]]", "\n[[parallelism]]",
       "x.toml:7: [shape] source: missing; expected a non-empty string"},
      {"gpus = 16", "gpus = 18",
       "x.toml:17: [[parallelism]] 1: gpus 18 is not a multiple of tp·pp·cp = 4"},
      {"global_batch = 32", "global_batch = 30",
       "global_batch 30 is not a multiple of micro_batch × dp = 4"},
      {"ep = 1", "ep = 3", "ep 3 does not divide dp·cp·tp = 8"},
      // etp defaults to tp (2): 2·8 experts' GPUs do not fit the 8 GPUs of a stage.
      {"ep = 1", "ep = 8", "etp·ep = 2·8 does not divide gpus / pp = 8 (etp defaults to tp"},
      {"ep = 1", "ep = 4\netp = 4", "etp·ep = 4·4 does not divide gpus / pp = 8"},
      {"ep = 1", "ep = 1\nmoe_a2a_overlap = 1",
       "[[parallelism]] 1 moe_a2a_overlap: expected true or false"},
      {"ep = 1", "ep = 1\ndp_overlap = \"no\"",
       "[[parallelism]] 1 dp_overlap: expected true or false"},
      {"ep = 1", "ep = 1\nmoe_dispatcher = \"deep\"",
       "[[parallelism]] 1 moe_dispatcher: \"deep\" (expected alltoall or deepep)"},
      {"ep = 1", "ep = 1\nrecompute_layers = 4",
       "[[parallelism]] 1 recompute_layers: needs recompute = \"full\" (it is \"none\")"},
      {"ep = 1", "ep = 1\nrecompute = \"full\"\nrecompute_layers = 0",
       "[[parallelism]] 1 recompute_layers:"},
      {"ep = 1", "ep = 1\nmodule_precision = \"attn=bf16\"",
       "[[parallelism]] 1 module_precision: \"attn=bf16\" (expected module:format pairs"},
      {"ep = 1", "ep = 1\nmodule_precision = \"attn:bf16+router:fp8\"",
       "[[parallelism]] 1 module_precision: \"attn:bf16+router:fp8\" (expected"},
      {"ep = 1", "ep = 1\nmodule_precision = \"attn:fp4\"",
       "[[parallelism]] 1 module_precision: \"attn:fp4\" (expected"},
      {"ep = 1", "ep = 1\nbf16_layers = -1", "[[parallelism]] 1 bf16_layers:"},
      {"ep = 1", "ep = 1\nattention_backend = \"flash\"",
       "[[parallelism]] 1 attention_backend: \"flash\" (expected fused or unfused)"},
      {"vp = 2", "vp = true", "x.toml:25: [[parallelism]] 1 vp: expected a whole number"},
      {"tp = 2", "tp = 2\ntensor = 2", "x.toml:22: [[parallelism]] 1 tensor: unknown key"},
      {"[[parallelism]]", "[parallelism]",
       "x.toml:17: parallelism: expected [[parallelism]] tables"},
      {"name = \"tiny\"", "name = \"tiny", "x.toml:2:"},
  };
  for (const Bad& c : cases) {
    auto spec = ParseModelSpec(Replace(kGood, c.from, c.to), "x.toml");
    ASSERT_FALSE(spec.ok()) << c.to;
    EXPECT_EQ(spec.status().code(), StatusCode::kInvalidInput) << c.to;
    EXPECT_NE(spec.status().message().find(c.expect), std::string::npos)
        << "got: " << spec.status().message() << "\nwanted: " << c.expect;
  }
}

// Every shape and batch figure is a positive whole number with a bound that keeps the arithmetic
// finite: nan, inf, 1e300, -1, 0, 2^63 and a dimension past 2^22 are refused naming the key.
TEST(ModelSpecFileTest, OutOfRangeNumbersNameTheFileKeyValueAndRange) {
  struct Key {
    const char* line;
    const char* where;  // "x.toml:9: [shape] hidden_size: "
    const char* too_big;
  };
  const Key keys[] = {
      {"layers = 2", "x.toml:8: [shape] layers: ", "100001"},
      {"hidden_size = 64", "x.toml:9: [shape] hidden_size: ", "4194305"},
      {"ffn_hidden_size = 256", "x.toml:10: [shape] ffn_hidden_size: ", "4194305"},
      {"attention_heads = 4", "x.toml:11: [shape] attention_heads: ", "65537"},
      {"vocab_size = 1000", "x.toml:13: [shape] vocab_size: ", "16777217"},
      {"seq_length = 128", "x.toml:14: [shape] seq_length: ", "4194305"},
      {"micro_batch = 1", "x.toml:26: [[parallelism]] 1 micro_batch: ", "1048577"},
      {"global_batch = 32", "x.toml:27: [[parallelism]] 1 global_batch: ", "16777217"},
  };
  for (const Key& k : keys) {
    std::string key(k.line, std::string_view(k.line).find(" = "));
    for (const std::string& v : {std::string("0"), std::string("-1"), std::string(k.too_big)}) {
      auto spec = ParseModelSpec(Replace(kGood, k.line, key + " = " + v), "x.toml");
      ASSERT_FALSE(spec.ok()) << key << " = " << v;
      EXPECT_EQ(spec.status().code(), StatusCode::kInvalidInput);
      EXPECT_NE(spec.status().message().find(
                    k.where + v + " is out of range (expected a whole number from 1 to "),
                std::string::npos)
          << spec.status().message();
    }
    for (const char* v : {"nan", "inf", "1e300", "1e-320"}) {
      auto spec = ParseModelSpec(Replace(kGood, k.line, key + " = " + v), "x.toml");
      ASSERT_FALSE(spec.ok()) << key << " = " << v;
      EXPECT_NE(spec.status().message().find(std::string(k.where) + "expected a whole number"),
                std::string::npos)
          << spec.status().message();
    }
    auto past =
        ParseModelSpec(Replace(kGood, k.line, key + " = " + ys::testing::kPastInt64), "x.toml");
    ASSERT_FALSE(past.ok());
    EXPECT_NE(past.status().message().find("x.toml:"), std::string::npos)
        << past.status().message();
  }
}

// micro_batch x dp was an int product: 2^20 x 2^20 wrapped to 0 and the divisibility check
// divided by it.
TEST(ModelSpecFileTest, BatchProductsDoNotOverflow) {
  std::string text = Replace(kGood, "gpus = 16", "gpus = 1048576");
  text = Replace(text, "tp = 2", "tp = 1");
  text = Replace(text, "pp = 2", "pp = 1");
  text = Replace(text, "vp = 2\n", "");
  text = Replace(text, "micro_batch = 1", "micro_batch = 1048576");
  text = Replace(text, "global_batch = 32", "global_batch = 16777216");
  auto spec = ParseModelSpec(text, "x.toml");
  ASSERT_FALSE(spec.ok());
  EXPECT_NE(spec.status().message().find(
                "global_batch 16777216 is not a multiple of micro_batch × dp = 1099511627776"),
            std::string::npos)
      << spec.status().message();
}

// One current entry per chip, dtype and GPU count (an entry without a release, or current = true);
// one entry per release and global batch of them.
TEST(ModelSpecFileTest, DuplicateParallelismRowsAreRejected) {
  // kGood twice over, the entries' last lines before their source: `first` and `second`.
  auto twice = [&](const std::string& first, const std::string& second) {
    const std::string good = kGood;
    std::string entry = good.substr(good.find("[[parallelism]]"));
    std::string text = good;
    text.insert(text.rfind("source = "), first);
    entry.insert(entry.rfind("source = "), second);
    return ParseModelSpec(text + entry, "x.toml");
  };
  const struct {
    std::string first, second, expect;  // "": accepted
  } cases[] = {
      {"", "", "a second current entry for h100/bf16/16"},
      {"release = \"v1\"\n", "release = \"v1\"\n", "a second entry for h100/bf16/16/v1/gbs 32"},
      {"release = \"v1\"\ncurrent = true\n", "release = \"v2\"\ncurrent = true\n",
       "a second current entry for h100/bf16/16"},
      {"release = \"v1\"\ncurrent = true\n", "release = \"v0\"\n", ""},
      {"release = \"v1\"\n", "release = \"v2\"\n", ""},
  };
  for (const auto& c : cases) {
    auto spec = twice(c.first, c.second);
    if (c.expect.empty()) {
      EXPECT_TRUE(spec.ok()) << spec.status().message();
      continue;
    }
    ASSERT_FALSE(spec.ok()) << c.first << " / " << c.second;
    EXPECT_NE(spec.status().message().find(c.expect), std::string::npos) << spec.status().message();
  }
  EXPECT_EQ(LoadModelSpec("/nonexistent/m.toml").status().code(), StatusCode::kNotFound);
}

// Every shipped entry names the recipe release it is transcribed from; the current recipes are
// marked so, and a prediction without a release runs them.
TEST(ModelSpecFileTest, EveryShippedEntryCarriesItsRelease) {
  auto specs = LoadModelSpecs(kModels);
  ASSERT_TRUE(specs.ok()) << specs.status().message();
  for (const ModelSpec& s : *specs) {
    for (const Parallelism& p : s.parallelism) {
      EXPECT_FALSE(p.release.empty())
          << s.path << ": " << p.chip << "/" << p.dtype << "/" << p.gpus;
      if (!p.current) continue;
      auto found = FindParallelism(s, p.chip, p.dtype, p.gpus);
      ASSERT_TRUE(found.ok()) << found.status().message();
      EXPECT_TRUE(found->current) << s.path << ": " << p.chip << "/" << p.dtype << "/" << p.gpus;
    }
  }
}

const ModelSpec* Named(const std::vector<ModelSpec>& specs, const std::string& name) {
  for (const ModelSpec& s : specs) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

}  // namespace
}  // namespace ys::predict
