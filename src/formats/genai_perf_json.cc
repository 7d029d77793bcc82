// Format unit: GenAI-Perf's profile_export_genai_perf.json (triton-inference-server/perf_analyzer,
// `genai-perf profile`, AIPerf's predecessor): the metric blocks (perf_metric_blocks.h), GPU
// telemetry_stats, request_goodput, and input_config in one of two layouts: the flat argument
// dump of releases before 0.0.13 ("concurrency", "request_count", "output_tokens_mean",
// "extra_inputs") or the config-file layout after ("perf_analyzer": {"stimulus", "measurement"},
// "input": {"output_tokens", "synthetic_tokens", "extra"}).
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "formats/format_text.h"
#include "formats/perf_metric_blocks.h"

namespace ys::formats {
namespace {

// Keys GenAI-Perf writes and AIPerf does not.
constexpr std::string_view kGenaiPerfOnlyKeys[] = {
    "telemetry_stats", "request_goodput", "output_token_throughput_per_request",
    "perf_analyzer",   "service_kind",    "formatted_model_name",
};

FormatSniff SniffGenaiPerfJson(std::string_view head) {
  if (FirstByte(head) != '{' || !HasPerfMetricBlock(head)) return {};
  if (HasJsonKey(head, "aiperf_version") || HasJsonKey(head, "inter_chunk_latency")) return {};
  for (std::string_view key : kGenaiPerfOnlyKeys) {
    if (HasJsonKey(head, key)) {
      return Whole(fmt::format("GenAI-Perf's metric blocks and the key \"{}\"", key));
    }
  }
  return Near(0.5,
              "GenAI-Perf's input_config (\"service_kind\", \"perf_analyzer\") or "
              "\"telemetry_stats\"");
}

// The flat argument dump (before 0.0.13): request_count 0 means a measurement interval.
void ReadGenaiPerfFlatConfig(const nlohmann::json& c, validate::ServingPoint& p) {
  if (auto n = PerfCountAt(c, {"request_count"}); n && *n > 0) p.num_prompts = n;
  if (auto n = PerfCountAt(c, {"warmup_request_count"}); n && *n > 0) p.warmup_requests = n;
  p.max_concurrency = PerfCountAt(c, {"concurrency"});
  if (auto rate = PerfNumberAt(c, {"request_rate"}); rate && *rate > 0) {
    p.request_rate = fmt::format("{}", *rate);
  }
  p.isl_asked = PerfNumberAt(c, {"synthetic_input_tokens_mean"});
  p.osl_asked = PerfNumberAt(c, {"output_tokens_mean"});
  if (auto extra = c.find("extra_inputs"); extra != c.end()) p.ignore_eos = PerfIgnoreEos(*extra);
  if (auto model = c.find("model");
      model != c.end() && model->is_array() && !model->empty() && (*model)[0].is_string()) {
    p.model_id = (*model)[0].get<std::string>();
  }
}

// The config-file layout (0.0.13 and later).
void ReadGenaiPerfNestedConfig(const nlohmann::json& c, validate::ServingPoint& p) {
  const nlohmann::json& pa = c["perf_analyzer"];
  auto mode = pa.is_object() ? pa.find("measurement") : pa.end();
  if (mode != pa.end() && mode->is_object() && mode->contains("mode") &&
      (*mode)["mode"] == "request_count") {
    p.num_prompts = PerfCountAt(*mode, {"num"});
  }
  if (auto n = PerfCountAt(pa, {"warmup_request_count"}); n && *n > 0) p.warmup_requests = n;
  p.max_concurrency = PerfCountAt(pa, {"stimulus", "concurrency"});
  if (auto rate = PerfNumberAt(pa, {"stimulus", "request_rate"}); rate && *rate > 0) {
    p.request_rate = fmt::format("{}", *rate);
  }
  p.isl_asked = PerfNumberAt(c, {"input", "synthetic_tokens", "mean"});
  p.osl_asked = PerfNumberAt(c, {"input", "output_tokens", "mean"});
  if (c.contains("input") && c["input"].is_object() && c["input"].contains("extra")) {
    p.ignore_eos = PerfIgnoreEos(c["input"]["extra"]);
  }
  if (auto models = c.find("model_names");
      models != c.end() && models->is_array() && !models->empty() && (*models)[0].is_string()) {
    p.model_id = (*models)[0].get<std::string>();
  }
}

// The GPUs telemetry_stats lists: the per-GPU keys ("0", "1", ...) under its first metric.
size_t GenaiPerfTelemetryGpus(const nlohmann::json& doc) {
  auto stats = doc.find("telemetry_stats");
  if (stats == doc.end() || !stats->is_object() || stats->empty()) return 0;
  const nlohmann::json& first = stats->begin().value();
  if (!first.is_object()) return 0;
  size_t gpus = 0;
  for (const auto& [key, value] : first.items()) gpus += key != "unit" && value.is_object();
  return gpus;
}

Result<std::any> ReadGenaiPerfJson(const FormatRequest& r) {
  auto doc = ReadPerfExport(r, "GenAI-Perf's profile_export_genai_perf.json");
  if (!doc.ok()) return doc.status();
  validate::ServingPoint p;
  p.tool = "genai-perf";
  if (Status s = ReadPerfMetricBlocks(*doc, "GenAI-Perf", r.path, p); !s.ok()) return s;
  if (auto c = doc->find("input_config"); c != doc->end() && c->is_object()) {
    if (c->contains("perf_analyzer") && (*c)["perf_analyzer"].is_object()) {
      ReadGenaiPerfNestedConfig(*c, p);
    } else {
      ReadGenaiPerfFlatConfig(*c, p);
    }
  }
  SetPerfMode(p);
  NotePerfTelemetryGpus(GenaiPerfTelemetryGpus(*doc), p);
  return EvaluatePerfPoint(std::move(p), "genai-perf-json", r);
}

}  // namespace

YS_FORMAT(
    SniffGenaiPerfJson, ReadGenaiPerfJson,
    {.name = "genai-perf-json",
     .produces = FormatProduct::kWorkloadRun,
     .summary = "GenAI-Perf's profile_export_genai_perf.json (genai-perf profile): per-metric "
                "blocks of unit, avg and percentiles, telemetry_stats, input_config",
     .example = "{\"request_throughput\": {\"unit\": \"requests/sec\", \"avg\": 17.2}, ..., "
                "\"telemetry_stats\": {...}, \"input_config\": {...}}"})

}  // namespace ys::formats
