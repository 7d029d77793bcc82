#include "predict/anchor.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>

namespace ys::predict {

std::string Anchor::Describe() const {
  const PublishedRow& w = row->row;
  std::string out =
      fmt::format("{}:{} ({} {} {} {}, {} GPUs, GBS {}, published {:.3f} s, predicted {:.3f} s)",
                  w.file, w.line, w.release, w.chip, w.model, w.precision, w.gpus, w.gbs,
                  w.step_time_s, row_predicted_s);
  if (!release.empty() && w.release != release) {
    out += fmt::format(
        " [release {} has no row of the model on the chip: the newest older release with one, "
        "whose speed-up since is not in this figure]",
        release);
  }
  return out;
}

const ReleaseCase* NearestRow(const ReleaseSet& set, const std::string& model,
                              const std::string& chip, const std::string& release,
                              const std::string& precision, const predict::Recipe& r) {
  // The newest release at or before `release` with a row of the model on the chip.
  const std::string* newest = nullptr;
  for (const ReleaseCase& c : set.cases()) {
    if (c.row.anomaly || c.model_name != model || c.row.chip != chip ||
        ReleaseBefore(release, c.row.release))
      continue;
    if (newest == nullptr || ReleaseBefore(*newest, c.row.release)) newest = &c.row.release;
  }
  if (newest == nullptr) return nullptr;
  const ReleaseCase* best = nullptr;
  double best_score = std::numeric_limits<double>::infinity();
  for (const ReleaseCase& c : set.cases()) {
    if (c.row.anomaly || c.model_name != model || c.row.chip != chip || c.row.release != *newest)
      continue;
    const double score = (c.precision == CalibratedPrecision(precision) ? 0 : 100) +
                         std::fabs(std::log2(static_cast<double>(r.par.gpus) / c.row.gpus)) +
                         std::fabs(std::log2(static_cast<double>(r.par.global_batch) / c.row.gbs)) +
                         std::fabs(std::log2(static_cast<double>(r.seq) / c.row.seq)) +
                         (c.recipe.layers == r.layers ? 0 : 10);
    if (score < best_score) {
      best_score = score;
      best = &c;
    }
  }
  return best;
}

Result<std::optional<Anchor>> AnchorPrediction(const ReleaseSet& set, const std::string& release,
                                               const std::string& precision,
                                               const predict::Recipe& r, double predicted_s,
                                               const predict::Constants& base,
                                               const ChipConstants& k) {
  const ReleaseCase* c = NearestRow(set, r.model->name, r.par.chip, release, precision, r);
  if (c == nullptr) return std::optional<Anchor>();
  auto p = PredictReleaseCase(*c, base, k);
  if (!p.ok()) return p.status();
  Anchor a;
  a.row = c;
  a.release = release;
  a.row_predicted_s = *p;
  a.anchored_s = c->row.step_time_s * predicted_s / *p;
  return std::optional<Anchor>(a);
}

}  // namespace ys::predict
