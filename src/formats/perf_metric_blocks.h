// The JSON exports of NVIDIA's load generators, AIPerf (profile_export_aiperf.json) and its
// predecessor GenAI-Perf (profile_export_genai_perf.json), share one shape: one block per metric,
// {"unit": "ms", "avg": .., "p1" .. "p99": .., "min": .., "max": .., "std": ..} (derived metrics:
// unit and avg only), at the top level (AIPerf 0.1: under "records"). This piece reads those
// blocks into a serving point for both readers (aiperf_json.cc, genai_perf_json.cc): each figure
// converted to ms, seconds or per-second as its block's unit says, with a note when converted.
// Both tools' "inter_token_latency" is (latency - TTFT) / (OSL - 1) per request: the point's
// TPOT; AIPerf's "inter_chunk_latency" is the gap between streamed chunks: the point's ITL.
#ifndef YARDSTICK_FORMATS_PERF_METRIC_BLOCKS_H_
#define YARDSTICK_FORMATS_PERF_METRIC_BLOCKS_H_

#include <any>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "core/format_registry.h"
#include "core/status.h"
#include "validate/inference_result.h"

namespace ys::formats {

// Whether `head` holds a metric block of these exports: "request_throughput",
// "time_to_first_token" or "request_latency" as a key whose object carries a "unit".
bool HasPerfMetricBlock(std::string_view head);

// The export as one JSON object (the request's text, or the file): Invalid names the file and
// where parsing stopped, or says that a top-level object was expected.
Result<nlohmann::json> ReadPerfExport(const FormatRequest& r, std::string_view what);

// Reads the metric blocks of `metrics` into `p`: throughputs, duration, request counts, the
// latency and length distributions. `tool` ("AIPerf", "GenAI-Perf") names the source in notes;
// a malformed block is Invalid "NAME: field 'time_to_first_token.p99' is \"x\"; expected ...".
Status ReadPerfMetricBlocks(const nlohmann::json& metrics, std::string_view tool,
                            const std::string& name, validate::ServingPoint& p);

// A number where the export may hold one: a JSON number or a numeric string; absent for null,
// a missing key and anything else. `path` is a list of keys ("loadgen", "concurrency").
std::optional<double> PerfNumberAt(const nlohmann::json& j,
                                   std::initializer_list<std::string_view> path);
std::optional<int64_t> PerfCountAt(const nlohmann::json& j,
                                   std::initializer_list<std::string_view> path);

// The "ignore_eos" of a tool's extra inputs, as an object {"ignore_eos": true} or a list of
// [name, value] pairs (AIPerf), with a boolean or "true"/"false" value; absent when not given.
std::optional<bool> PerfIgnoreEos(const nlohmann::json& extra);

// The mode from the load the tool was asked for: concurrency 1 is a latency run, another
// concurrency or a request rate a serving run.
void SetPerfMode(validate::ServingPoint& p);

// A note on the GPUs a telemetry block lists (`gpus` of them): never taken as the serving GPU
// count, since an exporter lists every GPU it sees, busy or idle.
void NotePerfTelemetryGpus(size_t gpus, validate::ServingPoint& p);

// The point judged (validate::EvaluateInference) as `format`'s one point.
std::any EvaluatePerfPoint(validate::ServingPoint p, std::string_view format,
                           const FormatRequest& r);

}  // namespace ys::formats

#endif  // YARDSTICK_FORMATS_PERF_METRIC_BLOCKS_H_
