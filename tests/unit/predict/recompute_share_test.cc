// Full recompute of the first N layers of each pipeline chunk (Megatron's recompute_num_layers
// with recompute_method "block", as Megatron-Bridge's performance scripts set it): the share of
// layers recomputed, the FLOPs it adds, and the published rows that state it ("layers=N").
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "predict/model_spec.h"
#include "predict/release_cases.h"
#include "predict/step_calibration.h"
#include "predict/step_flops.h"

namespace ys::predict {
namespace recompute_share_test {
namespace {

const std::string kData = YS_SOURCE_DIR;

TEST(RecomputeShareTest, FullRecomputeOfNLayersCoversNOfEachChunk) {
  Parallelism p;
  p.recompute = "full";
  EXPECT_DOUBLE_EQ(RecomputedShare(p, 32, "mlp"), 1.0);
  EXPECT_DOUBLE_EQ(RecomputedShare(p, 32, "full"), 1.0);
  p.recompute_layers = 5;
  EXPECT_DOUBLE_EQ(RecomputedShare(p, 32, "mlp"), 5.0 / 32);
  EXPECT_DOUBLE_EQ(RecomputedShare(p, 32, "full"), 5.0 / 32);
  // 126 layers over pp 8 × vp 2 = 16 chunks of at most 8 layers: 2 of each recomputed.
  p.pp = 8;
  p.vp = 2;
  p.recompute_layers = 2;
  EXPECT_DOUBLE_EQ(RecomputedShare(p, 126, "moe"), 2.0 / 8);
  p.recompute_layers = 40;  // more than a chunk holds: every layer
  EXPECT_DOUBLE_EQ(RecomputedShare(p, 126, "moe"), 1.0);
  // Modules: all or nothing, and recompute_layers has no say outside "full".
  p.recompute = "moe+mlp";
  EXPECT_DOUBLE_EQ(RecomputedShare(p, 126, "moe"), 1.0);
  EXPECT_DOUBLE_EQ(RecomputedShare(p, 126, "core_attn"), 0.0);
  EXPECT_DOUBLE_EQ(RecomputedShare(p, 126, "full"), 0.0);
  p.recompute = "selective";
  EXPECT_DOUBLE_EQ(RecomputedShare(p, 126, "core_attn"), 1.0);
}

// Llama 3.1 8B at pp 1 recomputing 5 of its 32 layers: each weight costs 6 + 2 × 5/32 FLOPs a
// token instead of 8 (every layer) or 6 (none), the attention core 3 + 5/32 passes.
TEST(RecomputeShareTest, TheFlopsGrowWithTheShareRecomputed) {
  auto spec = LoadModelSpec(kData + "/models/llama3.1_8b.toml");
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  auto work = [&](const std::string& recompute, std::optional<int> n) {
    Recipe r;
    r.model = &*spec;
    r.par.chip = "h100";
    r.par.gpus = 8;
    r.par.micro_batch = 1;
    r.par.global_batch = 128;
    r.par.recompute = recompute;
    r.par.recompute_layers = n;
    r.layers = spec->shape.layers;
    r.seq = spec->shape.seq_length;
    r.dtype = "fp8";
    auto w = ComputeStepWork(r);
    EXPECT_TRUE(w.ok()) << w.status().message();
    std::map<std::string, double> flops;
    if (w.ok()) {
      for (const GemmGroup& g : w->gemms) flops[g.name] = g.flops_per_token;
      flops["core"] = w->attention_core_flops_per_token;
    }
    return flops;
  };
  auto none = work("none", std::nullopt), all = work("full", std::nullopt), five = work("full", 5);
  const double share = 5.0 / 32;
  for (const char* g : {"attention", "mlp"}) {
    EXPECT_NEAR(five[g], none[g] * (6 + 2 * share) / 6, 1e-9 * none[g]) << g;
    EXPECT_NEAR(all[g], none[g] * 8 / 6, 1e-9 * none[g]) << g;
  }
  EXPECT_NEAR(five["core"], none["core"] * (3 + share) / 3, 1e-9 * none["core"]);
  EXPECT_DOUBLE_EQ(five["logits"], none["logits"]);
}

// The published table's "layers=N" (NeMo 25.11's Llama 3 8B H100 preset: recompute_num_layers 5)
// is full recompute of N layers per chunk, not of every layer.
TEST(RecomputeShareTest, APublishedRowsLayersNIsFullRecomputeOfNLayers) {
  auto cal = predict::LoadStepCalibration(predict::StepCalibrationPath(kData));
  ASSERT_TRUE(cal.ok()) << cal.status().message();
  auto set = predict::ReleaseSet::Load(kData, *cal);
  ASSERT_TRUE(set.ok()) << set.status().message();
  int found = 0;
  for (const predict::ReleaseCase& c : set->cases()) {
    if (c.row.recompute.find("layers=") == std::string::npos) continue;
    ++found;
    EXPECT_EQ(c.recipe.par.recompute, "full") << c.row.file << ":" << c.row.line;
    ASSERT_TRUE(c.recipe.par.recompute_layers.has_value()) << c.row.file << ":" << c.row.line;
    EXPECT_EQ(c.row.recompute.substr(c.row.recompute.find("layers=") + 7),
              std::to_string(*c.recipe.par.recompute_layers));
  }
  EXPECT_GE(found, 1);
}

}  // namespace
}  // namespace recompute_share_test
}  // namespace ys::predict
