// Format unit: serving-benchmark result JSON, as vLLM's benchmark_serving (`--save-result`) and
// SGLang's bench_serving write it: one object, an array of objects, or one object per line.
#include "formats/format_text.h"
#include "formats/perf_metric_blocks.h"
#include "validate/inference_result.h"
#include "validate/ingest.h"
#include "validate/run_evaluation.h"

namespace ys::formats {
namespace {

FormatSniff SniffServingJson(std::string_view head) {
  const char first = FirstByte(head);
  if (first != '{' && first != '[') return {};
  // AIPerf's and GenAI-Perf's exports name the same figures as metric blocks ({"unit", "avg"}):
  // theirs (aiperf-json, genai-perf-json), not this flat record.
  if (HasPerfMetricBlock(head) || HasJsonKey(head, "aiperf_version")) return {};
  for (const char* key : {"request_throughput", "output_throughput", "mean_ttft_ms"}) {
    if (HasJsonKey(head, key)) return Whole(std::string("the key \"") + key + "\"");
  }
  // The keys benchmark_serving writes first (a file cut before its figures).
  for (const char* key : {"num_prompts", "max_concurrency", "request_rate"}) {
    if (HasJsonKey(head, key)) {
      return Fragment(std::string("the key \"") + key + "\"",
                      "the throughput keys (\"request_throughput\", \"output_throughput\")");
    }
  }
  return Near(0.3,
              "the serving-benchmark keys (\"request_throughput\", \"output_throughput\", "
              "\"mean_ttft_ms\")");
}

Result<std::any> ReadServingJson(const FormatRequest& r) {
  if (r.text) {  // a section already in memory; a file is streamed (its per-request arrays dropped)
    auto parsed = validate::ParseServingResultsText(*r.text, r.path);
    if (!parsed.ok()) return parsed.status();
    return std::any(validate::EvaluateInference(std::move(*parsed), IngestOptionsOf(r), r.path));
  }
  validate::IngestOptions o = IngestOptionsOf(r);
  o.format = validate::LogFormat::kInferenceJson;
  auto run = validate::IngestLog(r.path, o);
  if (!run.ok()) return run.status();
  return std::any(std::move(*run));
}

}  // namespace

YS_FORMAT(SniffServingJson, ReadServingJson,
          {.name = "inference-json",
           .produces = FormatProduct::kWorkloadRun,
           .summary = "serving-benchmark results: vLLM benchmark_serving --save-result and SGLang "
                      "bench_serving JSON (an object, an array, or JSON Lines)",
           .example = "{\"backend\": \"vllm\", \"completed\": 1000, \"request_throughput\": 12.3, "
                      "\"output_throughput\": 3140.5, ...}"})

}  // namespace ys::formats
