// Performance drift of a burn-in (analyser.h "perf drift"): a drop judged against the spread the
// baseline itself measured, persisting for kDriftWindows windows, and told apart from a drop that
// other processes on the measured cores caused.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "burnin/analyser_state.h"

namespace ys::burnin {
namespace {

// Fewer baseline cycles than this cannot tell a drop from the noise: drift is not judged.
constexpr size_t kMinBaselineCycles = 8;
// A window's median is judged low when it is below the baseline median by more than
// drift_threshold and by more than this many baseline spreads (relative stdev of single cycles:
// a window's median of several cycles is steadier, so 4 spreads of one cycle is far outside).
constexpr double kSpreads = 4;
// Consecutive low windows before a drift is reported (one window can be a passing disturbance).
constexpr int kDriftWindows = 2;
// A low window whose cores gave this share of their time to other processes is disturbed.
constexpr double kForeignShare = 0.05;

std::string DriftNum(double x, int digits = 1) { return fmt::format("{:.{}f}", x, digits); }

}  // namespace

void Analyser::State::EndBaseline(EntityState& e) {
  e.baseline_done = true;
  if (e.baseline_perf.empty()) return;
  double median = MedianOf(e.baseline_perf);
  e.info.perf_baseline = median;
  if (e.baseline_perf.size() < kMinBaselineCycles) {
    e.baseline_spread = -1;
    e.notes.insert(fmt::format(
        "baseline too short to judge drift: {} cycle{} in the first {} s (drift needs {}; run "
        "longer)",
        e.baseline_perf.size(), e.baseline_perf.size() == 1 ? "" : "s", DriftNum(o.baseline_s, 0),
        kMinBaselineCycles));
  } else {
    std::vector<double> dev;
    dev.reserve(e.baseline_perf.size());
    for (double x : e.baseline_perf) dev.push_back(std::fabs(x - median));
    e.baseline_spread = median != 0 ? 1.4826 * MedianOf(std::move(dev)) / std::fabs(median) : 0;
  }
  e.baseline_perf.clear();
}

void Analyser::State::NoteForeign(EntityState& e, double foreign) {
  if (foreign < kForeignShare) return;
  e.shared_windows++;
  e.shared_share = std::max(e.shared_share, foreign);
}

// A drop that coincided with foreign CPU time is not drift; other processes that took the cores
// without a drop (each figure is a median of single calls, which a shared core mostly leaves
// whole) are named too: the operator should know the burn-in did not have its cores alone.
std::string Analyser::State::DisturbanceNote(const EntityState& e) {
  if (e.disturbed_windows > 0) {
    return fmt::format(
        "disturbed by other processes ({}% foreign CPU): {} window{} below the baseline not "
        "judged as drift",
        DriftNum(100 * e.disturbed_share, 0), e.disturbed_windows,
        e.disturbed_windows == 1 ? "" : "s");
  }
  if (e.shared_windows > 0) {
    return fmt::format(
        "disturbed by other processes ({}% foreign CPU) in {} window{}; its figures did not drop "
        "below the baseline",
        DriftNum(100 * e.shared_share, 0), e.shared_windows, e.shared_windows == 1 ? "" : "s");
  }
  return "";
}

void Analyser::State::JudgeDrift(EntityState& e, const BurninWindow& w, double foreign) {
  double base = *e.info.perf_baseline;
  double change = base > 0 ? *w.perf / base - 1 : 0;
  double threshold = std::max(o.drift_threshold, kSpreads * e.baseline_spread);
  double end_s = w.start_s + o.window_s;
  if (!(change < -threshold)) {
    e.low_windows = 0;
    Close(e, "perf_drift", end_s);
    return;
  }
  if (foreign >= kForeignShare) {  // other processes took the cores: not the hardware
    e.low_windows = 0;
    e.disturbed_windows++;
    e.disturbed_share = std::max(e.disturbed_share, foreign);
    return;
  }
  if (e.low_windows++ == 0) e.low_since_s = w.start_s;
  if (e.low_windows < kDriftWindows) return;
  auto i = static_cast<size_t>(OpenOnce(
      e, "perf_drift", e.low_since_s, last_at, "perf_drift", Severity::kWarn,
      fmt::format("{} {} {} {} in the window from {} s, {}% below the first {} s ({} {}) for {} "
                  "windows, beyond the {}% its baseline's spread allows",
                  e.info.entity, e.info.metric, DriftNum(*w.perf, 2), e.info.unit,
                  DriftNum(w.start_s, 0), DriftNum(-change * 100), DriftNum(o.baseline_s, 0),
                  DriftNum(base, 2), e.info.unit, e.low_windows, DriftNum(threshold * 100)),
      {{"baseline", DriftNum(base, 3)},
       {"baseline_spread_pct", DriftNum(100 * e.baseline_spread, 2)},
       {"window_start_s", DriftNum(e.low_since_s, 0)}}));
  double worst = -change * 100;
  Evidence& ev = faults[i].evidence;
  auto it = std::find_if(ev.begin(), ev.end(),
                         [](const auto& kv) { return kv.first == "largest_drop_pct"; });
  if (it != ev.end()) {
    worst = std::max(worst, std::stod(it->second));
    it->second = DriftNum(worst);
  } else {
    ev.emplace_back("largest_drop_pct", DriftNum(worst));
  }
}

}  // namespace ys::burnin
