// Scaling linearity: one throughput measured at 1, 2, 4 ... N ranks, and how close to linear it
// stays. Pure arithmetic over the points `yardstick scaling` measured.
//
// Two kinds of figure:
// - per-rank throughput (a proxy's tokens/s per GPU, weak scaling: each rank keeps its share of
//   the work): ideal is the same figure at every count; efficiency(k) = x(k) / x(base) and
//   speed-up(k) = k / base × efficiency(k), the job's throughput over the base count's.
// - bus bandwidth (a collective's busbw, nccl-tests arithmetic: already normalised so that a
//   perfect fabric gives the same figure at every rank count): efficiency(k) = busbw(k) /
//   busbw(base); speed-up is not defined (a collective has no job throughput to add up).
// `base` is the smallest rank count measured (collectives need at least 2 ranks: 1 rank moves no
// data and reports busbw 0, which is never a base).
//
// Thread safety: pure functions over values.
#ifndef YARDSTICK_PREDICT_SCALING_H_
#define YARDSTICK_PREDICT_SCALING_H_

#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "predict/step_model.h"

namespace ys::predict {

enum class ScalingKind { kPerRankThroughput, kBusBandwidth };

struct ScalingPoint {
  int ranks = 0;
  double value = 0;  // per-rank throughput or busbw, higher is better
};

struct ScalingRow {
  int ranks = 0;
  double value = 0;
  double efficiency = 0;          // value / base value
  std::optional<double> speedup;  // per-rank throughput only
  bool below_target = false;      // efficiency < target
};

struct ScalingReport {
  int base_ranks = 0;
  double target = 0;
  std::vector<ScalingRow> rows;  // ascending rank count
  double worst_efficiency = 0;   // lowest efficiency over the rows past the base
  bool linear = true;            // every row at or above the target
};

// Invalid when fewer than two usable points remain, when a rank count repeats or is < 1, or a
// value is negative or not finite. Points are sorted by rank count; for busbw, points at 1 rank
// are dropped (no data moves).
Result<ScalingReport> AnalyseScaling(std::vector<ScalingPoint> points, ScalingKind kind,
                                     double target);

// The predicted weak-scaling curve of a recipe (predict/step_model.h): the recipe's
// parallelism and micro-batches per step kept, the data-parallel size and the global batch grown
// with the GPU count; tokens/s per GPU at each count and its parallel efficiency. Counts the
// parallelism does not divide are left out (listed in `skipped` with the reason).
//
// Efficiency at a count is its tokens/s per GPU over the best at that count or any smaller one of
// the curve, so it never exceeds 100%: adding GPUs can only keep or lose per-GPU throughput. Where
// a larger count does beat the smallest (the distributed optimizer's shard, and so the optimizer
// step, shrinks as the data-parallel size grows), `gain` says so with the optimizer steps, rather
// than the efficiency claiming a superlinear 100.1%.
struct PredictedScalingPoint {
  int gpus = 0;
  int data_parallel = 0;
  double step_s = 0;
  double tokens_per_s_per_gpu = 0;
  double efficiency = 0;  // tokens/s/GPU over the best at this count or fewer, <= 1
  double exposed_comm_s = 0;
  double optimizer_s = 0;
};
struct PredictedScaling {
  std::vector<PredictedScalingPoint> points;
  std::vector<std::string> skipped;
  std::string gain;  // "" unless some count's tokens/s/GPU beats the smallest count's
};
Result<PredictedScaling> PredictWeakScaling(const predict::Recipe& base,
                                            const predict::SystemRates& rates,
                                            const predict::Constants& c,
                                            const std::vector<int>& gpus);

// 1, 2, 4 ... up to and including max_ranks (max_ranks itself even when not a power of two).
std::vector<int> PowersOfTwoUpTo(int max_ranks);

}  // namespace ys::predict

#endif  // YARDSTICK_PREDICT_SCALING_H_
