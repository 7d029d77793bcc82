// The console renderings of `yardstick predict` (report/prediction_report.h): a suite's predicted
// column names its release, marks a workload under the threshold with why and shows "-" for a
// figure it has not, and counts those under; the leave-one-model-out table gives each family's
// figures in percent; the fitted constants come out as a [constants] table, one line each.
#include "report/prediction_report.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ys::report {
namespace {

std::vector<predict::WorkloadPrediction> ConsoleSuiteRows() {
  predict::WorkloadPrediction under;
  under.workload.id = "llama3.1_70b_fp8";
  under.workload.dtype = "fp8";
  under.workload.gpus = 64;
  under.model_step_s = 2.5;
  under.predicted_score = 0.8;
  under.under = true;
  under.why = "gemm.fp8 slow";
  under.release = "25.09";
  predict::WorkloadPrediction none;
  none.workload.id = "nemotron_15b_bf16";
  none.why = "no model file";
  return {under, none};
}

TEST(PredictionReportTest, SuiteColumnMarksWhatIsUnderAndCountsIt) {
  const std::string out = SuitePredictionConsole(ConsoleSuiteRows(), 0.9);
  EXPECT_EQ(out.rfind("# 25.09\n", 0), 0u) << out;
  EXPECT_NE(out.find("80.0%  UNDER: gemm.fp8 slow"), std::string::npos) << out;
  EXPECT_NE(out.find("2.500"), std::string::npos) << out;
  EXPECT_NE(out.find("-  no model file"), std::string::npos) << out;  // no score: "-", not 0
  EXPECT_NE(out.find("predicted: 1 of 2 workloads under 90%"), std::string::npos) << out;
}

TEST(PredictionReportTest, CrossValidationGivesEachFamilyInPercent) {
  predict::CrossValidation cv;
  predict::FamilyFold fold;
  fold.family = "llama";
  fold.stats.rows = 3;
  fold.stats.median_abs = 0.05;
  fold.stats.p90_abs = 0.125;
  cv.folds.push_back(fold);
  cv.all = fold.stats;
  const std::string out = CrossValidationConsole(cv);
  EXPECT_NE(out.find("llama"), std::string::npos) << out;
  EXPECT_NE(out.find("5.0%"), std::string::npos) << out;
  EXPECT_NE(out.find("12.5%"), std::string::npos) << out;
  EXPECT_NE(out.find("all families: 3 rows, median |error| 5.0%, 90th percentile 12.5%"),
            std::string::npos)
      << out;
}

TEST(PredictionReportTest, ConstantsTomlHasOneLinePerConstant) {
  const predict::Constants k;
  const std::string out = ConstantsToml(k);
  EXPECT_EQ(out.rfind("[constants]\n", 0), 0u);
  size_t lines = 0;
  for (char ch : out) lines += ch == '\n';
  EXPECT_EQ(lines, 1 + predict::ConstantTable().size());
  for (const auto& info : predict::ConstantTable()) {
    EXPECT_NE(out.find(std::string("\n") + info.name + " = "), std::string::npos) << info.name;
  }
}

}  // namespace
}  // namespace ys::report
