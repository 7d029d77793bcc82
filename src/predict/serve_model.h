// The serving model of `yardstick predict --serve`: from a model's shape (model_spec.h), a
// precision, a layout of GPUs and a load, the throughput and latency one serving deployment
// reaches, with a breakdown of where the time goes.
//
//   prefill of one request  = FLOPs of ISL tokens / (tensor FLOP/s × e_prefill)     compute-bound
//                             (the output head on the last token only)
//                           + the TP all-reduces of its layers over NVLink
//   decode step (batch b)   = (weight bytes + b × KV bytes read per token position) /
//                             (HBM × e_decode)                                      memory-bound
//                           + batch FLOPs / tensor rate, less the share of the shorter of the
//                             two the other hides (decode_overlap_share)
//                           + TP all-reduces per layer (message b × hidden × 2 bytes)
//                           + MoE expert traffic (EP all-to-all of the routed tokens)
//                           + a floor per layer (its kernels' fixed time, whatever b or TP)
//                           + the host's share per step (scheduling, sampling, launch)
//   disaggregated           + the KV cache of each request sent from a prefill to a decode
//                             worker (bytes / network bus bandwidth)
// At a fixed concurrency K spread over the instances (gpus / (tp × pp) replicas, or the
// disaggregated workers), each decode instance holds K / instances sequences; at max throughput
// the batch is what fits in HBM after the weights (KV bytes per sequence at ISL + OSL). TTFT
// counts the prefill and the wait for a prefill slot; TPOT the decode step; output tokens/s are
// batch × instances / (TPOT + the prefill time each step shares with decode).
//
// The constants live in calibration/serve_model.toml, fitted on published serving figures dated up
// to 30 June 2025 (baselines/published/): one set per chip and precision the figures cover, one
// set over every figure for the others, each with its held-out error (serve_calibration.h).
//
// Thread safety: values only.
#ifndef YARDSTICK_PREDICT_SERVE_MODEL_H_
#define YARDSTICK_PREDICT_SERVE_MODEL_H_

#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "predict/model_spec.h"
#include "predict/serve_work.h"
#include "predict/step_model.h"

namespace ys::predict {

// Where the GPUs go: `gpus` in all, each instance tp × pp (× ep where experts span more) GPUs;
// prefill_gpus and decode_gpus both > 0 for a disaggregated layout (their sum is `gpus`).
struct ServeLayout {
  int gpus = 1;
  int tp = 1;
  int pp = 1;
  int ep = 1;
  int prefill_gpus = 0;
  int decode_gpus = 0;
  bool Disaggregated() const { return prefill_gpus > 0 && decode_gpus > 0; }
};

// What is asked: fixed ISL/OSL (ignore_eos), and either a concurrency over the whole deployment
// or an offline max-throughput run (every request queued at once).
struct ServeLoad {
  int isl = 0;
  int osl = 0;
  int concurrency = 0;  // > 0: serving at this many requests in flight
  bool max_throughput = false;
};

// The system one instance runs on: the chip's rates (peaks, HBM, links; measured or overridden
// as for training) and what serving needs beside them.
struct ServeSystem {
  SystemRates rates;
  double hbm_capacity_bytes = 0;  // per GPU
};

// The fitted and stated constants of the serving model (calibration/serve_model.toml).
struct ServeConstants {
  double prefill_efficiency = 0.5;      // share of the tensor peak a prefill reaches
  double decode_hbm_efficiency = 0.7;   // share of HBM bandwidth a decode step reaches
  double host_seconds_per_step = 2e-3;  // scheduler, sampling and launch per decode step
  // Beside it, per sequence of the batch per decode step (sampling, a kernel's per-sequence
  // work); 0 unless measured (the CPU serving proxy measures it).
  double host_seconds_per_sequence = 0;
  double allreduce_latency_s = 8e-6;  // per TP all-reduce, beyond its bytes
  // Per transformer layer per decode step, beyond its bytes and FLOPs: the floor of the layer's
  // kernels (launch, synchronisation, the tail of each small kernel), whatever the batch or TP.
  double decode_seconds_per_layer = 0;
  // The share of the shorter of a decode step's reads and arithmetic the longer hides: 1 is
  // max(bytes, FLOPs), 0 their sum.
  double decode_overlap_share = 1;
  // Bytes per GPU the serving runtime holds beside the weights and the KV cache (the CUDA context,
  // activation and GEMM workspaces sized for the engine's largest batch, communication buffers):
  // the KV cache takes its share of the memory left after both.
  double runtime_reserved_bytes = 0;
  double kv_memory_share = 0.9;  // of the HBM left after the weights, what holds KV cache
  // The most sequences one instance batches: TensorRT-LLM's default max_batch_size (2048).
  double max_batch = 2048;
  // The share of a decode step a new request waits for its prefill at a concurrency: 0.5 when
  // requests arrive at random within a step; 0 where a request enters at the step boundary its
  // slot freed at (the CPU serving proxy's closed loop).
  double step_wait_share = 0.5;
};

// One term of a breakdown, in seconds per request (prefill) or per decode step.
struct ServeTerm {
  std::string name;  // "prefill_compute", "decode_weights", "decode_kv", "tp_allreduce", ...
  double seconds = 0;
  std::string basis;  // the arithmetic: "1.23e12 FLOP / 989 TFLOP/s × 0.55"
};

struct ServePrediction {
  double output_tokens_per_s_per_gpu = 0;
  double output_tokens_per_s = 0;
  double tokens_per_s_per_user = 0;
  double ttft_s = 0;
  double tpot_s = 0;
  int batch_per_instance = 0;  // sequences a decode instance holds at once
  int instances = 0;
  std::vector<ServeTerm> prefill;  // per request
  std::vector<ServeTerm> decode;   // per decode step
  std::vector<std::string> notes;  // what was assumed, what did not fit
};

// kExplained: every term carries its basis and the prediction its notes; kFiguresOnly: both left
// empty, the figures the same (a fit's thousands of evaluations, whose text cost more than their
// arithmetic).
enum class ServeText { kExplained, kFiguresOnly };

// Invalid when the layout does not divide the GPUs, the load has neither a concurrency nor
// max_throughput, the dtype has no rate, or the weights do not fit in the instance's HBM (the
// message names the bytes needed and held).
Result<ServePrediction> PredictServe(const ModelSpec& model, std::string_view dtype,
                                     const ServeLayout& layout, const ServeLoad& load,
                                     const ServeSystem& system, const ServeConstants& c,
                                     ServeText text = ServeText::kExplained);
// The same with the model's work already computed (ComputeServeWork(model, dtype)): a fit that
// predicts the same rows under many constants computes it once.
Result<ServePrediction> PredictServe(const ServeWork& work, std::string_view dtype,
                                     const ServeLayout& layout, const ServeLoad& load,
                                     const ServeSystem& system, const ServeConstants& c,
                                     ServeText text = ServeText::kExplained);

}  // namespace ys::predict

#endif  // YARDSTICK_PREDICT_SERVE_MODEL_H_
