#include "predict/release_choice.h"

#include <fmt/format.h>

#include <algorithm>

#include "predict/published_table.h"

namespace ys::predict {

std::string ReleaseConstantsChoice::Header() const {
  std::string s = "release " + (choice.used.empty() ? choice.asked : choice.used);
  s += choice.used.empty() ? " (base constants)" : " (calibrated; --release TAG to choose)";
  if (!choice.note.empty()) s += "; " + choice.note;
  return s;
}

const char* SituationName(Situation s) {
  switch (s) {
    case Situation::kCalibratedRelease:
      return "calibrated_release";
    case Situation::kNewerRelease:
      return "newer_release";
    case Situation::kModelNotFitted:
      return "model_not_fitted";
    case Situation::kBorrowedChip:
      return "borrowed_chip";
    case Situation::kUncalibrated:
      return "uncalibrated";
  }
  return "uncalibrated";
}

namespace {

// Two independent sources of error, the release's movement and the model's, added: |a + b| is
// at most |a| + |b|, so the sum of their medians and 90th percentiles bounds the answer's (the
// rows of `a`).
ErrorStats Compounded(const ErrorStats& a, const ErrorStats& b) {
  ErrorStats w = a;
  w.median_abs = a.median_abs + b.median_abs;
  w.p90_abs = a.p90_abs + b.p90_abs;
  return w;
}

// The larger median and the larger 90th percentile of two measurements, the rows of `a`.
ErrorStats Wider(const ErrorStats& a, const ErrorStats& b) {
  ErrorStats w = a;
  if (b.rows > 0) {
    w.median_abs = std::max(a.median_abs, b.median_abs);
    w.p90_abs = std::max(a.p90_abs, b.p90_abs);
  }
  return w;
}

// The expected error of an answer with a release gap: the spread of the published tables, never
// less than what the calibrated release pairs measured for such an answer.
ExpectedError AcrossReleases(const ReleaseConstantsChoice& c, const ExpectedQuery& q,
                             const ErrorStats& calibrated, const std::string& on) {
  ExpectedError e{.situation = Situation::kNewerRelease};
  const char* what = q.anchored ? "anchored on a row of an older release than the one asked"
                                : "with constants of an older release than the one asked";
  if (!c.spread || c.spread->For(q.moe).rows == 0) {
    e.stats = calibrated;
    e.measured = fmt::format(
        "{}: the {} rows of {} predicted from the previous calibrated release "
        "(no release-to-release spread measured)",
        what, calibrated.rows, on);
    return e;
  }
  e.stats = Compounded(c.spread->For(q.moe), calibrated);
  e.measured = fmt::format(
      "{}: {}, added to the error of the {} rows of {} predicted from the previous calibrated "
      "release{}",
      what, c.spread->Describe(q.moe), calibrated.rows, on,
      q.anchored ? " and anchored" : "'s constants");
  return e;
}

}  // namespace

ExpectedError ReleaseConstantsChoice::Expected(const ExpectedQuery& q) const {
  if (!choice.chip) {
    return {
        .situation = Situation::kUncalibrated,
        .measured = choice.note.empty() ? "no release is calibrated for the chip" : choice.note};
  }
  const predict::ChipConstants& k = *choice.chip;
  const std::string on = "release " + choice.used + " on " + k.chip;
  const std::string& asked = choice.asked.empty() ? choice.used : choice.asked;
  const bool anchor_older = q.anchored && q.anchor != nullptr && q.anchor->row != nullptr &&
                            q.anchor->row->row.release != asked;
  ExpectedError e;
  if (!choice.from.empty()) {
    e = {.stats = q.anchored ? k.anchored : k.lomo, .situation = Situation::kBorrowedChip};
    e.measured = fmt::format(
        "the chip takes {}'s constants: leave-one-model-out over the {} rows of {}, measured on "
        "{}, not on this chip (no published row of it)",
        choice.from, e.stats.rows, on, choice.from);
  } else if (asked != choice.used || anchor_older) {
    ErrorStats calibrated = q.anchored ? k.anchored : k.next;
    if (!q.anchored && !q.model_has_rows) calibrated = Wider(calibrated, k.lomo);
    e = AcrossReleases(*this, q, calibrated, on);
  } else if (!q.anchored && !q.model_has_rows) {
    e = {.stats = k.lomo, .situation = Situation::kModelNotFitted};
    e.measured = fmt::format(
        "no published row of the model on the chip, so no fit saw it: leave-one-model-out over "
        "the {} rows of {} (each model predicted by the release's constants fitted without it)",
        k.lomo.rows, on);
  } else {
    e = {.stats = q.anchored ? k.anchored : k.lomo, .situation = Situation::kCalibratedRelease};
    e.measured = q.anchored
                     ? fmt::format(
                           "the {} rows of {} predicted from the previous calibrated release, "
                           "anchored on its rows of their model",
                           e.stats.rows, on)
                     : fmt::format(
                           "leave-one-model-out over the {} rows of {}: each model predicted by "
                           "the release's constants fitted without it",
                           e.stats.rows, on);
  }
  if (e.stats.rows == 0) e.measured = "not measured (" + e.measured + ")";
  if (q.anchor != nullptr && q.anchor->row != nullptr && q.anchored && !q.precision.empty() &&
      q.anchor->row->precision != predict::CalibratedPrecision(q.precision)) {
    e.measured += "; this anchor is a row of another precision (" + q.anchor->row->precision +
                  "), so the answer can miss by more";
  }
  return e;
}

std::string ReleaseConstantsChoice::ExpectedLine(const ExpectedQuery& q) const {
  const ExpectedError e = Expected(q);
  const char* what = q.anchored ? "anchored" : "unanchored";
  if (e.stats.rows == 0)
    return fmt::format("expected |error| of the {} step time ({}): too little evidence ({})", what,
                       SituationName(e.situation), e.measured);
  return fmt::format(
      "expected |error| of the {} step time ({}): median {:.1f}%, 90th percentile {:.1f}% ({})",
      what, SituationName(e.situation), 100 * e.stats.median_abs, 100 * e.stats.p90_abs,
      e.measured);
}

}  // namespace ys::predict
