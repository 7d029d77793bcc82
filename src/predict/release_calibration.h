// Per-release constants of the step model (calibration/releases.toml): a software release moves
// step times by 10-40% on the same hardware and recipe, so each release carries a few of the
// model's efficiencies per chip, fitted only from that release's published rows
// (predict/release_cases.h) and never keyed to a model or a row:
//   gemm_<precision>  the share of the precision's dense peak a large GEMM sustains in that
//                     release's training step on that chip, its quantisation kernels included
//                     (bf16, fp8_cs current scaling, fp8_ds delayed scaling, mxfp8, nvfp4);
//   tp_exposed        the share of the tensor-, context- and pipeline-parallel transfers the step
//                     waits for (the release's overlap of them);
//   moe_dispatch_passes  HBM traffic of a MoE layer's token dispatch (its permute, sort and
//                     combine kernels), in tensors of top_k × hidden × 2 bytes.
// The fit minimises the mean squared log error of the release's rows on the chip plus a prior:
// each constant's squared log distance from the chip's pooled fit (all calibrated releases'
// rows, itself drawn toward calibration/step_model.toml) weighs as kPriorRows rows, so that a
// release with few rows of a chip (or none of a precision) stays near the pooled figure. A
// constant whose informing rows come from fewer than kMinModelsPerConstant models is not fitted
// at all (it keeps the prior): fitted on one model's rows it would be keyed to that model. Rows
// marked `anomaly` and releases after kNewestFittableRelease are never fitted. A release is
// calibrated for a chip when its rows cover at least kMinModels models.
//
// Thread safety: values only.
#ifndef YARDSTICK_PREDICT_RELEASE_CALIBRATION_H_
#define YARDSTICK_PREDICT_RELEASE_CALIBRATION_H_

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "predict/fit.h"
#include "predict/release_cases.h"
#include "predict/step_calibration.h"

namespace ys::predict {

inline constexpr double kPriorRows = 1.0;
inline constexpr int kMinModels = 3;
// A constant is fitted only where the rows that inform it (the precision's rows for its GEMM
// share, rows with tensor, context or pipeline parallelism for tp_exposed, MoE rows for the
// dispatch traffic) come from at least this many models; else it keeps the prior.
inline constexpr size_t kMinModelsPerConstant = 2;

// The precisions a release keeps a GEMM efficiency for, in file order.
inline constexpr const char* kPrecisions[] = {"bf16", "fp8_cs", "fp8_ds", "mxfp8", "nvfp4"};

struct ChipConstants {
  std::string chip;
  int rows = 0, models = 0;
  std::map<std::string, double> gemm;  // by precision: achieved share of its dense peak
  double tp_exposed = 0;
  double moe_dispatch_passes = 0;
  std::string fitted_from;  // "mxfp8 9, nvfp4 2": rows per precision (the rest is the prior)
  // How far answers were from this release's published step times on the chip (predict
  // --published --fit; rows 0: not measured): `lomo`, each model predicted by the release's
  // constants fitted without it (what an unanchored answer about this release can expect);
  // `next`, every row predicted by the previous calibrated release's constants, and `anchored`,
  // those answers anchored on the rows of their model in that release (what an unanchored and an
  // anchored answer about a release after this one can expect; not measured for the chip's
  // first release).
  predict::ErrorStats lomo, next, anchored;
};

struct ReleaseConstants {
  std::string release;
  std::vector<ChipConstants> chips;
  const ChipConstants* Chip(std::string_view chip) const;
};

struct ReleaseCalibration {
  std::string path;
  std::string tables;                      // which tables and releases the fit read
  std::vector<ReleaseConstants> releases;  // oldest first
};

// The base constants with a release's for one chip and precision: the GEMM efficiency of the
// precision's dtype, tp_exposed and moe_dispatch_passes; the Blackwell factor folded in
// (blackwell_efficiency 1, the attention efficiency times the old factor), since the release's
// GEMM shares are of the chip's own peak.
predict::Constants ApplyRelease(const predict::Constants& base, const ChipConstants& chip,
                                std::string_view precision, bool blackwell);

// The base calibration's constants as a chip's (GEMM shares of the chip's own peak): what a chip
// no release is calibrated for is predicted with, and the prior of its pooled fit.
ChipConstants BaseChipConstants(const predict::Constants& base, std::string_view chip,
                                bool blackwell);

// Which release's constants answer a question about `release` (empty: the newest calibrated) on
// `chip`: the newest calibrated release for the chip at or before it; before every one, the
// oldest. Where no release is calibrated for the chip and `constants_from` names its sibling
// (step_calibration.h ChipSystem), the sibling's choice, with `from` set. `note` says when the
// answer is not the release (or chip) asked for; `chip` is empty when no release is calibrated for
// either (then the base constants apply).
struct ReleaseChoice {
  std::string asked;
  std::string used;                   // the calibrated release whose constants apply ("" none)
  std::optional<ChipConstants> chip;  // its constants for the chip (or for `from`)
  std::string from;                   // the sibling chip whose constants these are ("" own)
  std::string note;
};
ReleaseChoice ChooseRelease(const ReleaseCalibration& cal, std::string_view release,
                            std::string_view chip, std::string_view constants_from = "");
// The newest release of the file ("" when none).
std::string NewestRelease(const ReleaseCalibration& cal);

// Fits every release × chip with rows of at least kMinModels models.
Result<ReleaseCalibration> FitReleases(const ReleaseSet& set, const StepCalibration& cal);

// The step time of a case under a chip's release constants.
Result<double> PredictReleaseCase(const ReleaseCase& c, const predict::Constants& base,
                                  const ChipConstants& k);

// Leave-one-model-out: for each calibrated release × chip and each model of its rows, the pooled
// prior and the release's constants fitted without that model, and the model's rows predicted
// with them. One cell per release × chip × precision, and one per release × chip ("all").
struct LomoCell {
  std::string release, chip, precision;
  predict::ErrorStats stats;
};
Result<std::vector<LomoCell>> LeaveOneModelOutByRelease(const ReleaseSet& set,
                                                        const StepCalibration& cal);

// The next release from the previous one's constants: for each calibrated release × chip after
// the chip's first, its rows predicted with the constants of the newest calibrated release before
// it, fitted (and their pooled prior) on rows of that release and older ones only. What an
// operator gets who asks about a release newer than the calibration. One cell per release × chip
// × precision, and one per release × chip ("all"); `anchored`: the same rows' answers anchored
// on the nearest row of the same model and chip in the older release or, where it has none, the
// newest release before it with one, for the rows that have one.
struct ForwardCell {
  std::string release, from, chip, precision;
  predict::ErrorStats stats, anchored;
};
Result<std::vector<ForwardCell>> NextReleaseForward(const ReleaseSet& set,
                                                    const StepCalibration& cal);

// Sets each chip's lomo, next and anchored errors from the "all" cells of the two tables.
void AttachMeasuredErrors(ReleaseCalibration& cal, const std::vector<LomoCell>& lomo,
                          const std::vector<ForwardCell>& forward);

std::string ReleaseCalibrationToml(const ReleaseCalibration& cal);
Result<ReleaseCalibration> ParseReleaseCalibration(std::string_view text, const std::string& path);
// <data>/calibration/releases.toml
Result<ReleaseCalibration> LoadReleaseCalibration(const std::string& data_dir);

}  // namespace ys::predict

#endif  // YARDSTICK_PREDICT_RELEASE_CALIBRATION_H_
