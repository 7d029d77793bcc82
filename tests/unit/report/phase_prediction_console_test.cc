// The serving phases' predictions on the console (report/phase_prediction_console.h): a
// predicted phase's figures, score and why, each reference figure and the expected error; a
// phase without a prediction shows its reason and no number.
#include "report/phase_prediction_console.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ys::report {
namespace {

std::vector<predict::PhasePrediction> TwoPredictedPhases() {
  predict::PhasePrediction a;
  a.id = "dsr1_chat";
  a.point = "concurrency 64";
  a.output_tokens_per_s_per_gpu = 1234.5;
  a.output_tokens_per_s = 9876;
  a.tokens_per_s_per_user = 20;
  a.ttft_s = 0.25;
  a.tpot_s = 0.05;
  a.metrics.push_back({"output_tokens_per_s_per_gpu", "output throughput", "tok/s/GPU", 1000,
                       1234.5, 0.9, 900, true});
  a.predicted_score = 0.9;
  a.under = true;
  a.why = "output throughput 90.0%; largest term of TPOT: decode_weights (60%)";
  a.expected_error = predict::ServeExpectedError{};
  predict::PhasePrediction b;
  b.id = "dsr1_disagg";
  b.point = "concurrency 2048";
  b.reason = "no model file models/x.toml";
  return {a, b};
}

TEST(ServingPredictionReport, TableRowsAndCount) {
  const std::string out = ServingPredictionConsole(TwoPredictedPhases(), 0.95, false);
  EXPECT_NE(out.find("1234.5"), std::string::npos) << out;
  EXPECT_NE(out.find("50.00"), std::string::npos) << out;  // TPOT in ms
  EXPECT_NE(out.find("90.0%  UNDER: output throughput 90.0%"), std::string::npos) << out;
  EXPECT_NE(out.find("reference 1000.00 tok/s/GPU, predicted 900.00 (score 90.0%, UNDER); the "
                     "model's own 1234.50 (123.5% of the reference)"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("expected error: unknown"), std::string::npos) << out;
  EXPECT_NE(out.find("no model file models/x.toml"), std::string::npos) << out;
  EXPECT_NE(out.find("predicted: 1 of 2 serving phases under 95%"), std::string::npos) << out;
  EXPECT_EQ(out.find("by construction"), std::string::npos) << out;
  EXPECT_NE(ServingPredictionConsole({}, 0.95, true).find("100% by construction"),
            std::string::npos);
}

TEST(ServingPredictionReport, BlockBesideAPhase) {
  const auto phases = TwoPredictedPhases();
  const std::string a = ServingPredictionBlock(phases[0], "  ");
  EXPECT_EQ(a.rfind("  predicted at concurrency 64: 1234.5 tok/s/GPU, TTFT 0.250 s, TPOT 50.00 ms, "
                    "20.0 tok/s/user; score 90.0%: UNDER: ",
                    0),
            0u)
      << a;
  EXPECT_NE(a.find("\n    output throughput"), std::string::npos) << a;
  EXPECT_EQ(ServingPredictionBlock(phases[1], "  "),
            "  predicted: none: no model file models/x.toml\n");
}

}  // namespace
}  // namespace ys::report
