#include "burnin/status_line.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <vector>

#include "core/progress.h"

namespace ys::burnin {
namespace {

struct StatusMetric {
  std::string unit;
  std::vector<double> rates;
};

std::string StatusFigures(const CycleObservation& obs) {
  std::map<std::string, StatusMetric> by_metric;
  for (const EntitySample& s : obs.samples) {
    if (s.metric.empty() || !s.perf) continue;
    StatusMetric& f = by_metric[s.metric];
    f.unit = s.unit;
    f.rates.push_back(*s.perf);
  }
  std::string out;
  for (auto& entry : by_metric) {
    std::vector<double>& rates = entry.second.rates;
    std::sort(rates.begin(), rates.end());
    double median = rates[rates.size() / 2];
    out += fmt::format("; {} {:.4g} {} (min {:.4g}, {} {})", entry.first, median, entry.second.unit,
                       rates.front(), rates.size(), rates.size() == 1 ? "entity" : "entities");
  }
  return out;
}

}  // namespace

std::string StatusLine(const CycleObservation& obs, double elapsed_s, double duration_s) {
  std::string out = fmt::format("burn-in: {:.0f} of {:.0f} s, {:.0f} s left", elapsed_s, duration_s,
                                std::max(0.0, duration_s - elapsed_s));
  out += StatusFigures(obs);
  std::optional<double> hottest;
  int64_t miscompares = 0;
  for (const EntitySample& s : obs.samples) {
    if (s.temp_c) hottest = std::max(hottest.value_or(*s.temp_c), *s.temp_c);
    miscompares += s.miscompares;
  }
  if (hottest) out += fmt::format("; {:.0f} C max", *hottest);
  out += fmt::format("; {} miscompares", miscompares);
  return out;
}

void StatusTicker::Cycle(const CycleObservation& obs, std::string_view load, int cycle,
                         double elapsed_s, double duration_s) {
  ProgressReporter& p = Progress();
  if (!p.enabled()) return;
  auto now = std::chrono::steady_clock::now();
  if (std::chrono::duration<double>(now - last_).count() >= every_s_) {
    p.Line(StatusLine(obs, elapsed_s, duration_s));
    last_ = now;
  }
  p.Transient(fmt::format("cycle {} ({}), {:.0f} s of {:.0f} s of load, {:.0f} s left", cycle, load,
                          elapsed_s, duration_s, std::max(0.0, duration_s - elapsed_s)));
}

}  // namespace ys::burnin
