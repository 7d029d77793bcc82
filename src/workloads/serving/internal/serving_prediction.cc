#include "workloads/serving/internal/serving_prediction.h"

#include <fmt/format.h>

#include <algorithm>

namespace ys::workloads {
namespace {

// The serving model's system and constants for this CPU at `rates` (see the header).
Result<predict::ServePrediction> PredictAtRates(const predict::ModelSpec& scaled,
                                                const ServingStream& stream, double flops_per_s,
                                                double bytes_per_s, double host_per_sequence,
                                                double memory_bytes) {
  predict::ServeSystem sys;
  sys.rates.chip = "cpu";
  sys.rates.peak_flops[kCpuServeDtype] = flops_per_s;
  sys.rates.gemm_flops[kCpuServeDtype] = flops_per_s;
  sys.rates.hbm_bytes_per_s = bytes_per_s;
  sys.rates.origin[kCpuServeDtype] = "measured: a whole prefill on this CPU";
  sys.rates.origin["hbm"] = "measured: the weight pass on this CPU";
  sys.hbm_capacity_bytes = memory_bytes;
  const predict::ServeConstants c{.prefill_efficiency = 1,
                                  .decode_hbm_efficiency = 1,
                                  .host_seconds_per_step = 0,
                                  .host_seconds_per_sequence = host_per_sequence,
                                  .allreduce_latency_s = 0,
                                  .step_wait_share = 0};
  const predict::ServeLayout layout{.gpus = 1, .tp = 1, .pp = 1, .ep = 1};
  const predict::ServeLoad load{
      .isl = stream.isl, .osl = stream.osl, .concurrency = stream.concurrency};
  return predict::PredictServe(scaled, kCpuServeDtype, layout, load, sys, c);
}

// The FLOPs the serving model counts for one prefill: its prefill terms at 1 FLOP/s (no TP, so
// they are the compute terms alone).
Result<double> ModelPrefillFlops(const predict::ModelSpec& scaled, const ServingStream& stream,
                                 double memory_bytes) {
  auto unit = PredictAtRates(scaled, stream, 1, 1, 0, memory_bytes);
  if (!unit.ok()) return unit.status();
  double flops = 0;
  for (const predict::ServeTerm& t : unit->prefill) flops += t.seconds;
  return flops;
}

}  // namespace

Result<CpuServeRates> MeasureCpuServeRates(CpuServingEngine& engine,
                                           const predict::ModelSpec& scaled,
                                           const ServingStream& stream, double memory_bytes,
                                           int iters) {
  auto flops = ModelPrefillFlops(scaled, stream, memory_bytes);
  if (!flops.ok()) return flops.status();
  const double prefill_s = engine.TimePrefill(iters);
  const CpuServingEngine::GemmPass weights = engine.TimeWeightPass(iters);
  CpuServeRates r;
  r.prefill_flops_per_s = prefill_s > 0 ? *flops / prefill_s : 0;
  r.weight_bytes_per_s = weights.seconds > 0 ? weights.weight_bytes / weights.seconds : 0;
  r.host_seconds_per_sequence = engine.TimeDecodeBesideWeights(iters);
  r.method = fmt::format(
      "medians of {} passes: a whole prefill ({:.4g} GFLOP as the serving model counts them) "
      "{:.4g} ms = {:.4g} GFLOP/s; weight pass (one row through every matrix and the head) "
      "{:.4g} MB in {:.4g} ms = {:.4g} GB/s; one-sequence decode step beside its weight GEMMs "
      "{:.4g} ms = host per sequence",
      std::max(1, iters), *flops / 1e9, prefill_s * 1e3, r.prefill_flops_per_s / 1e9,
      weights.weight_bytes / 1e6, weights.seconds * 1e3, r.weight_bytes_per_s / 1e9,
      r.host_seconds_per_sequence * 1e3);
  return r;
}

CpuServeRates BracketCpuServeRates(const CpuServeRates& before, const CpuServeRates& after) {
  auto mean_rate = [](double a, double b) { return a > 0 && b > 0 ? 2 / (1 / a + 1 / b) : 0.0; };
  CpuServeRates r;
  r.prefill_flops_per_s = mean_rate(before.prefill_flops_per_s, after.prefill_flops_per_s);
  r.weight_bytes_per_s = mean_rate(before.weight_bytes_per_s, after.weight_bytes_per_s);
  r.host_seconds_per_sequence =
      (before.host_seconds_per_sequence + after.host_seconds_per_sequence) / 2;
  r.method = "before the stream: " + before.method + "; after it: " + after.method +
             "; each rate from the mean of the two times";
  return r;
}

Result<predict::ServePrediction> PredictCpuServing(const predict::ModelSpec& scaled,
                                                   const ServingStream& stream,
                                                   const CpuServeRates& rates,
                                                   double memory_bytes) {
  return PredictAtRates(scaled, stream, rates.prefill_flops_per_s, rates.weight_bytes_per_s,
                        rates.host_seconds_per_sequence, memory_bytes);
}

}  // namespace ys::workloads
