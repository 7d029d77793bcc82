// Serving phases of a suite ([[phase]] tables of suites/<chip>-serving.toml): what one serving
// validation runs and how the run must look to be scored. The phases are NVIDIA's DeepSeek-R1
// serving recipe's (ISL/OSL in tokens): chat 128/128, reasoning 1000/1000, summarization
// 8000/512, generation 512/8000, and a disaggregated 8150/1024 phase (prefill and decode
// workers). Each phase names the model, precision, serving stack and version, the topology
// (aggregated TP/EP/DP, or prefill workers x TP and decode workers x TP), the concurrency (one, or
// a sweep), the requests per concurrency (at least 8x it), warm-up, streaming and fixed output
// length, the load generator, and the GPU count per-GPU figures are taken over.
#ifndef YARDSTICK_VALIDATE_SERVING_PHASE_H_
#define YARDSTICK_VALIDATE_SERVING_PHASE_H_

#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "core/toml_reader.h"

namespace ys::validate {

struct ServingPhase {
  std::string id;     // names the runs subfolder: "dsr1_fp4_chat"
  std::string phase;  // "chat", "reasoning", "summarization", "generation", "disaggregated"
  std::string model;  // "deepseek-r1"
  std::string precision;
  std::string stack;  // "trtllm", "vllm", "sglang", "dynamo-trtllm" ...
  std::string stack_version;
  std::string container;
  std::string served_model;  // the model path or name the server loads
  int gpus = 0;              // every GPU of the deployment
  int tp = 1, ep = 1, dp = 1, pp = 1;
  // Disaggregated: prefill workers x TP and decode workers x TP (0 when aggregated).
  int prefill_workers = 0, prefill_tp = 0, decode_workers = 0, decode_tp = 0;
  int isl = 0, osl = 0;
  std::vector<int> concurrency;  // one point, or a sweep
  int requests = 0;              // per concurrency point
  int warmup_requests = 0;
  bool streaming = true;
  bool ignore_eos = true;
  std::string load_generator = "aiperf";  // "aiperf", "genai-perf", "vllm"
  std::string mode = "serving";           // "serving", "offline", "latency"
  // What per-GPU throughput is divided by: "all GPUs" or "decode GPUs".
  std::string gpu_denominator = "all GPUs";
  std::optional<double> ttft_limit_ms;  // past it the point is overloaded

  bool disaggregated() const { return prefill_workers > 0; }
  // The GPUs per-GPU figures are taken over (gpus, or the decode GPUs).
  int DenominatorGpus() const;
};

// One [[phase]] table; strict (unknown keys, a topology whose GPUs do not add up, fewer requests
// than 8x the largest concurrency, an unknown phase name are errors naming the file and phase).
Result<ServingPhase> ParseServingPhase(const toml::table& t, const std::string& path, int index);

// "chat" -> {128, 128}; nullopt for a name that is not one of the five.
std::optional<std::pair<int, int>> PhaseLengths(std::string_view phase);

}  // namespace ys::validate

#endif  // YARDSTICK_VALIDATE_SERVING_PHASE_H_
