// Model specs: literal TOML parses into the shape and parallelism; malformed files are rejected
// naming the file, the key and what was expected; every shipped models/*.toml loads, and the
// arithmetic reproduces the published parameter counts and NVIDIA's FLOPs figures.
#include "predict/model_spec.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <string_view>

#include "testing/bad_numbers.h"
#include "testing/text_edit.h"

namespace ys::predict {
namespace {

const std::string kModels = std::string(YS_SOURCE_DIR) + "/models";

constexpr const char* kGood = R"([model]
name = "tiny"
display_name = "Tiny"
architecture = "dense"
source = "test"

[shape]
layers = 2
hidden_size = 64
ffn_hidden_size = 256
attention_heads = 4
kv_heads = 2
vocab_size = 1000
seq_length = 128
source = "test"

[[parallelism]]
chip = "h100"
dtype = "bf16"
gpus = 16
tp = 2
pp = 2
cp = 1
ep = 1
vp = 2
micro_batch = 1
global_batch = 32
source = "test"
)";

using ::ys::testing::Replace;

TEST(ModelSpecTest, ParsesALiteralDenseModel) {
  auto spec = ParseModelSpec(kGood, "tiny.toml");
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  EXPECT_EQ(spec->name, "tiny");
  EXPECT_EQ(spec->architecture, Architecture::kDense);
  EXPECT_EQ(spec->shape.layers, 2);
  EXPECT_EQ(*spec->shape.kv_heads, 2);
  EXPECT_FALSE(spec->shape.head_dim);
  EXPECT_TRUE(spec->shape.gated_mlp);
  ASSERT_EQ(spec->parallelism.size(), 1u);
  const Parallelism& p = spec->parallelism[0];
  EXPECT_EQ(p.DataParallel(), 4);
  EXPECT_EQ(p.GradientAccumulation(), 8);
  EXPECT_EQ(*p.vp, 2);
  EXPECT_FALSE(p.fsdp);
  EXPECT_TRUE(p.dp_overlap);  // the recipes overlap their data-parallel communication

  // 2 layers × (attention 2·64·64 + 2·64·32, MLP 3·64·256) + embedding and head 2·1000·64.
  auto c = CountParameters(*spec);
  ASSERT_TRUE(c.ok()) << c.status().message();
  double layer = 2 * 64 * 64 + 2 * 64 * 32 + 3 * 64 * 256;
  EXPECT_DOUBLE_EQ(c->total, 2 * layer + 2 * 1000 * 64);
  EXPECT_DOUBLE_EQ(c->active, c->total);
  EXPECT_DOUBLE_EQ(c->active_matmul, 2 * layer + 1000 * 64);
  auto f = TrainingFlopsPerToken(*spec);
  ASSERT_TRUE(f.ok());
  EXPECT_DOUBLE_EQ(*f, 6 * c->active_matmul + 12.0 * 128 * 64 * 2);

  EXPECT_TRUE(FindParallelism(*spec, "h100", "bf16", 16).ok());
  auto missing = FindParallelism(*spec, "b200", "fp8", 512);
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find("known: h100/bf16/16"), std::string::npos);
}

// A GPU count without an entry takes the chip's and dtype's entry at the nearest other count with
// its layout kept and data parallelism and global batch scaled (the published recipes' weak
// scaling); never another dtype's, nor a layout that does not divide the count.
TEST(ModelSpecTest, WeakScalingKeepsTheNearestEntrysLayout) {
  std::string text = kGood;
  text += R"(
[[parallelism]]
chip = "h100"
dtype = "bf16"
gpus = 128
tp = 4
pp = 2
cp = 1
ep = 1
micro_batch = 2
global_batch = 256
release = "26.04.01"
source = "a release's"
)";
  auto spec = ParseModelSpec(text, "tiny.toml");
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  auto at32 = WeakScaledParallelism(*spec, "h100", "bf16", 32);
  ASSERT_TRUE(at32.ok()) << at32.status().message();
  EXPECT_EQ(at32->gpus, 32);
  EXPECT_EQ(at32->weak_scaled_from, 16);  // log2 distance 1 (16) against 2 + 0.5 (a release's 128)
  EXPECT_EQ(at32->tp, 2);
  EXPECT_EQ(at32->global_batch, 64);
  EXPECT_EQ(at32->DataParallel(), 8);
  EXPECT_NE(at32->source.find("from 16"), std::string::npos) << at32->source;
  // 64: 16 is 2 away, the release's 128 is 1 + 0.5.
  auto at64 = WeakScaledParallelism(*spec, "h100", "bf16", 64);
  ASSERT_TRUE(at64.ok());
  EXPECT_EQ(at64->weak_scaled_from, 128);
  EXPECT_EQ(at64->global_batch, 128);
  auto at256 = WeakScaledParallelism(*spec, "h100", "bf16", 256);
  ASSERT_TRUE(at256.ok());
  EXPECT_EQ(at256->weak_scaled_from, 128);
  EXPECT_EQ(at256->tp, 4);
  EXPECT_EQ(at256->global_batch, 512);
  EXPECT_FALSE(WeakScaledParallelism(*spec, "h100", "fp8", 64).ok());  // no fp8 entry
  EXPECT_FALSE(WeakScaledParallelism(*spec, "b200", "bf16", 64).ok());
  EXPECT_FALSE(
      WeakScaledParallelism(*spec, "h100", "bf16", 6).ok());  // tp·pp = 4 does not divide 6
}

TEST(ModelSpecTest, WorkloadNamesAreOtherNamesOfTheModel) {
  auto spec =
      ParseModelSpec(Replace(kGood, "source = \"test\"\n\n[shape]",
                             "source = \"test\"\nworkload_names = [\"tiny_1b\"]\n\n[shape]"),
                     "tiny.toml");
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  ASSERT_EQ(spec->workload_names.size(), 1u);
  EXPECT_EQ(spec->workload_names[0], "tiny_1b");
  for (const char* bad : {"[]", "[\"a/b\"]", "[\"\"]", "\"tiny_1b\""}) {
    auto b = ParseModelSpec(
        Replace(kGood, "source = \"test\"\n\n[shape]",
                std::string("source = \"test\"\nworkload_names = ") + bad + "\n\n[shape]"),
        "tiny.toml");
    ASSERT_FALSE(b.ok()) << bad;
    EXPECT_NE(b.status().message().find("workload_names"), std::string::npos)
        << b.status().message();
  }
}

TEST(ModelSpecTest, MoeCountsActiveExpertsOnly) {
  std::string text = Replace(kGood, "architecture = \"dense\"", "architecture = \"moe\"");
  text = Replace(text, "[[parallelism]]",
                 "[moe]\nexperts = 8\ntop_k = 2\nexpert_ffn_hidden_size = 32\nshared_experts = 1\n"
                 "dense_layers = 1\nsource = \"test\"\n\n[[parallelism]]");
  auto spec = ParseModelSpec(text, "moe.toml");
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  auto c = CountParameters(*spec);
  ASSERT_TRUE(c.ok()) << c.status().message();
  double attn = 2 * 64 * 64 + 2 * 64 * 32, expert = 3 * 64 * 32, dense = 3 * 64 * 256;
  double common =
      2 * attn + dense + (expert + 64 * 8) + 2 * 1000 * 64;  // one MoE layer: shared + router
  EXPECT_DOUBLE_EQ(c->total, common + 8 * expert);
  EXPECT_DOUBLE_EQ(c->active, common + 2 * expert);
}

// Group-limited routing needs both figures, topk_groups within groups and groups dividing the
// experts; a dispatcher is read as given.
TEST(ModelSpecTest, MoeRoutingGroupsAndDispatcherAreReadStrictly) {
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

TEST(ModelSpecTest, MissingFiguresMakeArithmeticUnsupportedNotGuessed) {
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

TEST(ModelSpecTest, MalformedFilesNameTheFileKeyAndExpectation) {
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
TEST(ModelSpecTest, OutOfRangeNumbersNameTheFileKeyValueAndRange) {
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
TEST(ModelSpecTest, BatchProductsDoNotOverflow) {
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
TEST(ModelSpecTest, DuplicateParallelismRowsAreRejected) {
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
TEST(ModelSpecTest, EveryShippedEntryCarriesItsRelease) {
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

TEST(ModelSpecTest, EveryShippedModelLoadsAndCountsNearItsName) {
  auto specs = LoadModelSpecs(kModels);
  ASSERT_TRUE(specs.ok()) << specs.status().message();
  // name -> (total, active) parameters as the model cards state them, and our tolerance.
  struct Expect {
    const char* name;
    double total;
    double active;
    bool active_without_lookup = false;  // the figure leaves out the input embedding
  };
  const Expect expects[] = {
      {"llama3.1_8b", 8.03e9, 8.03e9},
      {"llama3.1_70b", 70.6e9, 70.6e9},
      {"llama3.1_405b", 405.9e9, 405.9e9},
      {"gpt_oss_120b", 116.8e9, 5.7e9},
      {"qwen3_235b", 235e9, 22e9},
      {"deepseek-v3_671b", 671e9, 37e9},
      {"nemotron-h_56b", 56e9, 56e9},
      // Families the published tables of v25.04-v25.05 name (release-tagged recipes only).
      {"grok1_314b", 314e9, 86e9},
      {"nemotron4_15b", 15.7e9, 15.7e9},
      {"nemotron4_340b", 340e9, 340e9},
      {"llama4-maverick_400b", 400e9, 17.2e9},
      // Families of the Megatron-Bridge and older dgxc-benchmarking tables (release-tagged only):
      // Qwen3-30B-A3B model card; Kimi K2 technical report (arXiv 2507.20534); GPT-3 (arXiv
      // 2005.14165).
      {"qwen3_30b_a3b", 30.5e9, 3.3e9},
      {"kimi-k2_1t", 1.04e12, 32.6e9},
      {"gpt3_175b", 175e9, 175e9},
      // Hybrid Mamba-2 / attention / MoE stacks: the Nemotron 3 Nano technical report (arXiv
      // 2512.20848: 31.6B total, 3.6B active with the embeddings); Super: NVIDIA's release page
      // (research.nvidia.com/labs/nemotron/Nemotron-3-Super: "12B active 120B total"), whose
      // active figure leaves the input embedding (0.5B) out.
      {"nemotron3_nano_30b_a3b", 31.6e9, 3.6e9},
      {"nemotron3_super_120b_a12b", 120e9, 12e9, true},
  };
  ASSERT_EQ(specs->size(), std::size(expects));
  for (const Expect& e : expects) {
    const ModelSpec* spec = Named(*specs, e.name);
    ASSERT_NE(spec, nullptr) << e.name;
    EXPECT_FALSE(spec->parallelism.empty()) << e.name;
    bool current = false;  // the current recipes run it (entries without a release)
    for (const Parallelism& p : spec->parallelism) current |= p.release.empty();
    // dgxc-benchmarking 841f546 publishes no H100 recipe of Kimi-K2 or Nemotron 3 120B.
    const std::string_view name = e.name;
    const bool no_h100 = name == "kimi-k2_1t" || name == "nemotron3_super_120b_a12b";
    for (const char* chip : {"h100", "b200", "gb200"}) {
      if (!current) break;
      if (no_h100 && std::string(chip) == "h100") continue;
      bool found = false;
      for (const Parallelism& p : spec->parallelism) found |= p.chip == chip;
      EXPECT_TRUE(found) << e.name << " has no " << chip << " parallelism";
    }
    auto c = CountParameters(*spec);
    ASSERT_TRUE(c.ok()) << e.name << ": " << c.status().message();
    EXPECT_NEAR(c->total / e.total, 1.0, 0.02) << e.name << " total " << c->total;
    const double active = e.active_without_lookup ? c->active_matmul : c->active;
    EXPECT_NEAR(active / e.active, 1.0, 0.03) << e.name << " active " << active;
    EXPECT_TRUE(TrainingFlopsPerToken(*spec).ok()) << e.name;
  }
  EXPECT_NEAR(CountParameters(*Named(*specs, "llama3.1_8b"))->total, 8.0e9, 0.1e9);
  EXPECT_NEAR(CountParameters(*Named(*specs, "llama3.1_70b"))->total, 70.6e9, 0.3e9);
}

// NVIDIA's published per-sample model FLOPs (the MFU numerators) come out of the shape within 2%:
// our convention (non-causal attention) for Llama 3.1 405B, Nemotron-H, Nemotron 3 Nano, Nemotron-4
// 15B and GPT-3 175B; the Grok-1 and Llama 4 recipes count the attention scores causally (half),
// which the files state.
TEST(ModelSpecTest, FlopsMatchNvidiasPublishedFigures) {
  auto specs = LoadModelSpecs(kModels);
  ASSERT_TRUE(specs.ok()) << specs.status().message();
  int checked = 0;
  for (const ModelSpec& s : *specs) {
    if (!s.reference) continue;
    auto f = TrainingFlopsPerToken(s);
    ASSERT_TRUE(f.ok()) << s.name;
    double per_sample = *f * s.shape.seq_length;
    if (s.name == "grok1_314b" || s.name == "llama4-maverick_400b") {
      auto a = AttentionOf(s);
      ASSERT_TRUE(a.ok());
      const double attention = 6.0 * s.shape.seq_length * a->heads * (a->qk_dim + a->v_dim) *
                               s.shape.layers * s.shape.seq_length;
      EXPECT_GT(per_sample / s.reference->model_flops_per_sample, 1.03) << s.name;
      per_sample -= attention / 2;  // causal
    }
    EXPECT_NEAR(per_sample / s.reference->model_flops_per_sample, 1.0, 0.02)
        << s.name << ": " << per_sample << " vs " << s.reference->model_flops_per_sample;
    ++checked;
  }
  // Llama 3.1 405B, Nemotron-H 56B, Nemotron-4 15B, Grok-1, Llama 4, GPT-3 175B, and Nemotron 3
  // Nano (the performance summary's own TFLOP/s over tokens/s: Mamba-2, attention and MoE layers)
  EXPECT_EQ(checked, 7);
}

// Nemotron 3's hybrid stacks: MoE layers beside Mamba-2 and attention need a [moe] table (and a
// [moe] table in a hybrid file needs moe_layers); LatentMoE's experts are narrower than the
// hidden size, so a latent_size shrinks the routed parameters and adds the two projections.
TEST(ModelSpecTest, HybridMoeLayersNeedAMoeTableAndLatentExpertsAreNarrower) {
  auto specs = LoadModelSpecs(kModels);
  ASSERT_TRUE(specs.ok()) << specs.status().message();
  const ModelSpec* super = Named(*specs, "nemotron3_super_120b_a12b");
  ASSERT_NE(super, nullptr);
  ASSERT_TRUE(super->moe.has_value());
  ModelSpec wide = *super;
  wide.moe->latent_size = 0;
  auto latent = CountParameters(*super);
  auto full = CountParameters(wide);
  ASSERT_TRUE(latent.ok() && full.ok());
  const double h = super->shape.hidden_size, l = super->moe->latent_size;
  const double per_expert = 2.0 * super->moe->expert_ffn_hidden_size;  // two matrices, not gated
  const double layers = super->hybrid->moe_layers, experts = super->moe->experts;
  EXPECT_NEAR(full->total - latent->total, layers * (experts * per_expert * (h - l) - 2 * h * l),
              1e3);

  const std::string nano = "models/nemotron3_nano_30b_a3b.toml";
  std::ifstream in(kModels + "/nemotron3_nano_30b_a3b.toml");
  std::stringstream buf;
  buf << in.rdbuf();
  const std::string text_value = buf.str();
  const std::string* text = &text_value;
  ASSERT_FALSE(text->empty());
  std::string no_moe = *text;
  no_moe.erase(no_moe.find("[moe]"), no_moe.find("[[parallelism]]") - no_moe.find("[moe]"));
  auto missing = ParseModelSpec(no_moe, nano);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("moe_layers 23 needs a [moe] table"), std::string::npos)
      << missing.status().message();
  std::string no_layers = *text;
  no_layers.replace(no_layers.find("mlp_layers = 0\nmoe_layers = 23"), 30,
                    "mlp_layers = 23\nmoe_layers = 0");
  auto stray = ParseModelSpec(no_layers, nano);
  ASSERT_FALSE(stray.ok());
  EXPECT_NE(stray.status().message().find("with no [hybrid] moe_layers"), std::string::npos)
      << stray.status().message();
}

}  // namespace
}  // namespace ys::predict
