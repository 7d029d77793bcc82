// `yardstick predict` over the published rows of baselines/: every row paired with its model file
// (models/<workload id less the dtype>.toml), the [[parallelism]] entry of the row's release, chip,
// GPU count and global batch (FindRecipe), and the chip's specs/ file; predicted with the step
// model (predict/step_model.h) at the reference rates; the error table; the fit of the
// constants on the rows outside the held-out set (predict/fit.h HeldOut).
//
// Thread safety: a loaded set is read-only.
#ifndef YARDSTICK_PREDICT_SUITE_PUBLISHED_PREDICTIONS_H_
#define YARDSTICK_PREDICT_SUITE_PUBLISHED_PREDICTIONS_H_

#include <string>
#include <vector>

#include "bench/device_specs.h"
#include "core/status.h"
#include "predict/fit.h"
#include "predict/model_library.h"
#include "predict/model_spec.h"
#include "predict/step_calibration.h"
#include "predict/step_model.h"
#include "validate/reference.h"

namespace ys::predict {

struct PublishedCase {
  validate::Reference ref;
  const predict::ModelSpec* model = nullptr;  // owned by the set
  const bench::DeviceSpec* spec = nullptr;    // owned by the set
  predict::Recipe recipe;
  bool held_out = false;
};

class PublishedSet {
 public:
  // models/, specs/ and baselines/ under `data_dir`. Invalid naming the row and what is missing
  // (its model file, its release's parallelism, its chip's specs) for any published row that
  // cannot be predicted: every row must be.
  static Result<PublishedSet> Load(const std::string& data_dir);
  const std::vector<PublishedCase>& cases() const { return cases_; }

 private:
  predict::ModelLibrary library_;
  std::vector<PublishedCase> cases_;
};

Result<predict::StepPrediction> PredictCase(const PublishedCase& c, const StepCalibration& cal,
                                            const predict::Constants& k);

struct ErrorRow {
  const PublishedCase* c = nullptr;
  predict::StepPrediction prediction;
  double error = 0;  // predicted / published − 1
};
struct ErrorTable {
  std::vector<ErrorRow> rows;  // in the set's order
  predict::ErrorStats fitted, held_out;
};
Result<ErrorTable> EvaluatePublished(const PublishedSet& set, const StepCalibration& cal,
                                     const predict::Constants& k);

// The constants fitted on the rows outside the held-out set, starting from `cal`'s.
Result<predict::Constants> FitPublished(const PublishedSet& set, const StepCalibration& cal);

// Leave-one-model-out cross-validation: for each model family of the published rows (the
// reference's `model`: llama3.1, grok1, ...), the constants fitted on every other family's rows
// (the held-out split aside: every row not of the family), and that family's rows predicted with
// them. An estimate of the error on a model the calibration has never seen.
struct FamilyFold {
  std::string family;
  std::vector<double> errors;  // predicted / published − 1, in the set's order
  predict::ErrorStats stats;
};
struct CrossValidation {
  std::vector<FamilyFold> folds;
  predict::ErrorStats all;  // over every row, each predicted by its family's fold
};
Result<CrossValidation> LeaveOneModelOut(const PublishedSet& set, const StepCalibration& cal);

}  // namespace ys::predict

#endif  // YARDSTICK_PREDICT_SUITE_PUBLISHED_PREDICTIONS_H_
