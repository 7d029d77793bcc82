// The JSON documents of `yardstick predict` (report/prediction_json.cc): a suite's predicted
// column keeps a workload's figures and verdict, leaves "phases" out when there are none, writes
// an unknown figure as null; the published table carries its statistics, leaves the
// leave-one-model-out figures out without --cv and names every fitted constant with --fit.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "report/prediction_report.h"

namespace ys::report {
namespace {

predict::WorkloadPrediction UnderWorkload() {
  predict::WorkloadPrediction w;
  w.workload.id = "llama3.1_70b_fp8";
  w.workload.dtype = "fp8";
  w.workload.gpus = 64;
  w.model_step_s = 2.5;
  w.reference_step_s = 2.0;
  w.predicted_step_s = 2.4;
  w.predicted_score = 0.8;
  w.under = true;
  w.why = "gemm.fp8 at 80% of the reference";
  return w;
}

TEST(PredictionJson, SuiteKeepsEachWorkloadsFiguresAndVerdict) {
  const std::vector<predict::WorkloadPrediction> rows{UnderWorkload()};
  const nlohmann::json j = SuitePredictionJson(rows, 0.9);
  EXPECT_DOUBLE_EQ(j.at("threshold").get<double>(), 0.9);
  ASSERT_EQ(j.at("workloads").size(), 1u);
  const auto& w = j.at("workloads")[0];
  EXPECT_EQ(w.at("workload"), "llama3.1_70b_fp8");
  EXPECT_EQ(w.at("gpus"), 64);
  EXPECT_DOUBLE_EQ(w.at("predicted_score").get<double>(), 0.8);
  EXPECT_DOUBLE_EQ(w.at("model_step_s").get<double>(), 2.5);
  EXPECT_TRUE(w.at("under").get<bool>());
  EXPECT_EQ(w.at("why"), "gemm.fp8 at 80% of the reference");
  EXPECT_TRUE(w.at("anchored_step_s").is_null());  // no anchor: null, not 0
  EXPECT_FALSE(j.contains("phases"));              // a training suite has no serving phases
}

TEST(PredictionJson, PublishedTableCarriesStatisticsAndFittedConstantsOnlyWhenAsked) {
  predict::ErrorTable t;
  t.fitted.rows = 12;
  t.fitted.median_abs = 0.05;
  t.held_out.rows = 4;
  t.held_out.p90_abs = 0.2;
  const nlohmann::json plain =
      PublishedJson(t, nullptr, "calibration/step_model.toml", "s", nullptr);
  EXPECT_EQ(plain.at("fitted").at("rows"), 12);
  EXPECT_EQ(plain.at("held_out").at("rows"), 4);
  EXPECT_EQ(plain.at("calibration"), "calibration/step_model.toml");
  EXPECT_FALSE(plain.contains("leave_one_model_out"));
  EXPECT_FALSE(plain.contains("fitted_constants"));

  predict::Constants k;
  predict::CrossValidation cv;
  cv.all.rows = 16;
  const nlohmann::json fitted = PublishedJson(t, &cv, "c.toml", "s", &k);
  EXPECT_EQ(fitted.at("leave_one_model_out").at("all").at("rows"), 16);
  const auto& constants = fitted.at("fitted_constants");
  ASSERT_EQ(constants.size(), predict::ConstantTable().size());
  for (const auto& info : predict::ConstantTable()) {
    EXPECT_DOUBLE_EQ(constants.at(info.name).get<double>(), k.*(info.field)) << info.name;
  }
}

}  // namespace
}  // namespace ys::report
