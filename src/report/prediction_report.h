// Console and JSON renderings of `yardstick predict`: one recipe's predicted step with its
// breakdown (compute, each exposed communication, bubble, optimizer: they add up to the total),
// tokens/s/GPU and MFU, the rates used and where each came from, and the what-if ranking of
// measured shortfalls; and the error table over the published rows.
//
// Thread safety: pure functions.
#ifndef YARDSTICK_REPORT_PREDICTION_REPORT_H_
#define YARDSTICK_REPORT_PREDICTION_REPORT_H_

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "predict/rate_what_if.h"
#include "predict/serve_phase_prediction.h"
#include "predict/step_model.h"
#include "predict/suite/published_predictions.h"
#include "predict/suite/suite_prediction.h"

namespace ys::report {

struct PredictionView {
  const predict::Recipe* recipe = nullptr;
  const predict::StepPrediction* prediction = nullptr;
  const predict::SystemRates* rates = nullptr;
  std::string calibration_path;
  std::vector<std::string> measured;  // what --measured gave, one line each
  std::vector<predict::RateWhatIf> what_if;
};

// The breakdown rows in order: compute, each exposed comm term, bubble, optimizer.
struct BreakdownRow {
  std::string name;
  double seconds = 0;
  std::string detail;
};
std::vector<BreakdownRow> Breakdown(const predict::StepPrediction& p);

std::string PredictionConsole(const PredictionView& v);
nlohmann::json PredictionJson(const PredictionView& v);

std::string ErrorTableConsole(const predict::ErrorTable& t);
// Leave-one-model-out figures: per family and over every row.
std::string CrossValidationConsole(const predict::CrossValidation& cv);
// `predict --published --json`: the error table's rows and statistics, "leave_one_model_out"
// when `cv` is given, the calibration file and split, and "fitted_constants" when `fitted` is.
nlohmann::json PublishedJson(const predict::ErrorTable& t, const predict::CrossValidation* cv,
                             const std::string& calibration, const std::string& split,
                             const predict::Constants* fitted);

// `validate --predict`: the predicted column beside each workload of a suite; the JSON has the
// serving phases' predictions as "phases" when there are any (predict/serve_phase_prediction.h;
// their console is report/phase_prediction_console.h).
std::string SuitePredictionConsole(const std::vector<predict::WorkloadPrediction>& rows,
                                   double threshold);
nlohmann::json SuitePredictionJson(const std::vector<predict::WorkloadPrediction>& rows,
                                   double threshold,
                                   const std::vector<predict::PhasePrediction>& phases = {});

// The constants as the [constants] table of calibration/step_model.toml.
std::string ConstantsToml(const predict::Constants& c);

}  // namespace ys::report

#endif  // YARDSTICK_REPORT_PREDICTION_REPORT_H_
