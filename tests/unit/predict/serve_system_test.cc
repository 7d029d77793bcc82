// The serving system and constants (predict/serve_system.h): the chip's reference rates with
// --set laid over them, its HBM capacity, and the constants file or the built-in defaults.
#include "predict/serve_system.h"

#include <gtest/gtest.h>

#include <string>

namespace ys::predict {
namespace {

const std::string kServeSystemData = YS_SOURCE_DIR;

TEST(ServeSystem, LaysOverridesOverTheReferenceRates) {
  auto predictor = Predictor::Open(kServeSystemData);
  ASSERT_TRUE(predictor.ok());
  auto model = predictor->LoadModel("llama3.1_8b");
  auto chip = predictor->LoadChip("h200");
  ASSERT_TRUE(model.ok() && chip.ok());
  ServeSystemQuery q{.chip = "h200", .precision = "fp8", .layout = {1, 1, 1, 1, 0, 0}, .isl = 1024};
  q.rates.sets = {"hbm.bandwidth=2"};
  auto s = BuildServeSystem(*predictor, *model, *chip, q);
  ASSERT_TRUE(s.ok()) << s.status().message();
  // The driver's 143771 MiB (specs/h200.toml device_mib), not the datasheet's 141 decimal GB.
  EXPECT_DOUBLE_EQ(s->system.hbm_capacity_bytes, 143771.0 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(s->reference.hbm_capacity_bytes, 143771.0 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(s->system.rates.hbm_bytes_per_s, 2e12);
  EXPECT_GT(s->reference.rates.hbm_bytes_per_s, 2e12);
  q.rates.sets = {"hbm.bandwidth=nonsense"};
  EXPECT_FALSE(BuildServeSystem(*predictor, *model, *chip, q).ok());
}

TEST(ServeSystem, ConstantsFromTheFileOrTheDefaults) {
  auto file = LoadServeConstants(kServeSystemData);
  ASSERT_TRUE(file.ok()) << file.status().message();
  EXPECT_TRUE(file->calibration.has_value());
  EXPECT_EQ(file->path, kServeSystemData + "/calibration/serve_model.toml");
  auto none = LoadServeConstants(::testing::TempDir() + "/no-serve-data");
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->calibration.has_value());
  EXPECT_EQ(none->path.rfind("built-in defaults (no ", 0), 0u) << none->path;
  EXPECT_EQ(none->Expected("h200", "fp8", "dense").situation,
            ServeSituation::kNoServingCalibration);
  EXPECT_DOUBLE_EQ(none->constants.prefill_efficiency, ServeConstants{}.prefill_efficiency);
}

}  // namespace
}  // namespace ys::predict
