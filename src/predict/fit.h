// Calibration of the step-time model's fitted constants on published step times, and the error
// statistics the calibration is judged by.
//
// The fit minimises the mean of log(predicted / published)² over the rows given (a symmetric,
// scale-free error), by Nelder–Mead over the constants that ConstantTable() marks fitted, each
// kept inside its stated range. It is deterministic: the same rows and start give the same result.
//
// Thread safety: pure functions.
#ifndef YARDSTICK_PREDICT_FIT_H_
#define YARDSTICK_PREDICT_FIT_H_

#include <functional>
#include <string>
#include <vector>

#include "core/status.h"
#include "predict/step_model.h"

namespace ys::predict {

struct FitRow {
  std::string label;
  double published_s = 0;
  // The predicted step time under a set of constants.
  std::function<Result<double>(const Constants&)> predict;
};

// Nelder–Mead minimisation of `loss` from x0, the first simplex x0 + steps[i] along each axis;
// deterministic. A point outside the feasible set should return infinity.
std::vector<double> NelderMead(const std::function<double(const std::vector<double>&)>& loss,
                               std::vector<double> x0, const std::vector<double>& steps,
                               int iterations);

// Invalid when no row is given or a row cannot be predicted at the start.
Result<Constants> FitConstants(const std::vector<FitRow>& rows, const Constants& start);

struct ErrorStats {
  int rows = 0;
  double median_abs = 0;  // median of |predicted / published − 1|
  double p90_abs = 0;     // nearest-rank 90th percentile of the same
};
ErrorStats SummariseErrors(const std::vector<double>& errors);

// Which published rows the fit never sees: those whose workload id ("llama3.1_8b_bf16") has an
// FNV-1a 32-bit hash divisible by 3. Fixed before any fit was run; by workload id, so that every
// chip, GPU count and release of a held-out workload is held out together.
bool HeldOut(const std::string& workload_id);

}  // namespace ys::predict

#endif  // YARDSTICK_PREDICT_FIT_H_
