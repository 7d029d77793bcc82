#include "workloads/step_time_json.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <nlohmann/json.hpp>

namespace ys::workloads {

using ojson = nlohmann::ordered_json;

ojson ToJson(const StepTimeAnalysis& a) {
  ojson j;
  j["steps"] = a.steps;
  j["median_s"] = a.median_s;
  j["p99_s"] = a.p99_s;
  j["mean_s"] = a.mean_s;
  j["stdev_s"] = a.stdev_s;
  j["cv"] = a.cv;
  const Bimodality& b = a.bimodality;
  j["bimodality"] = {{"bimodal", b.bimodal},
                     {"coefficient", b.coefficient},
                     {"low_mean_s", b.low_mean_s},
                     {"high_mean_s", b.high_mean_s},
                     {"high_fraction", b.high_fraction},
                     {"separation", b.separation}};
  const PeriodicStalls& s = a.stalls;
  j["stalls"] = {{"periodic", s.periodic},
                 {"spikes", s.spikes},
                 {"threshold_s", s.threshold_s},
                 {"typical_excess_s", s.typical_excess_s},
                 {"period_steps", s.period_steps ? ojson(*s.period_steps) : ojson(nullptr)},
                 {"spike_steps", s.spike_steps}};
  const Drift& d = a.drift;
  j["drift"] = {{"drifting", d.drifting},
                {"percent_per_100_steps", d.percent_per_100_steps},
                {"total_percent", d.total_percent},
                {"noise_floor_percent", d.noise_floor_percent}};
  j["slow_ranks"] = a.slow_ranks;
  if (!a.ranks.empty()) {
    j["ranks"] = ojson::array();
    for (const RankStepStats& r : a.ranks) {
      j["ranks"].push_back({{"rank", r.rank},
                            {"steps", r.steps},
                            {"median_s", r.median_s},
                            {"excess_fraction", r.excess_fraction},
                            {"robust_z", r.robust_z},
                            {"slow", r.slow}});
    }
  }
  return j;
}

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
