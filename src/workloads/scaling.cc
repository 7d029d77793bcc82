#include "workloads/scaling.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace ys::workloads {

Result<ScalingReport> AnalyseScaling(std::vector<ScalingPoint> points, ScalingKind kind,
                                     double target) {
  if (!(target > 0 && target <= 1)) {
    return Status::Invalid("scaling target " + std::to_string(target) +
                           ": expected 0 < target <= 1");
  }
  for (const ScalingPoint& p : points) {
    if (p.ranks < 1)
      return Status::Invalid("scaling point at " + std::to_string(p.ranks) +
                             " ranks: expected >= 1");
    if (!std::isfinite(p.value) || p.value < 0) {
      return Status::Invalid("scaling point at " + std::to_string(p.ranks) +
                             " ranks: value expected finite and >= 0");
    }
  }
  if (kind == ScalingKind::kBusBandwidth) {
    std::erase_if(points, [](const ScalingPoint& p) { return p.ranks == 1; });
  }
  std::sort(points.begin(), points.end(),
            [](const ScalingPoint& a, const ScalingPoint& b) { return a.ranks < b.ranks; });
  for (size_t i = 1; i < points.size(); ++i) {
    if (points[i].ranks == points[i - 1].ranks) {
      return Status::Invalid("scaling: " + std::to_string(points[i].ranks) +
                             " ranks measured twice");
    }
  }
  if (points.size() < 2) {
    return Status::Invalid(kind == ScalingKind::kBusBandwidth
                               ? "scaling: a collective needs at least two rank counts of 2 or more"
                               : "scaling: at least two rank counts are needed");
  }
  const ScalingPoint& base = points.front();
  if (base.value <= 0) {
    return Status::Invalid("scaling: the base (" + std::to_string(base.ranks) +
                           " ranks) measured 0: nothing to compare with");
  }
  ScalingReport r;
  r.base_ranks = base.ranks;
  r.target = target;
  r.worst_efficiency = std::numeric_limits<double>::infinity();
  for (const ScalingPoint& p : points) {
    ScalingRow row{.ranks = p.ranks, .value = p.value, .efficiency = p.value / base.value};
    if (kind == ScalingKind::kPerRankThroughput) {
      row.speedup = static_cast<double>(p.ranks) / base.ranks * row.efficiency;
    }
    if (p.ranks != base.ranks) {
      row.below_target = row.efficiency < target;
      r.worst_efficiency = std::min(r.worst_efficiency, row.efficiency);
      if (row.below_target) r.linear = false;
    }
    r.rows.push_back(row);
  }
  return r;
}

std::vector<int> PowersOfTwoUpTo(int max_ranks) {
  std::vector<int> out;
  for (int k = 1; k <= max_ranks && k > 0; k *= 2) out.push_back(k);
  if (max_ranks >= 1 && out.back() != max_ranks) out.push_back(max_ranks);
  return out;
}

}  // namespace ys::workloads
