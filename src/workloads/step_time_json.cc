#include "workloads/step_time_json.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <nlohmann/json.hpp>

#include "core/json_fields.h"

namespace ys::workloads {

// The field lists of the analysis (core/json_fields.h); written only.
template <typename V>
void Fields(V& v, Bimodality& b) {
  v("bimodal", b.bimodal);
  v("coefficient", b.coefficient);
  v("low_mean_s", b.low_mean_s);
  v("high_mean_s", b.high_mean_s);
  v("high_fraction", b.high_fraction);
  v("separation", b.separation);
}

template <typename V>
void Fields(V& v, PeriodicStalls& s) {
  v("periodic", s.periodic);
  v("spikes", s.spikes);
  v("threshold_s", s.threshold_s);
  v("typical_excess_s", s.typical_excess_s);
  v("period_steps", s.period_steps);
  v("spike_steps", s.spike_steps);
}

template <typename V>
void Fields(V& v, Drift& d) {
  v("drifting", d.drifting);
  v("percent_per_100_steps", d.percent_per_100_steps);
  v("total_percent", d.total_percent);
  v("noise_floor_percent", d.noise_floor_percent);
}

template <typename V>
void Fields(V& v, RankStepStats& r) {
  v("rank", r.rank);
  v("steps", r.steps);
  v("median_s", r.median_s);
  v("excess_fraction", r.excess_fraction);
  v("robust_z", r.robust_z);
  v("slow", r.slow);
}

template <typename V>
void Fields(V& v, StepTimeAnalysis& a) {
  v("steps", a.steps);
  v("median_s", a.median_s);
  v("p99_s", a.p99_s);
  v("mean_s", a.mean_s);
  v("stdev_s", a.stdev_s);
  v("cv", a.cv);
  v("bimodality", a.bimodality);
  v("stalls", a.stalls);
  v("drift", a.drift);
  v("slow_ranks", a.slow_ranks);
  v.optional("ranks", a.ranks);
}

nlohmann::ordered_json ToJson(const StepTimeAnalysis& a) { return json_fields::Write(a); }

std::string StepTimeSummary(const StepTimeAnalysis& a) {
  std::string out =
      fmt::format("{} steps: median {:.4g} s, p99 {:.4g} s", a.steps, a.median_s, a.p99_s);
  if (a.median_s > 0) out += fmt::format(" (+{:.0f}%)", (a.p99_s / a.median_s - 1) * 100);
  out += fmt::format(", CV {:.1f}%", a.cv * 100);
  if (a.bimodality.bimodal) {
    out += fmt::format("; bimodal ({:.4g} s and {:.4g} s, {:.0f}% slow)", a.bimodality.low_mean_s,
                       a.bimodality.high_mean_s, a.bimodality.high_fraction * 100);
  }
  if (a.stalls.periodic && a.stalls.period_steps) {
    out += fmt::format("; periodic stalls every {:.3g} steps (+{:.0f} ms)", *a.stalls.period_steps,
                       a.stalls.typical_excess_s * 1000);
  }
  if (a.drift.drifting) out += fmt::format("; drift {:+.1f}% over the run", a.drift.total_percent);
  if (!a.slow_ranks.empty()) out += fmt::format("; slow ranks {}", fmt::join(a.slow_ranks, ", "));
  return out;
}

}  // namespace ys::workloads
