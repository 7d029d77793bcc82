// Format unit: AIPerf's profile_export_aiperf.json (ai-dynamo/aiperf, `aiperf profile`): the
// metric blocks (perf_metric_blocks.h) with schema_version, aiperf_version, input_config (what
// was asked: loadgen's request count, concurrency or rate and warm-up; the prompt's token
// means; extra inputs such as ignore_eos), was_cancelled, error_summary and GPU telemetry.
// AIPerf 0.1 kept the blocks under "records"; later releases at the top level.
#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

#include "formats/format_text.h"
#include "formats/perf_metric_blocks.h"

namespace ys::formats {
namespace {

// Keys only AIPerf writes (GenAI-Perf writes the same metric blocks, without these).
constexpr std::string_view kAiperfOnlyKeys[] = {
    "aiperf_version", "inter_chunk_latency", "min_request_timestamp",
    "was_cancelled",  "error_summary",       "telemetry_data",
};

FormatSniff SniffAiperfJson(std::string_view head) {
  if (FirstByte(head) != '{') return {};
  const bool blocks = HasPerfMetricBlock(head);
  for (std::string_view key : kAiperfOnlyKeys) {
    if (HasJsonKey(head, key) && (blocks || key == "aiperf_version")) {
      return Whole(fmt::format("AIPerf's metric blocks and the key \"{}\"", key));
    }
  }
  // AIPerf 0.1: {"records": {"request_throughput": {"tag": ..., "unit": ...}}, ...}
  if (HasJsonKey(head, "records") && HasJsonKey(head, "tag") && HasJsonKey(head, "header") &&
      blocks) {
    return Whole("AIPerf 0.1's \"records\" of metric blocks");
  }
  if (blocks && !HasJsonKey(head, "telemetry_stats") && !HasJsonKey(head, "service_kind")) {
    return Fragment("a metric block {\"unit\": ..., \"avg\": ...}",
                    "the keys that tell AIPerf from GenAI-Perf (\"aiperf_version\", "
                    "\"inter_chunk_latency\")");
  }
  return Near(0.2, "AIPerf's \"aiperf_version\" and its metric blocks");
}

// What input_config says was asked: requests, load, warm-up, token lengths, ignore_eos.
void ReadAiperfConfig(const nlohmann::json& config, validate::ServingPoint& p) {
  if (!config.is_object()) return;
  p.num_prompts = PerfCountAt(config, {"loadgen", "request_count"});
  p.warmup_requests = PerfCountAt(config, {"loadgen", "warmup_request_count"});
  p.max_concurrency = PerfCountAt(config, {"loadgen", "concurrency"});
  if (auto rate = PerfNumberAt(config, {"loadgen", "request_rate"}); rate && *rate > 0) {
    p.request_rate = fmt::format("{}", *rate);
  }
  p.isl_asked = PerfNumberAt(config, {"input", "prompt", "input_tokens", "mean"});
  p.osl_asked = PerfNumberAt(config, {"input", "prompt", "output_tokens", "mean"});
  if (auto input = config.find("input"); input != config.end() && input->is_object()) {
    if (auto extra = input->find("extra"); extra != input->end()) {
      p.ignore_eos = PerfIgnoreEos(*extra);
    }
  }
  if (auto endpoint = config.find("endpoint"); endpoint != config.end() && endpoint->is_object()) {
    auto models = endpoint->find("model_names");
    if (models != endpoint->end() && models->is_array() && !models->empty() &&
        (*models)[0].is_string()) {
      p.model_id = (*models)[0].get<std::string>();
    }
  }
}

// The distinct GPUs (by UUID) of telemetry_data.endpoints.*.gpus.*: one GPU seen through two
// exporters counts once.
size_t AiperfTelemetryGpus(const nlohmann::json& doc) {
  std::set<std::string> uuids;
  auto telemetry = doc.find("telemetry_data");
  if (telemetry == doc.end() || !telemetry->is_object()) return 0;
  auto endpoints = telemetry->find("endpoints");
  if (endpoints == telemetry->end() || !endpoints->is_object()) return 0;
  for (const auto& [url, endpoint] : endpoints->items()) {
    if (!endpoint.is_object() || !endpoint.contains("gpus") || !endpoint["gpus"].is_object()) {
      continue;
    }
    for (const auto& [id, gpu] : endpoint["gpus"].items()) {
      auto uuid = gpu.is_object() ? gpu.find("gpu_uuid") : gpu.end();
      uuids.insert(uuid != gpu.end() && uuid->is_string() ? uuid->get<std::string>() : url + id);
    }
  }
  return uuids.size();
}

// Errors the export counts: error_request_count when it printed one, else error_summary's
// counts; a cancelled run is said in the notes.
void ReadAiperfErrors(const nlohmann::json& doc, validate::ServingPoint& p) {
  if (!p.failed) {
    auto summary = doc.find("error_summary");
    if (summary != doc.end() && summary->is_array() && !summary->empty()) {
      int64_t errors = 0;
      for (const nlohmann::json& e : *summary) {
        errors =
            std::min<int64_t>(errors + PerfCountAt(e, {"count"}).value_or(1), int64_t{1} << 53);
      }
      p.failed = errors;
      p.notes.push_back("failed requests from AIPerf's error_summary");
    }
  }
  auto cancelled = doc.find("was_cancelled");
  if (cancelled != doc.end() && cancelled->is_boolean() && cancelled->get<bool>()) {
    p.cancelled = true;
    p.notes.push_back(
        "AIPerf says the run was cancelled (was_cancelled: true): the figures cover the "
        "requests made before it stopped");
  }
}

Result<std::any> ReadAiperfJson(const FormatRequest& r) {
  auto doc = ReadPerfExport(r, "AIPerf's profile_export_aiperf.json");
  if (!doc.ok()) return doc.status();
  validate::ServingPoint p;
  p.tool = "aiperf";
  auto records = doc->find("records");
  const bool nested = records != doc->end() && records->is_object();
  if (Status s = ReadPerfMetricBlocks(nested ? *records : *doc, "AIPerf", r.path, p); !s.ok()) {
    return s;
  }
  if (auto config = doc->find("input_config"); config != doc->end()) {
    ReadAiperfConfig(*config, p);
  }
  ReadAiperfErrors(*doc, p);
  SetPerfMode(p);
  NotePerfTelemetryGpus(AiperfTelemetryGpus(*doc), p);
  return EvaluatePerfPoint(std::move(p), "aiperf-json", r);
}

}  // namespace

YS_FORMAT(SniffAiperfJson, ReadAiperfJson,
          {.name = "aiperf-json",
           .produces = FormatProduct::kWorkloadRun,
           .summary = "AIPerf's profile_export_aiperf.json (aiperf profile): per-metric blocks of "
                      "unit, avg and percentiles, with the run's input_config",
           .example = "{\"schema_version\": \"1.4\", \"aiperf_version\": \"0.5.0\", "
                      "\"request_throughput\": {\"unit\": \"requests/sec\", \"avg\": 1.93}, ...}"})

}  // namespace ys::formats
