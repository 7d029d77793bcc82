// The serving proxy's prediction: this CPU's rates, measured by the engine at the shapes it serves,
// put into the serving model (predict/serve_model.h) as a one-"GPU" system serving fp32.
//
// Rates (each the median of timed passes after a warm-up pass, before and after the serving run,
// BracketCpuServeRates):
// - the "fp32" tensor rate: the FLOPs the serving model counts for one prefill (its GEMMs, the
//   head on the last token, causal attention) over the time of a whole prefill of one request
//   alone, so the rate holds the prefill's other work too (norms, softmax, activation), as the
//   model's prefill_efficiency does on a GPU; prefill_efficiency is 1.
// - the weight-streaming rate (the model's HBM rate): one row through every matrix and the head,
//   the pass that reads every weight once; weight bytes over its time. OpenBLAS packs each weight
//   matrix per call, so this is the rate a decode GEMM reads its weights at;
//   decode_hbm_efficiency is 1. The model's decode KV term uses the same rate.
// - host seconds per sequence: a decode step of one sequence whose cache holds one token, less the
//   time its weight GEMMs took in the same pass (norms, the attention's calls, the activation,
//   argmax over the vocabulary): all of it per row, so the model adds it once per sequence of the
//   batch (host_seconds_per_step 0). The attention's reading of a longer cache is the model's KV
//   term.
// A new request enters at the step boundary its slot freed at (step_wait_share 0).
// Memory capacity (the model's HBM capacity): the budget the unit checked its buffers against.
// Nothing else is fitted: the constants are 1, the measured figures, or 0 (no all-reduce: one
// instance, TP 1).
//
// Thread safety: none (the engine is not).
#ifndef YARDSTICK_WORKLOADS_SERVING_INTERNAL_SERVING_PREDICTION_H_
#define YARDSTICK_WORKLOADS_SERVING_INTERNAL_SERVING_PREDICTION_H_

#include <string>

#include "core/status.h"
#include "predict/model_spec.h"
#include "predict/serve_model.h"
#include "workloads/serving/internal/cpu_serving_engine.h"
#include "workloads/serving_batcher.h"

namespace ys::workloads {

// The serving dtype of the CPU proxy, the key of its measured rate.
inline constexpr char kCpuServeDtype[] = "fp32";

struct CpuServeRates {
  double prefill_flops_per_s = 0;
  double weight_bytes_per_s = 0;
  double host_seconds_per_sequence = 0;
  std::string method;  // the three measurements with their figures, for the evidence
};

// Times the engine's passes (`iters` each); slot 0 is left holding a prompt (the run's first
// prefill resets it). An error when the serving model cannot count the prefill's FLOPs.
Result<CpuServeRates> MeasureCpuServeRates(CpuServingEngine& engine,
                                           const predict::ModelSpec& scaled,
                                           const ServingStream& stream, double memory_bytes,
                                           int iters);

// The rates of two calibrations, one before the stream and one after it, as one: each rate from
// the mean of the two passes' times (2 / (1/a + 1/b)), the host time their mean. A machine whose
// load changes while the stream runs (a shared VM) then predicts at its state over the stream
// rather than at the moment before it. Neither calibration sees the stream's own figures.
CpuServeRates BracketCpuServeRates(const CpuServeRates& before, const CpuServeRates& after);

// PredictServe of `scaled` (the spec the engine runs) at the stream's ISL, OSL and concurrency on
// one instance of this CPU.
Result<predict::ServePrediction> PredictCpuServing(const predict::ModelSpec& scaled,
                                                   const ServingStream& stream,
                                                   const CpuServeRates& rates, double memory_bytes);

}  // namespace ys::workloads

#endif  // YARDSTICK_WORKLOADS_SERVING_INTERNAL_SERVING_PREDICTION_H_
