// The predictor's one door (predict/predictor.h): which [[parallelism]] entry a query names, the
// recipe laid over it, the model and chip files it reads, and a prediction that is the step
// model's at the reference rates with the inputs laid over, with the what-ifs of what differs.
#include "predict/predictor.h"

#include <gtest/gtest.h>

#include "predict/model_library.h"
#include "predict/published_table.h"

namespace ys::predict {
namespace {

const std::string kPredictorData = YS_SOURCE_DIR;

Predictor OpenShipped() {
  auto p = Predictor::Open(kPredictorData);
  EXPECT_TRUE(p.ok()) << p.status().message();
  return std::move(*p);
}

TEST(PredictorTest, RecipeEntriesFollowTheQuery) {
  Predictor p = OpenShipped();
  auto model = p.LoadModel("llama3.1_8b");
  ASSERT_TRUE(model.ok()) << model.status().message();
  // llama3.1_8b has a current h100 bf16 entry at 128 GPUs (dgxc-benchmarking v26.06.01's) and
  // release v25.04.02's at 8 ... 128.
  auto current = p.BuildRecipe(*model, {.chip = "h100", .dtype = "bf16", .gpus = 128});
  ASSERT_TRUE(current.ok()) << current.status().message();
  EXPECT_TRUE(current->par.current);
  EXPECT_EQ(current->par.release, "v26.06.01");
  auto of_release = p.BuildRecipe(*model, {.chip = "h100", .dtype = "bf16", .gpus = 8});
  ASSERT_TRUE(of_release.ok()) << of_release.status().message();
  EXPECT_EQ(of_release->par.release, "v25.04.02");
  auto base =
      p.BuildRecipe(*model, {.chip = "h100", .dtype = "bf16", .entry = RecipeEntry::kCurrentBase});
  ASSERT_TRUE(base.ok()) << base.status().message();
  EXPECT_EQ(base->par.gpus, 128);
  EXPECT_EQ(base->layers, model->shape.layers);
  EXPECT_EQ(base->seq, model->shape.seq_length);
  auto no_current = p.BuildRecipe(
      *model, {.chip = "h100", .dtype = "bf16", .gpus = 8, .entry = RecipeEntry::kCurrentBase});
  EXPECT_EQ(no_current.status().code(), StatusCode::kNotFound);
}

// The release is part of the recipe: `predict --release R` runs the entry of the newest release at
// or before R for the GPU count; without a release (and without a current entry) the newest.
// Qwen3 30B-A3B on 8 B200 has entries of 25.09, 25.11, 26.02, 26.02.01, 26.04 and 26.04.01.
TEST(PredictorTest, AReleaseRunsTheRecipeOfThatRelease) {
  Predictor p = OpenShipped();
  auto model = p.LoadModel("qwen3_30b_a3b");
  ASSERT_TRUE(model.ok()) << model.status().message();
  auto of = [&](const std::string& release) {
    RecipeQuery q{.chip = "b200", .dtype = "fp8", .gpus = 8};
    if (!release.empty()) {
      q.entry = RecipeEntry::kOfRelease;
      q.release = release;
    }
    auto r = p.BuildRecipe(*model, q);
    EXPECT_TRUE(r.ok()) << r.status().message();
    return r.ok() ? r->par : predict::Parallelism{};
  };
  EXPECT_EQ(of("26.02").release, "26.02");
  EXPECT_EQ(of("26.02").moe_dispatcher, "alltoall");
  EXPECT_EQ(of("26.03").release, "26.02.01");  // no table of 26.03: the newest before it
  EXPECT_EQ(of("26.03").moe_dispatcher, "deepep");
  EXPECT_EQ(of("26.06").release, "26.04.01");
  EXPECT_EQ(of("").release, "26.04.01");        // no current entry: the newest release's
  EXPECT_EQ(of("v24.11").release, "26.04.01");  // older than every entry: as without a release
  // The base of a scaling curve: no current entry, so the newest release's (at or before the
  // release asked for).
  for (const auto& [release, want] : {std::pair{"", "26.04.01"}, {"26.02", "26.02"}}) {
    auto base = p.BuildRecipe(
        *model,
        {.chip = "b200", .dtype = "fp8", .entry = RecipeEntry::kCurrentBase, .release = release});
    ASSERT_TRUE(base.ok()) << base.status().message();
    EXPECT_EQ(base->par.release, want);
  }
}

TEST(PredictorTest, OverridesAndTheBareRecipe) {
  Predictor p = OpenShipped();
  auto model = p.LoadModel("llama3.1_8b");
  ASSERT_TRUE(model.ok()) << model.status().message();
  RecipeQuery q{.chip = "h100", .dtype = "bf16", .gpus = 24};
  EXPECT_EQ(p.BuildRecipe(*model, q).status().code(), StatusCode::kNotFound);
  q.bare_without_entry = true;
  EXPECT_EQ(p.BuildRecipe(*model, q).status().code(), StatusCode::kNotFound);  // no --gbs
  q.overrides.global_batch = 96;
  q.overrides.tp = 2;
  q.overrides.seq = 4096;
  q.overrides.moe_a2a_overlap = true;
  auto r = p.BuildRecipe(*model, q);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->par.source, "command line");
  EXPECT_EQ(r->par.gpus, 24);
  EXPECT_EQ(r->par.micro_batch, 1);
  EXPECT_EQ(r->par.tp, 2);
  EXPECT_EQ(r->par.global_batch, 96);
  EXPECT_TRUE(r->par.moe_a2a_overlap);
  EXPECT_EQ(r->seq, 4096);
}

TEST(PredictorTest, AMissingModelNamesThePath) {
  Predictor p = OpenShipped();
  auto m = p.LoadModel("no_such_model");
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find(kPredictorData + "/models/no_such_model.toml"),
            std::string::npos);
  EXPECT_FALSE(Predictor::Open(kPredictorData + "/no_such_dir").ok());
}

TEST(PredictorTest, APredictionIsTheStepModelsAtTheLaidOverRates) {
  Predictor p = OpenShipped();
  auto model = p.LoadModel("llama3.1_8b");
  ASSERT_TRUE(model.ok()) << model.status().message();
  auto r = p.BuildRecipe(*model, {.chip = "h100", .dtype = "bf16", .gpus = 128});
  ASSERT_TRUE(r.ok()) << r.status().message();
  auto chip = p.LoadChip("h100");
  ASSERT_TRUE(chip.ok()) << chip.status().message();
  auto chosen = p.Release("", "h100", "bf16");
  ASSERT_TRUE(chosen.ok()) << chosen.status().message();
  auto at_reference = p.Predict(*r, *chip, chosen->constants, {});
  ASSERT_TRUE(at_reference.ok()) << at_reference.status().message();
  auto direct = predict::PredictStep(*r, at_reference->reference, chosen->constants);
  ASSERT_TRUE(direct.ok());
  EXPECT_EQ(at_reference->step.step_time_s, direct->step_time_s);
  EXPECT_TRUE(at_reference->what_if.empty());
  auto slow = p.Predict(*r, *chip, chosen->constants, {.sets = {"hbm.bandwidth=1TB/s"}});
  ASSERT_TRUE(slow.ok()) << slow.status().message();
  EXPECT_GT(slow->step.step_time_s, at_reference->step.step_time_s);
  ASSERT_EQ(slow->what_if.size(), 1u);
  EXPECT_EQ(slow->what_if[0].key, "hbm.bandwidth");
  EXPECT_FALSE(p.Predict(*r, *chip, chosen->constants, {.sets = {"hbm.bandwidth"}}).ok());
  EXPECT_FALSE(p.Release("", "h100", "fp7").ok());
  EXPECT_FALSE(p.Release("latest", "h100", "bf16").ok());
}

TEST(ModelLibraryTest, FindsModelsAndChipsByName) {
  auto lib = ModelLibrary::Load(kPredictorData);
  ASSERT_TRUE(lib.ok()) << lib.status().message();
  ModelLibrary moved = std::move(*lib);
  ASSERT_NE(moved.Model("llama3.1_405b"), nullptr);
  EXPECT_EQ(moved.Model("llama3.1_405b")->name, "llama3.1_405b");
  ASSERT_NE(moved.Chip("h100"), nullptr);
  EXPECT_EQ(moved.Chip("h100")->chip, "h100");
  EXPECT_EQ(moved.Model("no_such_model"), nullptr);
  EXPECT_EQ(moved.Chip("h1000"), nullptr);
  EXPECT_FALSE(ModelLibrary::Load(kPredictorData + "/no_such_dir").ok());
}

}  // namespace
}  // namespace ys::predict
