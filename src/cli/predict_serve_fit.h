// `yardstick predict --serve-fit [--data DIR] [--write]`: the serving model's calibration
// (predict/serve_fit.h) over the published serving table of <data>/baselines/published/serving/:
// per chip and precision the rows and the leave-one-model-out median and p90 of |predicted /
// published − 1|, the constants fitted on every row, the worst held-out misses. With --write,
// <data>/calibration/serve_model.toml is rewritten with those constants and errors
// (predict/serve_calibration.h reads it back).
//
// Thread safety: one thread.
#ifndef YARDSTICK_CLI_PREDICT_SERVE_FIT_H_
#define YARDSTICK_CLI_PREDICT_SERVE_FIT_H_

#include <CLI/CLI.hpp>
#include <string>

#include "core/status.h"
#include "predict/serve_fit.h"

namespace ys::cli {

struct ServeFitArgs {
  bool fit = false;    // --serve-fit
  bool write = false;  // --write
};

// --serve-fit and --write on `predict` (--data is predict's own).
void AddServeFitOptions(CLI::App& sub, ServeFitArgs* a);

// The text of calibration/serve_model.toml for `result` over `data`: a comment saying what the
// file holds, [provenance] (the table, the cut-off, the command and `date`), [constants] and one
// [[error]] per chip and precision.
std::string ServeCalibrationToml(const predict::ServeFitData& data,
                                 const predict::ServeCalibrationResult& result,
                                 const std::string& date);

// Fits, prints, and with `write` rewrites the calibration file; the exit code, or the Status of
// input that cannot be read (naming the path).
Result<int> RunServeFit(const std::string& data_flag, bool write);

}  // namespace ys::cli

#endif  // YARDSTICK_CLI_PREDICT_SERVE_FIT_H_
