// `yardstick predict --published` (cli/predict_published.h): the error table over the published
// rows of baselines/ with --fit and --cv, then the per-release tables of
// baselines/published/*.tsv: leave-one-model-out per release and chip, the next release from the
// previous one's constants, and the rows of releases after the calibration. The recipe and
// serving predictions stay in cli/cmd_predict.cc and cli/predict_serve.cc.
#include "cli/predict_published.h"

#include <fmt/format.h>

#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/exit_codes.h"
#include "predict/later_releases.h"
#include "predict/release_calibration.h"
#include "predict/release_cases.h"
#include "predict/suite/published_predictions.h"
#include "report/prediction_report.h"

namespace ys::cli {
namespace {

// "rows median p90" of anchored answers, or "-" where no row had an anchor.
std::string AnchoredColumns(const predict::ErrorStats& s) {
  if (s.rows == 0) return fmt::format("{:>8}", "-");
  return fmt::format("{:>8} {:>7.1f}% {:>7.1f}%", s.rows, 100 * s.median_abs, 100 * s.p90_abs);
}

// Why a published row gets no prediction (validate::ReleaseSet::skipped).
constexpr const char* kNotPredictedBecause =
    "no model file, no calibration for the chip, a layout the step model cannot lay out or a "
    "feature it does not know";

// The later rows no answer was given for: how much of a table the step model covers is part of
// what its errors mean.
void PrintNotPredicted(const std::vector<std::string>& rows) {
  if (rows.empty()) return;
  std::cout << "  not predicted: " << rows.size() << " row(s) (" << kNotPredictedBecause
            << "; in none of the figures above)\n";
  for (const std::string& why : rows) std::cout << "    " << why << "\n";
}

// Rows of releases newer than every release a fit may read, as `predict --release` answers them
// (predict/later_releases.h): per release, chip and precision, and per row.
Status PrintLaterReleases(const predict::ReleaseSet& set, const std::string& data,
                          const predict::StepCalibration& cal) {
  auto releases = predict::LoadReleaseCalibration(data);
  if (!releases.ok()) return releases.status();
  auto later = predict::PredictLaterReleases(set, *releases, cal.constants);
  if (!later.ok()) return later.status();
  std::cout
      << "\nreleases after " << predict::kNewestFittableRelease
      << " (never fitted; each row predicted as `predict --release TAG` answers it, with "
         "the constants of the newest release calibration/releases.toml calibrates for its "
         "chip, and anchored on the nearest row of the same model and chip in that release or, "
         "where it has none, the newest older release with one): ";
  if (later->rows.empty() && later->not_predicted.empty()) {
    std::cout << "no rows in baselines/published/*.tsv\n";
    return Status::Ok();
  }
  std::cout << "|error|\n";
  std::cout << fmt::format("  {:<10} {:<10} {:<6} {:<7} {:>5} {:>8} {:>8}   {:>8} {:>8} {:>8}\n",
                           "release", "using", "chip", "prec.", "rows", "median", "p90", "anchored",
                           "median", "p90");
  for (const predict::LaterCell& c : later->cells) {
    std::cout << fmt::format("  {:<10} {:<10} {:<6} {:<7} {:>5} {:>7.1f}% {:>7.1f}%   {}\n",
                             c.release, c.used.empty() ? "-" : c.used, c.chip, c.precision,
                             c.plain.rows, 100 * c.plain.median_abs, 100 * c.plain.p90_abs,
                             AnchoredColumns(c.anchored));
  }
  for (const predict::LaterRow& r : later->rows) {
    const predict::PublishedRow& w = r.c->row;
    const double published = w.step_time_s;
    std::string line = fmt::format(
        "  {}:{} {} {} {} {}, {} GPUs, GBS {}: published {:.3f} s, predicted {:.3f} s ({:+.1f}%)",
        w.file, w.line, w.release, w.chip, r.c->model_name, w.precision, w.gpus, w.gbs, published,
        r.predicted_s, 100 * (r.predicted_s / published - 1));
    if (r.anchor) {
      line += fmt::format(", anchored {:.3f} s ({:+.1f}%) on {}:{}", r.anchor->anchored_s,
                          100 * r.anchor->ErrorAgainst(published), r.anchor->row->row.file,
                          r.anchor->row->row.line);
    }
    std::cout << line << "\n";
  }
  PrintNotPredicted(later->not_predicted);
  return Status::Ok();
}

// The per-release calibration over baselines/published/*.tsv: the leave-one-model-out table
// per release, chip and precision, and with --fit the constants as calibration/releases.toml.
Result<int> RunReleases(const PublishedArgs& a, const std::string& data,
                        const predict::StepCalibration& cal) {
  auto set = predict::ReleaseSet::Load(data, cal);
  if (!set.ok()) return set.status();
  auto lomo = predict::LeaveOneModelOutByRelease(*set, cal);
  if (!lomo.ok()) return lomo.status();
  std::cout << "\nper release (baselines/published/*.tsv, " << set->cases().size()
            << " rows predicted, " << set->skipped().size() << " not (" << kNotPredictedBecause
            << ")): leave-one-model-out |error| (each model predicted by the release's constants "
               "fitted without it)\n";
  std::cout << fmt::format("  {:<10} {:<6} {:<7} {:>5} {:>8} {:>8}\n", "release", "chip", "prec.",
                           "rows", "median", "p90");
  for (const predict::LomoCell& c : *lomo) {
    std::cout << fmt::format("  {:<10} {:<6} {:<7} {:>5} {:>7.1f}% {:>7.1f}%\n", c.release, c.chip,
                             c.precision, c.stats.rows, 100 * c.stats.median_abs,
                             100 * c.stats.p90_abs);
  }
  auto forward = predict::NextReleaseForward(*set, cal);
  if (!forward.ok()) return forward.status();
  std::cout << "\nnext release (each release's rows predicted with the constants of the newest "
               "calibrated release before it, fitted on that release and older ones; anchored: "
               "the rows with a row of the same model and chip in that release or an older one, "
               "anchored on the nearest row of the newest such release): |error|\n";
  std::cout << fmt::format("  {:<10} {:<10} {:<6} {:<7} {:>5} {:>8} {:>8}   {:>8} {:>8} {:>8}\n",
                           "release", "from", "chip", "prec.", "rows", "median", "p90", "anchored",
                           "median", "p90");
  for (const predict::ForwardCell& c : *forward) {
    std::cout << fmt::format("  {:<10} {:<10} {:<6} {:<7} {:>5} {:>7.1f}% {:>7.1f}%   {}\n",
                             c.release, c.from, c.chip, c.precision, c.stats.rows,
                             100 * c.stats.median_abs, 100 * c.stats.p90_abs,
                             AnchoredColumns(c.anchored));
  }
  YS_RETURN_IF_ERROR(PrintLaterReleases(*set, data, cal));
  if (a.fit) {
    auto fitted = predict::FitReleases(*set, cal);
    if (!fitted.ok()) return fitted.status();
    predict::AttachMeasuredErrors(*fitted, *lomo, *forward);
    std::cout << "\nfitted (for " << data << "/calibration/releases.toml):\n"
              << predict::ReleaseCalibrationToml(*fitted);
  }
  return kExitPass;
}

}  // namespace

Result<int> RunPublished(const PublishedArgs& a, const std::string& data,
                         const predict::StepCalibration& cal) {
  auto set = predict::PublishedSet::Load(data);
  if (!set.ok()) return set.status();
  predict::Constants k = cal.constants;
  if (a.fit) {
    auto fitted = predict::FitPublished(*set, cal);
    if (!fitted.ok()) return fitted.status();
    k = *fitted;
  }
  auto table = predict::EvaluatePublished(*set, cal, k);
  if (!table.ok()) return table.status();
  std::optional<predict::CrossValidation> cv;
  if (a.cv) {
    auto folds = predict::LeaveOneModelOut(*set, cal);
    if (!folds.ok()) return folds.status();
    cv = std::move(*folds);
  }
  if (a.json) {
    nlohmann::json j = report::PublishedJson(*table, cv ? &*cv : nullptr, cal.path, cal.split,
                                             a.fit ? &k : nullptr);
    std::cout << j.dump(2) << "\n";
    return kExitPass;
  }
  std::cout << report::ErrorTableConsole(*table);
  std::cout << "split: " << cal.split << "\n";
  if (cv) std::cout << report::CrossValidationConsole(*cv);
  if (a.fit) std::cout << "\nfitted (for " << cal.path << "):\n" << report::ConstantsToml(k);
  return RunReleases(a, data, cal);
}

}  // namespace ys::cli
