// Inference results: the JSON a serving benchmark exports (vLLM `benchmark_serving.py
// --save-result`, SGLang `bench_serving --output-file`, which appends one JSON object per line).
// One object is one serving point (one concurrency / request rate). Read fields:
//   completed, num_prompts, duration, max_concurrency, request_rate, backend, model_id,
//   request_throughput, output_throughput, total_token_throughput (SGLang: input_throughput +
//   output_throughput), {mean,median,p99}_{ttft,tpot,itl}_ms.
// Per-GPU figures need the GPU count from the caller: the JSON does not know it. Nothing is
// normalised by a number the file does not hold.
#ifndef YARDSTICK_VALIDATE_INFERENCE_RESULT_H_
#define YARDSTICK_VALIDATE_INFERENCE_RESULT_H_

#include <cstdint>
#include <istream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace ys::validate {

struct ServingPoint {
  std::string backend;
  std::string model_id;
  std::optional<int64_t> max_concurrency;
  std::string request_rate;  // as given: "inf" or a number's text
  std::optional<int64_t> num_prompts;
  std::optional<int64_t> completed;
  std::optional<double> duration_s;
  std::optional<double> request_throughput;      // req/s
  std::optional<double> output_throughput;       // output tokens/s, whole deployment
  std::optional<double> total_token_throughput;  // input + output tokens/s
  std::optional<double> mean_ttft_ms, median_ttft_ms, p99_ttft_ms;
  std::optional<double> mean_tpot_ms, median_tpot_ms, p99_tpot_ms;
  std::optional<double> mean_itl_ms, median_itl_ms, p99_itl_ms;
  // Filled when the GPU count is known.
  std::optional<double> output_tokens_per_s_per_gpu;
  std::optional<double> total_tokens_per_s_per_gpu;
  bool operator==(const ServingPoint&) const = default;
};

struct InferenceResult {
  std::vector<ServingPoint> points;  // file order
  std::optional<int64_t> gpus;
  // The file is a NeMo-RL metrics.json, not a serving result (unsupported framework).
  bool nemo_rl_metrics = false;
  bool operator==(const InferenceResult&) const = default;
};

// Parses a JSON object, a JSON array of objects, or JSON lines. Per-request arrays (ttfts, itls,
// generated_texts, ...) are dropped while parsing, so a large export stays small in memory.
// Invalid names `name`, the record and the field, and says what was expected.
Result<InferenceResult> ParseServingResults(std::istream& in, std::string_view name);
Result<InferenceResult> ParseServingResultsText(std::string_view text, std::string_view name);

// Sets the per-GPU figures of every point.
void NormaliseByGpus(InferenceResult& r, std::optional<int64_t> gpus);

}  // namespace ys::validate

#endif  // YARDSTICK_VALIDATE_INFERENCE_RESULT_H_
