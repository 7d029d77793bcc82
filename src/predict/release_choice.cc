#include "predict/release_choice.h"

#include <fmt/format.h>

#include "predict/published_table.h"

namespace ys::predict {

std::string ReleaseConstantsChoice::Header() const {
  std::string s = "release " + (choice.used.empty() ? choice.asked : choice.used);
  s += choice.used.empty() ? " (base constants)" : " (calibrated; --release TAG to choose)";
  if (!choice.note.empty()) s += "; " + choice.note;
  return s;
}

ExpectedError ReleaseConstantsChoice::Expected(bool anchored, const predict::Anchor* anchor,
                                               std::string_view precision) const {
  ExpectedError e;
  if (!choice.chip) {
    e.measured = choice.note.empty() ? "no release is calibrated for the chip" : choice.note;
    return e;
  }
  const predict::ChipConstants& k = *choice.chip;
  const std::string on = "release " + choice.used + " on " + k.chip;
  const bool later = predict::ReleaseBefore(choice.used, choice.asked);
  if (!anchored && !later) {
    e.stats = k.lomo;
    e.measured = fmt::format(
        "leave-one-model-out over the {} rows of {}: each model predicted by the release's "
        "constants fitted without it",
        k.lomo.rows, on);
  } else {
    e.stats = anchored ? k.anchored : k.next;
    e.measured = fmt::format("the {} rows of {} predicted from the previous calibrated release{}",
                             e.stats.rows, on,
                             anchored ? ", anchored on its rows of their model" : "'s constants");
  }
  if (e.stats.rows == 0)
    e.measured = "not measured on " + on +
                 (anchored || later ? " (no earlier calibrated release, or no row of a model there)"
                                    : " (re-fit with predict --published --fit)");
  if (!choice.from.empty() && e.stats.rows > 0)
    e.measured += "; measured on " + choice.from + ", not on this chip";
  if (anchor != nullptr && anchor->row != nullptr) {
    const predict::ReleaseCase& row = *anchor->row;
    if (!precision.empty() && row.precision != predict::CalibratedPrecision(precision))
      e.measured += "; this anchor is a row of another precision (" + row.precision +
                    "), so the answer can miss by more";
    if (row.row.release != choice.used)
      e.measured += "; this anchor is a row of an older release (" + row.row.release +
                    "), so the answer can miss by more";
  }
  return e;
}

std::string ReleaseConstantsChoice::ExpectedLine(bool anchored, const predict::Anchor* anchor,
                                                 std::string_view precision) const {
  const ExpectedError e = Expected(anchored, anchor, precision);
  const char* what = anchored ? "anchored" : "unanchored";
  if (e.stats.rows == 0)
    return fmt::format("expected |error| of the {} step time: too little evidence ({})", what,
                       e.measured);
  return fmt::format(
      "expected |error| of the {} step time: median {:.1f}%, 90th percentile {:.1f}% ({})", what,
      100 * e.stats.median_abs, 100 * e.stats.p90_abs, e.measured);
}

}  // namespace ys::predict
