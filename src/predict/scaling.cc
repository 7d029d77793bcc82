#include "predict/scaling.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace ys::predict {

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

namespace {

// Each point's efficiency against the best tokens/s/GPU at its count or fewer, and the note on a
// per-GPU gain over the smallest count.
void SetEfficiencies(PredictedScaling& out) {
  const PredictedScalingPoint& first = out.points.front();
  const PredictedScalingPoint* best = &first;
  for (PredictedScalingPoint& pt : out.points) {
    if (pt.tokens_per_s_per_gpu > best->tokens_per_s_per_gpu) best = &pt;
    pt.efficiency = pt.tokens_per_s_per_gpu / best->tokens_per_s_per_gpu;
  }
  if (best == &first) return;
  out.gain = fmt::format(
      "tokens/s/GPU at {} GPUs (dp {}) is {:.2f}% above that at {} GPUs (dp {}): the distributed "
      "optimizer's shard shrinks with the data-parallel size (optimizer step {:.4f} s -> {:.4f} "
      "s); efficiency is against the best tokens/s/GPU at each count or fewer, so it stays <= "
      "100%",
      best->gpus, best->data_parallel,
      100 * (best->tokens_per_s_per_gpu / first.tokens_per_s_per_gpu - 1), first.gpus,
      first.data_parallel, first.optimizer_s, best->optimizer_s);
}

}  // namespace

Result<PredictedScaling> PredictWeakScaling(const predict::Recipe& base,
                                            const predict::SystemRates& rates,
                                            const predict::Constants& c,
                                            const std::vector<int>& gpus) {
  const int micro_batches = predict::MicroBatches(base);
  PredictedScaling out;
  for (int g : gpus) {
    predict::Recipe r = base;
    r.par.gpus = g;
    const int model_parallel = r.par.tp * r.par.pp * r.par.cp;
    if (g % model_parallel != 0) {
      out.skipped.push_back(std::to_string(g) + " GPUs: not a multiple of tp·pp·cp = " +
                            std::to_string(model_parallel));
      continue;
    }
    // The experts of one stage are laid out etp x ep x expert-dp (step_flops.cc).
    if (base.model->moe && (g / r.par.pp) % (r.Etp() * r.par.ep) != 0) {
      out.skipped.push_back(std::to_string(g) + " GPUs: etp·ep = " + std::to_string(r.Etp()) + "·" +
                            std::to_string(r.par.ep) +
                            " does not divide gpus / pp = " + std::to_string(g / r.par.pp));
      continue;
    }
    r.par.global_batch = micro_batches * r.par.micro_batch * predict::DataParallel(r);
    auto p = predict::PredictStep(r, rates, c);
    if (!p.ok()) return p.status();
    out.points.push_back({.gpus = g,
                          .data_parallel = predict::DataParallel(r),
                          .step_s = p->step_time_s,
                          .tokens_per_s_per_gpu = p->tokens_per_s_per_gpu,
                          .exposed_comm_s = p->ExposedComm(),
                          .optimizer_s = p->optimizer_s});
  }
  if (out.points.empty()) return Status::Invalid("no GPU count the recipe's parallelism divides");
  SetEfficiencies(out);
  return out;
}

}  // namespace ys::predict
