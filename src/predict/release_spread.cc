#include "predict/release_spread.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "predict/release_cases.h"

namespace ys::predict {
namespace {

using SpreadKey = std::tuple<std::string, std::string, std::string, int, int>;
// recipe -> (step time, rows); a recipe published twice in one release is ambiguous.
using SpreadRelease = std::map<SpreadKey, std::pair<double, int>>;

constexpr double kRepublished = 5e-4;

std::string SpreadModel(const std::string& model) {
  const std::string proxy = "_proxy";
  if (model.size() > proxy.size() && model.ends_with(proxy))
    return model.substr(0, model.size() - proxy.size());
  return model;
}

}  // namespace

const ErrorStats& ReleaseSpread::For(bool moe_model) const {
  const ErrorStats& own = moe_model ? moe : dense;
  return own.rows >= kMinSpreadPairs ? own : pooled;
}

std::string ReleaseSpread::Describe(bool moe_model) const {
  const ErrorStats& s = For(moe_model);
  const bool own = &s != &pooled;
  return fmt::format(
      "|change| of the same recipe's published step time between any two releases of "
      "baselines/published/*.tsv: {} recipe pairs of {} release pairs ({}), up to {}",
      s.rows, release_pairs,
      own ? (moe_model ? "MoE models" : "dense models") : "dense and MoE models pooled",
      kNewestFittableRelease);
}

ReleaseSpread MeasureReleaseSpread(const std::vector<PublishedRow>& rows,
                                   const std::function<bool(const std::string&)>& is_moe) {
  // file -> release -> recipes, releases in release order.
  std::map<std::string, std::map<std::string, SpreadRelease>> tables;
  for (const PublishedRow& r : rows) {
    if (r.anomaly || ReleaseBefore(kNewestFittableRelease, r.release)) continue;
    auto& [step_s, n] =
        tables[r.file][r.release][{SpreadModel(r.model), r.chip, r.precision, r.gpus, r.gbs}];
    step_s = r.step_time_s;
    ++n;
  }
  std::vector<double> dense, moe, pooled;
  ReleaseSpread out;
  for (const auto& [file, by_release] : tables) {
    std::vector<const std::string*> order;
    for (const auto& [release, recipes] : by_release) order.push_back(&release);
    std::sort(order.begin(), order.end(),
              [](const std::string* a, const std::string* b) { return ReleaseBefore(*a, *b); });
    // Every pair of releases, not only consecutive ones: a release newer than every calibrated
    // one may be several releases ahead, and recipes drift further over more releases.
    for (size_t i = 0; i < order.size(); ++i) {
      for (size_t j = i + 1; j < order.size(); ++j) {
        const SpreadRelease& older = by_release.at(*order[i]);
        bool shared = false;
        for (const auto& [key, newer] : by_release.at(*order[j])) {
          auto o = older.find(key);
          if (o == older.end() || o->second.second != 1 || newer.second != 1) continue;
          const double change = newer.first / o->second.first - 1;
          if (std::fabs(change) < kRepublished) continue;
          shared = true;
          (is_moe(std::get<0>(key)) ? moe : dense).push_back(change);
          pooled.push_back(change);
        }
        if (shared) ++out.release_pairs;
      }
    }
  }
  out.dense = SummariseErrors(dense);
  out.moe = SummariseErrors(moe);
  out.pooled = SummariseErrors(pooled);
  return out;
}

}  // namespace ys::predict
