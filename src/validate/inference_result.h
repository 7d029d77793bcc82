// Inference results: what a serving benchmark reports, read by the serving formats of the format
// room (vLLM and SGLang JSON here; AIPerf, GenAI-Perf, trtllm-bench, MLPerf LoadGen and the
// console blocks in src/formats/). One ServingPoint is one serving point (one concurrency or
// request rate); per-request arrays are never kept.
// Per-GPU figures need a GPU count: the file's when it states one, else the caller's (--gpus);
// otherwise they are absent. Nothing is normalised by a number nobody gave.
#ifndef YARDSTICK_VALIDATE_INFERENCE_RESULT_H_
#define YARDSTICK_VALIDATE_INFERENCE_RESULT_H_

#include <cstdint>
#include <istream>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace ys::validate {

// One figure's distribution over the requests of a point (latencies in ms, lengths in tokens),
// keyed by statistic as the file gives it: "mean", "std", "min", "max", "p50" (the median), "p90",
// "p99", "p99.9" ... Nothing is computed that the file does not print.
using ServingStats = std::map<std::string, double>;
// The statistic `name` ("mean", "p50"/"median", "p99"), if the file gave it.
std::optional<double> StatOf(const ServingStats& s, std::string_view name);
// "mean", "median" -> "p50", "P99" -> "p99", "99.9" -> "p99.9"; empty when not a statistic.
std::string StatName(std::string_view text);

// What the load generator did: a serving run at a concurrency or request rate; an offline
// max-throughput run (every request queued at once: its TTFT is queueing, not a serving TTFT); a
// single-stream latency run (concurrency 1).
enum class ServingMode { kUnknown, kServing, kOffline, kLatency };
// "unknown", "serving", "offline", "latency".
const char* ServingModeName(ServingMode m);
std::optional<ServingMode> ParseServingMode(std::string_view name);

// One serving point: one concurrency / request rate of one run, as one tool reported it.
// Latencies have one definition each, whatever the tool called them (a reader converts and says
// so in `notes`):
//   ttft_ms  request sent -> first output token;
//   tpot_ms  per request, (request latency - TTFT) / (output tokens - 1): vLLM's and SGLang's
//            TPOT, AIPerf's and GenAI-Perf's "inter_token_latency", trtllm-bench's TPOT, MLPerf's
//            TPOT;
//   itl_ms   the gap between consecutive streamed chunks: vLLM's and SGLang's ITL, AIPerf's
//            "inter_chunk_latency";
//   e2el_ms  request latency, sent -> last token.
struct ServingPoint {
  std::string tool;  // the program that wrote it: "vllm", "sglang", "aiperf", "genai-perf", ...
  std::string backend;
  std::string model_id;
  ServingMode mode = ServingMode::kUnknown;
  std::optional<int64_t> max_concurrency;
  std::string request_rate;  // as given: "inf" or a number's text
  // Requests: asked, completed, failed (errors and cancellations), and outputs whose length
  // differs from the one asked (AIPerf's osl_mismatch_count).
  std::optional<int64_t> num_prompts;
  std::optional<int64_t> completed;
  std::optional<int64_t> failed;
  std::optional<int64_t> osl_mismatch;
  std::optional<int64_t> warmup_requests;  // sent before the measured window
  bool warmup_in_window = false;           // the tool's record counts warm-up requests in it
  bool cancelled = false;                  // the tool says the run was stopped before its end
  // Tokens per request: asked (the tool's arguments), and achieved over the requests.
  std::optional<double> isl_asked, osl_asked;
  ServingStats isl_tokens, osl_tokens;
  std::optional<bool> ignore_eos;  // the tool's own record of its argument
  std::optional<double> duration_s;
  // Throughput of the whole deployment.
  std::optional<double> request_throughput;      // req/s
  std::optional<double> output_throughput;       // output tokens/s
  std::optional<double> total_token_throughput;  // input + output tokens/s
  // Output tokens/s per user after the first token (the decode rate a user sees, about 1000 /
  // TPOT): AIPerf's and GenAI-Perf's per-user figure; a rate that counts the first token's wait
  // (trtllm-bench's "[w/ ctx]") is not this one.
  std::optional<double> output_tokens_per_s_per_user;
  ServingStats ttft_ms, tpot_ms, itl_ms, e2el_ms;
  std::optional<bool> loadgen_valid;  // MLPerf LoadGen's "Result is : VALID/INVALID"
  // The GPUs the file says served the point, and what they are ("all GPUs", "decode GPUs").
  std::optional<int64_t> gpus;
  std::string gpu_denominator;
  std::optional<int64_t> tp, pp, ep;
  std::vector<std::string> notes;  // conversions made while reading
  // Why the point does not measure serving capacity ("requests_lost: 353 of 500 requests
  // completed"), from validate/serving_validity.h; empty when it does.
  std::vector<std::string> flaws;
  // Per GPU: the deployment's throughput over `gpus` (the file's), else the caller's count.
  std::optional<double> output_tokens_per_s_per_gpu;
  std::optional<double> total_tokens_per_s_per_gpu;
  bool operator==(const ServingPoint&) const = default;
};

struct InferenceResult {
  std::string format;                // the format read: "inference-json", "aiperf-json", ...
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

// How messages name a point: "concurrency 64", "request rate 10", "offline point", "the point".
std::string ServingPointName(const ServingPoint& p);

// Sets the per-GPU figures of every point: over the point's own GPU count when the file stated
// one, else over `gpus`; `r.gpus` records the caller's count.
void NormaliseByGpus(InferenceResult& r, std::optional<int64_t> gpus);

}  // namespace ys::validate

#endif  // YARDSTICK_VALIDATE_INFERENCE_RESULT_H_
