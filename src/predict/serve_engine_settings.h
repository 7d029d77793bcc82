// The engine settings `trtllm-bench` picks for an offline max-throughput run when none are given:
// the max_batch_size and max_num_tokens its tuning heuristic derives from the model, the
// precision, the TP × PP mapping, the GPU's memory and the dataset's ISL and OSL
// (NVIDIA/TensorRT-LLM tensorrt_llm/bench/build/tuning.py calc_engine_setting and
// finetune_setting, as of the releases v0.17–v0.20 whose published figures calibrate the serving
// model; our own arithmetic after that description):
//   KV bytes per token = the model's KV bytes per token with max(tp, kv_heads) KV heads (each
//                        tensor-parallel rank holds one head at least), in the KV cache's dtype;
//   engine bytes       = every parameter at 2, 1 or 0.5 bytes (bf16, fp8, nvfp4);
//   requests           = 0.95 × (tp × pp × memory − engine bytes) /
//                        (KV bytes per token × (ISL + OSL));
//   raw batch          = min(requests, 4096) / pp;
//   raw tokens         = min(raw batch × (1 + ISL / OSL), 32768);
//   max_batch_size     = raw batch rounded up: to a multiple of 32 (at least 64) below 256, of
//                        128 below 1024, else of 256;
//   max_num_tokens     = raw tokens rounded up: to 256 (at least 2048) below 4096, 512 below
//                        8192, else 1024.
// The runtime then batches no more than max_batch_size sequences per instance, whatever the KV
// cache holds: the serving model's cap at max throughput (serve_model.h).
//
// Thread safety: pure functions.
#ifndef YARDSTICK_PREDICT_SERVE_ENGINE_SETTINGS_H_
#define YARDSTICK_PREDICT_SERVE_ENGINE_SETTINGS_H_

#include <string_view>

#include "core/status.h"
#include "predict/serve_work.h"

namespace ys::predict {

struct BenchEngineSettings {
  double kv_cache_max_requests = 0;  // before the caps and rounding
  int max_batch_size = 0;
  int max_num_tokens = 0;
};

// The rounding of finetune_setting alone, from the requests the KV cache holds.
BenchEngineSettings FinetuneBenchSettings(double kv_cache_max_requests, int isl, int osl, int pp);

// Invalid when the engine does not fit in tp × pp × `device_memory_bytes`, or not one request's
// KV cache does beside it (trtllm-bench refuses such a run), or a length or the mapping is below 1.
Result<BenchEngineSettings> TrtllmBenchEngineSettings(const ServeWork& w,
                                                      double device_memory_bytes, int tp, int pp,
                                                      int isl, int osl);

}  // namespace ys::predict

#endif  // YARDSTICK_PREDICT_SERVE_ENGINE_SETTINGS_H_
