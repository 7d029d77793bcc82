// Performance drift of a burn-in (analyser.h "perf drift"): a window's median judged against the
// baseline's median with the uncertainty the baseline's own spread gives both, persisting for
// kDriftWindows windows, and told apart from a drop that other processes on the measured cores
// can explain.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "burnin/analyser_state.h"

namespace ys::burnin {
namespace {

// Fewer baseline cycles than this cannot tell a drop from the noise: drift is not judged.
constexpr size_t kMinBaselineCycles = 8;
// A window is low when its median is below the baseline median by more than drift_threshold and
// by more than this many standard errors of the difference of the two medians. The standard error
// of a median of n cycles whose single-cycle spread is s is sqrt(pi/2) s / sqrt(n) (normal
// noise), so the difference has sqrt(pi/2) s sqrt(1/n_window + 1/n_baseline). With two low
// windows in a row required, independent noise fires this about once in 10^9 window pairs; what
// fires it on a healthy machine is noise that is not independent (a slow change of clock or
// neighbour), which the drift_threshold floor (5%) bounds.
constexpr double kStandardErrors = 4;
constexpr double kMedianSe = 1.2533141373155;  // sqrt(pi / 2)
// Consecutive low windows before a drift is reported (one window can be a passing disturbance).
constexpr int kDriftWindows = 2;
// A window whose cores gave this share of their time to other processes is shared; a low one is
// "disturbed" when that share explains its drop: a figure cannot lose more than the share of the
// core that other processes took, so a drop beyond share + threshold is drift all the same.
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
    e.baseline_cycles = static_cast<int>(e.baseline_perf.size());
  }
  e.baseline_perf.clear();
}

void Analyser::State::NoteForeign(EntityState& e, double foreign, const std::string& who) {
  if (foreign < kForeignShare) return;
  e.shared_windows++;
  if (foreign >= e.shared_share && !who.empty()) e.foreign_who = who;
  e.shared_share = std::max(e.shared_share, foreign);
}

// A drop that coincided with foreign CPU time is not drift; other processes that took the cores
// without a drop (each figure is a median of single calls, which a shared core mostly leaves
// whole) are named too: the operator should know the burn-in did not have its cores alone.
std::string Analyser::State::DisturbanceNote(const EntityState& e) {
  if (e.shared_windows == 0) return "";
  std::string head = fmt::format("disturbed by other processes ({}% foreign CPU{})",
                                 DriftNum(100 * std::max(e.disturbed_share, e.shared_share), 0),
                                 e.foreign_who.empty() ? "" : ", most by " + e.foreign_who);
  if (e.disturbed_windows > 0) {
    return fmt::format("{}: {} window{} below the baseline not judged as drift", head,
                       e.disturbed_windows, e.disturbed_windows == 1 ? "" : "s");
  }
  // What the judge saw in those windows: only the windows it judged can be said to have held.
  const std::string judged =
      e.unexplained_windows > 0 ? "too little to explain the drop judged as drift"
      : e.shared_judged > 0
          ? fmt::format("the {} of them judged for drift stayed within its threshold",
                        e.shared_judged)
          : "none of them was judged for drift (inside the baseline, or the baseline too short)";
  return fmt::format("{} in {} window{}; {}", head, e.shared_windows,
                     e.shared_windows == 1 ? "" : "s", judged);
}

// The drop a window must exceed to be low (kStandardErrors above). A checkpoint written before
// the baseline's cycle count was kept judges against single cycles, as it did then.
double Analyser::State::DriftThreshold(const EntityState& e, int window_cycles) const {
  double se = e.baseline_spread;
  if (e.baseline_cycles > 0 && window_cycles > 0) {
    se *= kMedianSe * std::sqrt(1.0 / window_cycles + 1.0 / e.baseline_cycles);
  }
  return std::max(o.drift_threshold, kStandardErrors * se);
}

void Analyser::State::JudgeDrift(EntityState& e, const BurninWindow& w, int window_cycles,
                                 double foreign) {
  double base = *e.info.perf_baseline;
  double change = base > 0 ? *w.perf / base - 1 : 0;
  double threshold = DriftThreshold(e, window_cycles);
  double end_s = w.start_s + o.window_s;
  if (foreign >= kForeignShare) e.shared_judged++;
  if (!(change < -threshold)) {
    e.low_windows = 0;
    Close(e, "perf_drift", end_s);
    return;
  }
  if (foreign >= kForeignShare) {
    if (-change <= foreign + threshold) {  // other processes explain the drop: not the hardware
      e.low_windows = 0;
      e.disturbed_windows++;
      e.disturbed_share = std::max(e.disturbed_share, foreign);
      return;
    }
    e.unexplained_windows++;
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
