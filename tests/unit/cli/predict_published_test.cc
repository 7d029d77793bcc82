// `predict --published` (cli/predict_published.h) on the shipped baselines and calibration: the
// JSON document predicts every published row against its published step time and adds the
// fitted constants and the leave-one-model-out figures only when asked; a data directory without
// baselines is an error, not an empty table.
#include "cli/predict_published.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "core/exit_codes.h"

namespace ys::cli {
namespace {

const std::string kPublishedData = YS_SOURCE_DIR;

predict::StepCalibration ShippedStepCalibration() {
  auto cal = predict::LoadStepCalibration(kPublishedData + "/calibration/step_model.toml");
  EXPECT_TRUE(cal.ok()) << cal.status().message();
  return cal.ok() ? *cal : predict::StepCalibration{};
}

nlohmann::json PublishedDocument(const PublishedArgs& args) {
  ::testing::internal::CaptureStdout();
  auto rc = RunPublished(args, kPublishedData, ShippedStepCalibration());
  const std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_TRUE(rc.ok()) << rc.status().message();
  EXPECT_EQ(rc.ok() ? *rc : -1, kExitPass);
  return nlohmann::json::parse(out);
}

TEST(PredictPublishedTest, JsonPredictsEveryRowAndAddsOnlyWhatWasAsked) {
  const nlohmann::json plain = PublishedDocument({false, false, true});
  ASSERT_GT(plain.at("rows").size(), 0u);
  for (const auto& row : plain.at("rows")) {
    EXPECT_GT(row.at("published_step_time_s").get<double>(), 0);
    EXPECT_GT(row.at("step_time_s").get<double>(), 0);
  }
  EXPECT_EQ(plain.at("fitted").at("rows").get<int>() + plain.at("held_out").at("rows").get<int>(),
            static_cast<int>(plain.at("rows").size()));
  EXPECT_FALSE(plain.contains("fitted_constants"));
  EXPECT_FALSE(plain.contains("leave_one_model_out"));
}

TEST(PredictPublishedTest, DataWithoutBaselinesIsAnError) {
  ::testing::internal::CaptureStdout();
  auto rc =
      RunPublished({false, false, true}, "/nonexistent-published-data", ShippedStepCalibration());
  ::testing::internal::GetCapturedStdout();
  EXPECT_FALSE(rc.ok());
}

}  // namespace
}  // namespace ys::cli
