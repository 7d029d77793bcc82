#include "predict/later_releases.h"

#include <map>
#include <tuple>

namespace ys::predict {
namespace {

struct Errors {
  std::vector<double> plain, anchored;
};

}  // namespace

Result<LaterReleases> PredictLaterReleases(const ReleaseSet& set, const ReleaseCalibration& cal,
                                           const Constants& base) {
  LaterReleases out;
  // (release, chip, precision) -> errors; chip "all" gathers the release's rows.
  std::map<std::tuple<std::string, std::string, std::string>, Errors> errors;
  std::map<std::pair<std::string, std::string>, std::string> used;  // (release, chip) -> used
  for (const ReleaseCase& c : set.cases()) {
    if (c.row.anomaly || !ReleaseBefore(kNewestFittableRelease, c.row.release)) continue;
    const ReleaseChoice choice = ChooseRelease(cal, c.row.release, c.row.chip, c.constants_from);
    const ChipConstants k =
        choice.chip ? *choice.chip : BaseChipConstants(base, c.row.chip, c.blackwell);
    auto p = PredictReleaseCase(c, base, k);
    if (!p.ok())
      return Status::Invalid(c.row.file + ":" + std::to_string(c.row.line) + ": " +
                             p.status().message());
    LaterRow row{&c, choice.used, *p, std::nullopt};
    if (choice.chip) {
      auto a = AnchorPrediction(set, choice.used, c.precision, c.recipe, *p, base, k);
      if (!a.ok()) return a.status();
      row.anchor = *a;
    }
    const double e = *p / c.row.step_time_s - 1;
    used[{c.row.release, c.row.chip}] = choice.used;
    for (const auto& [chip, precision] : {std::pair{c.row.chip, c.precision},
                                          {c.row.chip, std::string("all")},
                                          {std::string("all"), std::string("all")}}) {
      Errors& x = errors[{c.row.release, chip, precision}];
      x.plain.push_back(e);
      if (row.anchor) x.anchored.push_back(row.anchor->ErrorAgainst(c.row.step_time_s));
    }
    out.rows.push_back(std::move(row));
  }
  for (const SkippedRow& s : set.skipped()) {
    if (ReleaseBefore(kNewestFittableRelease, s.release)) out.not_predicted.push_back(s.why);
  }
  for (const auto& [key, x] : errors) {
    const auto& [release, chip, precision] = key;
    auto u = used.find({release, chip});
    out.cells.push_back({release, u == used.end() ? "" : u->second, chip, precision,
                         SummariseErrors(x.plain), SummariseErrors(x.anchored)});
  }
  return out;
}

}  // namespace ys::predict
