// Calibration of the serving model (serve_model.h) on published max-throughput figures
// (serve_published.h), and the held-out error of each chip and precision.
//
// Fitted: prefill_efficiency, decode_hbm_efficiency, host_seconds_per_step, allreduce_latency_s,
// decode_seconds_per_layer, decode_overlap_share and runtime_reserved_bytes, by Nelder–Mead (fit.h)
// minimising the mean of |log(predicted / published)| output tokens/s over the rows given (a median
// is flat between rows and stalls the simplex); kv_memory_share and max_batch keep their start
// values. Each row is predicted as an offline run (ServeLoad{isl, osl, max_throughput}) on
// ServeLayout{gpus, tp, pp, ep} of its chip.
//
// CalibrateServe fits:
// - one set on every row: the constants of a chip and precision without rows of their own;
// - one set per chip and precision whose rows cover two models or more, on those rows.
// Held-out errors:
// - per chip, precision and architecture (dense or MoE models), leave one model out: each model's
//   rows predicted by constants fitted without it (within the chip's rows where it has its own
//   set, else over every row); and over every chip's MoE rows (moe_any_chip);
// - other_chip, leave one chip out: each chip and precision's rows predicted by constants fitted
//   on the other chips' rows — the error of a chip taking constants it was never fitted on.
// Deterministic: the same rows and start give the same constants and errors.
//
// Thread safety: pure functions.
#ifndef YARDSTICK_PREDICT_SERVE_FIT_H_
#define YARDSTICK_PREDICT_SERVE_FIT_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "predict/fit.h"
#include "predict/model_spec.h"
#include "predict/serve_calibration.h"
#include "predict/serve_model.h"
#include "predict/serve_published.h"

namespace ys::predict {

// One published row with what predicting it needs; `model` is borrowed and must outlive the case.
// `work`: the model's work at the row's dtype, computed once for every evaluation of the fit
// (absent: computed on each prediction). The batch cap of the benchmark's engine
// (serve_engine_settings.h) is the serving model's own at max throughput.
struct ServeFitCase {
  ServePublishedRow row;
  const ModelSpec* model = nullptr;
  ServeSystem system;
  std::optional<ServeWork> work;
};

// The case's predicted output tokens/s of the whole run (over row.gpus), under `c`.
Result<double> PredictServeCase(const ServeFitCase& k, const ServeConstants& c);

// Invalid when no case is given or none can be predicted from `start`. A case PredictServe refuses
// at some constants counts as a miss of a factor e² (|log| = 2) there.
Result<ServeConstants> FitServeConstants(const std::vector<ServeFitCase>& cases,
                                         const ServeConstants& start);

struct ServeRowError {
  const ServeFitCase* k = nullptr;
  double predicted = 0;  // output tokens/s, total
  double error = 0;      // predicted / published − 1
};

struct ServeHeldOutError {
  std::string chip, dtype;
  std::string architecture;  // ServeArchitecture of the rows' models: "dense" or "moe"
  ErrorStats stats;  // of |predicted / published − 1| over the chip's rows of that dtype and class
};

struct ServeCalibrationResult {
  ServeConstants constants;                // fitted on every case
  std::vector<ServeChipConstants> chips;   // fitted on one chip and dtype's cases
  std::vector<ServeHeldOutError> error;    // leave-one-model-out, by chip, dtype, architecture
  std::optional<ErrorStats> moe_any_chip;  // leave-one-model-out over every chip's MoE rows
  std::vector<ServeRowError> rows;         // every leave-one-model-out prediction
  std::optional<ErrorStats> other_chip;    // leave-one-chip-out over every chip and dtype
  std::vector<ServeRowError> other_chip_rows;
  std::vector<std::string> unpredicted;  // "file:line: why" of cases PredictServe refused
};

// The fits and held-out errors above. Invalid as FitServeConstants, or when fewer than two models
// have cases.
Result<ServeCalibrationResult> CalibrateServe(const std::vector<ServeFitCase>& cases,
                                              const ServeConstants& start);

// The published rows of <data>/baselines/published/serving/ as cases: each row's model from
// models/, its chip's reference system (specs/ and calibration/step_model.toml, as `predict
// --serve` builds it with no --measured or --set) and its engine's batch cap. Rows whose model or
// chip has no file are listed in `skipped`, never predicted. Move-only: the cases borrow `models`.
struct ServeFitData {
  std::string table_dir;
  std::vector<std::unique_ptr<ModelSpec>> models;
  std::vector<ServeFitCase> cases;
  std::vector<std::string> skipped;   // "file:line: why"
  std::vector<std::string> releases;  // of the cases, in order of first appearance
};
// Invalid when the table folder, a model file or a chip file that exists cannot be read.
Result<ServeFitData> LoadServeFitData(const std::string& data_dir);

}  // namespace ys::predict

#endif  // YARDSTICK_PREDICT_SERVE_FIT_H_
