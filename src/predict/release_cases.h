// The published rows of baselines/published/*.tsv (predict/published_table.h) made predictable:
// each row paired with its model file (models/<model>.toml; a "_proxy" model is the same file at
// the row's layer count), its chip's specs/ file and reference rates, and a step-model recipe
// built from the row's own recipe fields laid over the model file's entry of the same release,
// chip, dtype, GPU count and global batch where one exists (which adds what the tables do not
// state: an unfused attention core, a recompute the preset names). Rows of a model without a
// file, a chip without specs/, or a layout the step model refuses (an expert group that does not
// fit a pipeline stage) are listed as skipped, not an error: the tables hold more models than
// models/.
//
// Releases are ordered by their numbers (a leading "v" ignored): dgxc-benchmarking v25.05.05
// (May 2025, NeMo 25.04) sorts before NeMo 25.09, as its software does.
//
// Thread safety: a loaded set is read-only.
#ifndef YARDSTICK_PREDICT_RELEASE_CASES_H_
#define YARDSTICK_PREDICT_RELEASE_CASES_H_

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "bench/device_specs.h"
#include "core/status.h"
#include "predict/model_library.h"
#include "predict/model_spec.h"
#include "predict/published_table.h"
#include "predict/step_calibration.h"
#include "predict/step_model.h"

namespace ys::predict {

// The newest release whose tables a fit may read; a later one is never fitted (its tables judge
// predictions of a release newer than every calibrated one).
inline constexpr const char* kNewestFittableRelease = "26.04.01";

// The release's numbers ("v25.05.05" → 25, 5, 5); comparison is lexicographic on them, and
// between two tags of the same numbers (NeMo "26.02.01", dgxc-benchmarking "v26.02.01") on the
// text, so that the order is total and a tag is only ever "at or before" itself.
std::vector<int> ReleaseNumbers(std::string_view release);
bool ReleaseBefore(std::string_view a, std::string_view b);

// Among the model file's entries that `keep` accepts, those of the newest release at or before
// `up_to` (every release when empty; an entry without a release is the current recipe, as new as
// any), the one `cost` ranks lowest, the earlier on a tie; nullptr when none is accepted.
const predict::Parallelism* NewestEntry(
    const predict::ModelSpec& model, std::string_view up_to,
    const std::function<bool(const predict::Parallelism&)>& keep,
    const std::function<double(const predict::Parallelism&)>& cost);

// The model file's entry whose software features (dispatcher, token drop, all-to-all overlap, CUDA
// graphs, recompute, MTP, attention kernel, FSDP, expert TP 1) a row without an entry of its own
// release takes: the chip's entries of the newest release at or before the row's, the row's dtype
// before another (the features of a release's recipes rarely differ by precision), then the
// nearest GPU count and global batch. nullptr when there is none: a feature holds from the release
// that brought it, never before it.
const predict::Parallelism* FeatureDonor(const predict::ModelSpec& model, const PublishedRow& row,
                                         std::string_view dtype);
// The recipe of a row: the model file's entry of the row's release (if any), else the row's
// layout with the donor's features, with the row's stated fields over it.
predict::Recipe RecipeOfRow(const PublishedRow& row, const predict::ModelSpec& model);

struct ReleaseCase {
  PublishedRow row;
  std::string model_name;                     // models/ name: the row's model less "_proxy"
  std::string precision;                      // CalibratedPrecision(row.precision)
  const predict::ModelSpec* model = nullptr;  // owned by the set
  predict::Recipe recipe;
  predict::SystemRates rates;  // reference rates, chip efficiency 1 (see ApplyRelease)
  // ComputeStepWork(recipe), once: the fits predict the case many times. Whoever changes the
  // recipe computes it again.
  StepWork work;
  bool blackwell = false;
  std::string constants_from;  // the chip's sibling (step_calibration.h ChipSystem)
};

// A published row the step model cannot predict: no model file for its model, no specs/ or
// calibration entry for its chip, a layout it cannot lay out, or a feature name it does not know
// (PublishedRow::unsupported).
struct SkippedRow {
  std::string release;
  std::string why;  // "file:line: why"
};

class ReleaseSet {
 public:
  // Invalid when a table, a model file or specs/ cannot be read, or a chip lacks calibration.
  static Result<ReleaseSet> Load(const std::string& data_dir, const StepCalibration& cal);
  const std::vector<ReleaseCase>& cases() const { return cases_; }
  const std::vector<SkippedRow>& skipped() const { return skipped_; }

 private:
  predict::ModelLibrary library_;
  std::vector<ReleaseCase> cases_;
  std::vector<SkippedRow> skipped_;
};

}  // namespace ys::predict

#endif  // YARDSTICK_PREDICT_RELEASE_CASES_H_
