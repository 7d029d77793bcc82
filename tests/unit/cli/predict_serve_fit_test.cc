// `predict --serve-fit`: the calibration file it writes reads back with every figure, and a data
// folder without the serving table is an error naming the path.
#include "cli/predict_serve_fit.h"

#include <gtest/gtest.h>

#include "predict/serve_calibration.h"

namespace ys::cli {
namespace {

TEST(PredictServeFitTest, WrittenCalibrationReadsBack) {
  predict::ServeFitData data;
  predict::ServeFitCase k;
  k.row.file = "trtllm_serving.tsv";
  data.cases.push_back(k);
  data.releases = {"v0.19.0", "v0.20.0"};
  predict::ServeCalibrationResult r;
  r.constants.prefill_efficiency = 0.4624;
  r.constants.decode_hbm_efficiency = 0.6216;
  r.constants.host_seconds_per_step = 0.00265;
  r.error.push_back({"h200", "fp8", "dense", {.rows = 177, .median_abs = 0.07, .p90_abs = 0.17}});
  r.error.push_back({"h200", "fp8", "moe", {.rows = 8, .median_abs = 1.04, .p90_abs = 1.34}});
  r.error.push_back(
      {"b200", "nvfp4", "dense", {.rows = 115, .median_abs = 0.647, .p90_abs = 1.154}});
  r.moe_any_chip = predict::ErrorStats{.rows = 13, .median_abs = 0.98, .p90_abs = 1.18};
  const std::string text = ServeCalibrationToml(data, r, "2026-01-02");
  auto cal = predict::ParseServeCalibration(text, "serve_model.toml");
  ASSERT_TRUE(cal.ok()) << cal.status().message() << "\n" << text;
  EXPECT_DOUBLE_EQ(cal->constants.prefill_efficiency, 0.4624);
  EXPECT_DOUBLE_EQ(cal->constants.decode_hbm_efficiency, 0.6216);
  EXPECT_DOUBLE_EQ(cal->constants.host_seconds_per_step, 0.00265);
  EXPECT_NE(cal->source.find("baselines/published/serving/trtllm_serving.tsv"), std::string::npos);
  EXPECT_NE(cal->source.find("2025-06-30"), std::string::npos);
  EXPECT_NE(cal->fitted_by.find("2026-01-02"), std::string::npos);
  ASSERT_EQ(cal->errors.size(), 3u);
  EXPECT_EQ(cal->errors[1].architecture, "moe");
  EXPECT_EQ(cal->errors[2].chip, "b200");
  EXPECT_EQ(cal->errors[2].architecture, "dense");
  EXPECT_EQ(cal->errors[2].rows, 115);
  EXPECT_DOUBLE_EQ(cal->errors[2].p90, 1.154);
  ASSERT_TRUE(cal->moe_any_chip.has_value());
  EXPECT_EQ(cal->moe_any_chip->rows, 13);
  EXPECT_NE(cal->errors[0].source.find("v0.19.0, v0.20.0"), std::string::npos);
}

TEST(PredictServeFitTest, MissingTableNamesThePath) {
  auto code = RunServeFit("/nonexistent/serve-fit-data", false);
  ASSERT_FALSE(code.ok());
  EXPECT_NE(code.status().message().find("/nonexistent/serve-fit-data"), std::string::npos)
      << code.status().message();
}

}  // namespace
}  // namespace ys::cli
