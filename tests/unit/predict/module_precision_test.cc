// A low-precision recipe's GEMMs in other formats: the modules its quantisation config names
// (module_precision) and the layers it keeps in bf16 at the ends of the stack (bf16_layers), as
// Nemotron 3 Super's NVFP4 recipe sets both; how the step model prices them; and the published
// rows that run that recipe.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>

#include "predict/model_spec.h"
#include "predict/release_calibration.h"
#include "predict/release_cases.h"
#include "predict/step_calibration.h"
#include "predict/step_flops.h"
#include "predict/step_model.h"

namespace ys::predict {
namespace module_precision_test {
namespace {

const std::string kData = YS_SOURCE_DIR;
constexpr const char* kSuperNvfp4 = "attn:bf16+latent:bf16+mtp:bf16+mamba_out:fp8";

TEST(ModulePrecisionTest, PairsNameAModulesFormat) {
  EXPECT_EQ(ModulePrecision(kSuperNvfp4, "attn"), "bf16");
  EXPECT_EQ(ModulePrecision(kSuperNvfp4, "mamba_out"), "fp8");
  EXPECT_EQ(ModulePrecision(kSuperNvfp4, "mamba_in"), "");
  EXPECT_EQ(ModulePrecision("", "attn"), "");
  EXPECT_EQ(CheckModulePrecision(""), "");
  EXPECT_EQ(CheckModulePrecision(kSuperNvfp4), "");
  for (const char* bad : {"attn", "attn:", "attn:bf8", "router:bf16", "attn:bf16+", ":bf16"})
    EXPECT_NE(CheckModulePrecision(bad), "") << bad;
}

// The published cases, loaded once: their recipes (the model file's entries with the rows' stated
// fields) and their chips' reference rates.
const predict::ReleaseSet& Set() {
  static const predict::ReleaseSet* set = [] {
    auto cal = predict::LoadStepCalibration(predict::StepCalibrationPath(kData));
    EXPECT_TRUE(cal.ok()) << cal.status().message();
    auto s = predict::ReleaseSet::Load(kData, *cal);
    EXPECT_TRUE(s.ok()) << s.status().message();
    return new predict::ReleaseSet(std::move(*s));
  }();
  return *set;
}

// Nemotron 3 Super's NVFP4 row of 26.04.01 on GB300 (64 GPUs, ep 64, 2 MTP modules).
const predict::ReleaseCase& SuperGb300() {
  for (const predict::ReleaseCase& c : Set().cases()) {
    if (c.model_name == "nemotron3_super_120b_a12b" && c.precision == "nvfp4" &&
        c.row.chip == "gb300" && c.row.release == "26.04.01")
      return c;
  }
  ADD_FAILURE() << "no 26.04.01 GB300 NVFP4 row of Nemotron 3 Super";
  return Set().cases().front();
}

Recipe SuperRecipe(const std::string& dtype, int bf16_layers, const std::string& modules) {
  Recipe r = SuperGb300().recipe;
  r.dtype = dtype;
  r.par.bf16_layers = bf16_layers;
  r.par.module_precision = modules;
  return r;
}

// Each GEMM group carries its format and its share in the bf16 layers; the LM head (logits and
// the MTP heads) keeps the recipe's format, and a bf16 recipe has nothing to change.
TEST(ModulePrecisionTest, TheGroupsCarryTheirFormats) {
  const ModelSpec* spec = SuperGb300().model;
  auto w = ComputeStepWork(SuperRecipe("nvfp4", 14, kSuperNvfp4));
  ASSERT_TRUE(w.ok()) << w.status().message();
  std::map<std::string, const GemmGroup*> g;
  for (const GemmGroup& x : w->gemms) g[x.name] = &x;
  const double share = 14.0 / spec->shape.layers;
  const std::map<std::string, std::pair<std::string, double>> expected = {
      {"attention", {"bf16", share}}, {"latent_projections", {"bf16", share}},
      {"mamba_out", {"fp8", share}},  {"mamba_in", {"", share}},
      {"experts", {"", share}},       {"shared_experts", {"", share}},
      {"mtp", {"bf16", 0}},           {"logits", {"", 0}},
      {"mtp_heads", {"", 0}}};
  for (const auto& [name, want] : expected) {
    ASSERT_TRUE(g.count(name)) << name;
    EXPECT_EQ(g[name]->format, want.first) << name;
    EXPECT_DOUBLE_EQ(g[name]->bf16_share, want.second) << name;
  }
  auto bf16 = ComputeStepWork(SuperRecipe("bf16", 14, kSuperNvfp4));
  ASSERT_TRUE(bf16.ok());
  for (const GemmGroup& x : bf16->gemms) {
    EXPECT_EQ(x.format, "") << x.name;
    EXPECT_EQ(x.bf16_share, 0) << x.name;
  }
}

// A GEMM's time per FLOP is the layers' mix of the two rates, so the GEMM time is linear in the
// layers kept in bf16; a module moved to bf16 costs more than one moved to fp8, which costs more
// than nvfp4.
TEST(ModulePrecisionTest, TheGemmTimeFollowsTheFormats) {
  const SystemRates& rates = SuperGb300().rates;
  Constants c;
  auto gemm = [&](int bf16_layers, const std::string& modules) {
    auto p = PredictStep(SuperRecipe("nvfp4", bf16_layers, modules), rates, c);
    EXPECT_TRUE(p.ok()) << p.status().message();
    return p.ok() ? p->gemm_s : 0.0;
  };
  const int layers = SuperGb300().model->shape.layers;
  const double none = gemm(0, ""), half = gemm(layers / 2, ""), all = gemm(layers, "");
  EXPECT_GT(all, none * 1.3);
  EXPECT_NEAR(half, (none + all) / 2, 1e-9 * all);
  EXPECT_NEAR(gemm(layers + 10, ""), all, 1e-9 * all);  // more than the stack: every layer
  const double attn_fp8 = gemm(0, "attn:fp8"), attn_bf16 = gemm(0, "attn:bf16");
  EXPECT_GT(attn_fp8, none);
  EXPECT_GT(attn_bf16, attn_fp8);
  // A bf16 recipe ignores both.
  auto plain = PredictStep(SuperRecipe("bf16", 0, ""), rates, c);
  auto fields = PredictStep(SuperRecipe("bf16", 14, kSuperNvfp4), rates, c);
  ASSERT_TRUE(plain.ok() && fields.ok());
  EXPECT_DOUBLE_EQ(plain->step_time_s, fields->step_time_s);
}

// Nemotron 3 Super's published NVFP4 rows (Megatron-Bridge 26.04 and 26.04.01) run the recipe that
// keeps the last 14 layers and the attention, latent and MTP GEMMs in bf16: each row's recipe
// carries it, and the calibrated constants predict the rows closer with it than without.
TEST(ModulePrecisionTest, SuperNvfp4RowsRunTheirRecipesFormats) {
  auto cal = predict::LoadStepCalibration(predict::StepCalibrationPath(kData));
  ASSERT_TRUE(cal.ok()) << cal.status().message();
  auto releases = predict::LoadReleaseCalibration(kData);
  ASSERT_TRUE(releases.ok()) << releases.status().message();
  int rows = 0;
  double with_sum = 0, without_sum = 0;
  for (const predict::ReleaseCase& c : Set().cases()) {
    if (c.model_name != "nemotron3_super_120b_a12b" || c.precision != "nvfp4") continue;
    ++rows;
    const std::string where = c.row.file + ":" + std::to_string(c.row.line);
    EXPECT_EQ(c.recipe.par.bf16_layers, 14) << where;
    EXPECT_EQ(c.recipe.par.module_precision, kSuperNvfp4) << where;
    const predict::ReleaseChoice choice =
        predict::ChooseRelease(*releases, c.row.release, c.row.chip);
    ASSERT_TRUE(choice.chip.has_value()) << where;
    predict::ReleaseCase plain = c;
    plain.recipe.par.bf16_layers = 0;
    plain.recipe.par.module_precision.clear();
    auto plain_work = predict::ComputeStepWork(plain.recipe);  // the work follows the recipe
    ASSERT_TRUE(plain_work.ok()) << where;
    plain.work = std::move(*plain_work);
    auto with = predict::PredictReleaseCase(c, cal->constants, *choice.chip);
    auto without = predict::PredictReleaseCase(plain, cal->constants, *choice.chip);
    ASSERT_TRUE(with.ok() && without.ok()) << where;
    EXPECT_GT(*with, *without) << where;
    with_sum += std::abs(std::log(*with / c.row.step_time_s));
    without_sum += std::abs(std::log(*without / c.row.step_time_s));
  }
  EXPECT_GE(rows, 8);
  EXPECT_LT(with_sum, without_sum * 0.8);
}

}  // namespace
}  // namespace module_precision_test
}  // namespace ys::predict
