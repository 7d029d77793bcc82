// The step-time predictor behind one door. Every question about a predicted step (`predict`, the
// predicted curve of `scaling`, `validate --predict`) goes through a Predictor, which holds the
// pipeline once:
//
//   1. the data: calibration/step_model.toml (Open), a model file of models/ (LoadModel), a chip
//      of specs/ (LoadChip), a release's constants from calibration/releases.toml (Release);
//   2. the recipe: the model file's [[parallelism]] entry a query names, with the query's fields
//      laid over it (BuildRecipe, RecipeQuery);
//   3. the rates: the reference system's (predict/step_rates.h ReferenceRates), with measured
//      documents' rates and --set overrides laid over them (Rates, RateInputs);
//   4. the step and its breakdown (predict/step_model.h PredictStep) and the what-ifs, each
//      measured rate put back to the reference (predict/rate_what_if.h) (PredictAt; Predict is
//      Rates then PredictAt);
//   5. where a published row of the same model and chip exists in the release or an older one,
//      the anchored figure (predict/anchor.h) (AnchorOn).
//
// A new recipe property is a field of workloads::Parallelism (predict/model_spec.h), read from the
// model file's [[parallelism]] entry (predict/model_spec.cc) and used by the step model
// (predict/step_flops.cc, step_model.cc); one a caller may set too is a field of
// predict/recipe_overrides.h. Nothing outside this folder changes. The published error table
// (predict/suite/published_predictions.h) and the release fit (predict/release_calibration.h) call
// the step model directly: they vary its constants.
//
// Thread safety: a Predictor is used by one thread (AnchorOn loads the release tables once).
#ifndef YARDSTICK_PREDICT_PREDICTOR_H_
#define YARDSTICK_PREDICT_PREDICTOR_H_

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bench/device_specs.h"
#include "core/run_document.h"
#include "core/status.h"
#include "predict/anchor.h"
#include "predict/model_spec.h"
#include "predict/rate_what_if.h"
#include "predict/recipe_overrides.h"
#include "predict/release_calibration.h"
#include "predict/release_choice.h"
#include "predict/step_calibration.h"
#include "predict/step_model.h"

namespace ys::predict {

// Which [[parallelism]] entry of a model file a recipe starts from.
enum class RecipeEntry {
  // The current recipes' entry for the chip, dtype and `gpus`, else a release's
  // (workloads::FindParallelism).
  kForGpus,
  // First the entry of `release` at the overrides' global batch (workloads::FindRecipe: a
  // suite's workload, a published row), then the entry for `gpus` of the newest release at or
  // before `release` (`predict --release`: the recipe that release ran), then as kForGpus.
  kOfRelease,
  // An entry of the current recipes only (where the file has none for the chip and dtype, of the
  // newest release, at or before `release` when given): the one for `gpus`, or with no `gpus` the
  // smallest (the base a weak-scaling curve grows).
  kCurrentBase,
};

struct RecipeQuery {
  std::string chip;
  std::string dtype;  // the step model's number format: bf16, fp8, nvfp4
  std::optional<int> gpus;
  RecipeEntry entry = RecipeEntry::kForGpus;
  std::string release;  // kOfRelease
  // With no entry (and none to scale) and a global batch given: the overrides over
  // tp = pp = cp = ep = 1 and micro-batch 1 (a recipe given on the command line).
  bool bare_without_entry = false;
  // With no entry for `gpus`: the chip's and dtype's entry at the nearest other GPU count, data
  // parallelism scaled (workloads::WeakScaledParallelism), as the published recipes grow.
  bool weak_scaling = false;
  RecipeOverrides overrides;
};

// The rates laid over the reference system's.
struct RateInputs {
  std::vector<std::pair<std::string, const RunDocument*>> measured;  // (path, document)
  // A document that gives none of the recipe's rates is passed over (validate --predict) rather
  // than an error (predict --measured).
  bool skip_unusable_documents = false;
  std::vector<std::string> sets;  // --set assignments (predict/step_rates.h ApplyRateOverride)
};

struct PredictionRates {
  predict::SystemRates reference;     // the reference system's rates under the constants
  predict::SystemRates rates;         // the reference with the inputs laid over
  std::vector<std::string> measured;  // each rate a document gave, one line
};

struct Prediction : PredictionRates {
  predict::StepPrediction step;              // at `rates`
  std::vector<predict::RateWhatIf> what_if;  // each differing rate put back, largest first
  Status what_if_status;                     // why `what_if` could not be ranked
};

class Predictor {
 public:
  // calibration/step_model.toml under `data_dir`.
  static Result<Predictor> Open(const std::string& data_dir);

  const std::string& data_dir() const { return data_dir_; }
  const predict::StepCalibration& calibration() const { return cal_; }

  // <data>/models/<model>.toml, else the model file whose [model] workload_names lists `model`
  // (a suite's "nemotron_3_120b"), or the file `model` names when it holds a '/' or ends in .toml.
  std::string ModelPath(const std::string& model) const;
  // Invalid naming --model and the path when models/ has no such file.
  Result<predict::ModelSpec> LoadModel(const std::string& model) const;
  // <data>/specs/<chip>.toml.
  Result<bench::DeviceSpec> LoadChip(const std::string& chip) const;

  // The release whose constants answer for `chip` (empty `release`: the newest calibrated).
  Result<predict::ReleaseChoice> ChooseRelease(const std::string& release,
                                               const std::string& chip) const;
  // The base constants with the chosen release's for the chip and precision.
  predict::Constants ConstantsOf(const predict::ReleaseChoice& choice, const std::string& chip,
                                 const std::string& precision) const;
  // The two above for a --release, --chip and --dtype; Invalid for an unknown precision or a
  // release that is not a tag.
  Result<ReleaseConstantsChoice> Release(const std::string& release, const std::string& chip,
                                         const std::string& precision) const;

  // The release-to-release spread of the published tables (predict/release_spread.h), which
  // Release attaches to its choice.
  Result<predict::ReleaseSpread> Spread() const;

  // The recipe of `model` (borrowed: it must outlive the recipe) that `q` names. NotFound with the
  // lookup's message when the file has no such entry (and the query allows no bare recipe).
  Result<predict::Recipe> BuildRecipe(const predict::ModelSpec& model, const RecipeQuery& q) const;

  // The chip's reference rates under `k`.
  Result<predict::SystemRates> ReferenceRates(const bench::DeviceSpec& chip,
                                              const predict::Constants& k) const;
  // The chip's reference rates under `k` with `in` laid over; Invalid for a document that gives
  // none of the recipe's rates (unless skipped) or a bad --set.
  Result<PredictionRates> Rates(const predict::Recipe& recipe, const bench::DeviceSpec& chip,
                                const predict::Constants& k, const RateInputs& in) const;
  // The step of `recipe` at `rates` under `k`, its breakdown and the what-ifs; the step model's
  // status when it cannot lay the recipe out.
  Result<Prediction> PredictAt(const predict::Recipe& recipe, PredictionRates rates,
                               const predict::Constants& k) const;
  // Rates, then PredictAt.
  Result<Prediction> Predict(const predict::Recipe& recipe, const bench::DeviceSpec& chip,
                             const predict::Constants& k, const RateInputs& in) const;

  // The anchored figure of a prediction `predicted_s` of `recipe` at `precision` under the chosen
  // release: nullopt when no release is calibrated for the chip or no row of the release is near.
  // The anchor's row lives as long as this Predictor.
  Result<std::optional<predict::Anchor>> AnchorOn(const ReleaseConstantsChoice& chosen,
                                                  const std::string& precision,
                                                  const predict::Recipe& recipe,
                                                  double predicted_s);

 private:
  std::string data_dir_;
  predict::StepCalibration cal_;
  std::shared_ptr<const predict::ReleaseSet> release_rows_;  // loaded by the first AnchorOn
};

}  // namespace ys::predict

#endif  // YARDSTICK_PREDICT_PREDICTOR_H_
