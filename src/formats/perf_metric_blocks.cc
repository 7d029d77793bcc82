#include "formats/perf_metric_blocks.h"

#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "core/json_document.h"
#include "formats/format_text.h"
#include "validate/run_evaluation.h"

namespace ys::formats {
namespace {

constexpr size_t kMaxPerfExportBytes = size_t{64} << 20;

// What a block measures, which says the unit its figures are converted to.
enum class PerfKind { kLatencyMs, kSeconds, kPerSecond, kTokens, kCount };

struct PerfStatsBlock {
  std::string_view key;
  validate::ServingStats validate::ServingPoint::*into;
  PerfKind kind;
  std::string_view what;  // the point's name for it, in notes
};

struct PerfValueBlock {
  std::string_view key;
  std::optional<double> validate::ServingPoint::*into;
  PerfKind kind;
};

struct PerfCountBlock {
  std::string_view key;
  std::optional<int64_t> validate::ServingPoint::*into;
};

using P = validate::ServingPoint;

constexpr PerfStatsBlock kPerfStatsBlocks[] = {
    {"time_to_first_token", &P::ttft_ms, PerfKind::kLatencyMs, "TTFT"},
    {"inter_token_latency", &P::tpot_ms, PerfKind::kLatencyMs, "TPOT"},
    {"inter_chunk_latency", &P::itl_ms, PerfKind::kLatencyMs, "ITL"},
    {"request_latency", &P::e2el_ms, PerfKind::kLatencyMs, "request latency"},
    {"input_sequence_length", &P::isl_tokens, PerfKind::kTokens, "input length"},
    {"output_sequence_length", &P::osl_tokens, PerfKind::kTokens, "output length"},
};

constexpr PerfValueBlock kPerfValueBlocks[] = {
    {"request_throughput", &P::request_throughput, PerfKind::kPerSecond},
    {"output_token_throughput", &P::output_throughput, PerfKind::kPerSecond},
    {"total_token_throughput", &P::total_token_throughput, PerfKind::kPerSecond},
    {"output_token_throughput_per_user", &P::output_tokens_per_s_per_user, PerfKind::kPerSecond},
    // GenAI-Perf before 24.12 named the per-user figure per request.
    {"output_token_throughput_per_request", &P::output_tokens_per_s_per_user, PerfKind::kPerSecond},
    {"benchmark_duration", &P::duration_s, PerfKind::kSeconds},
};

constexpr PerfCountBlock kPerfCountBlocks[] = {
    {"request_count", &P::completed},
    {"error_request_count", &P::failed},
    {"osl_mismatch_count", &P::osl_mismatch},
};

// The factor from `unit` to the kind's unit; nullopt for a unit of another kind. A block
// without a unit is taken as written.
std::optional<double> PerfUnitFactor(std::string_view unit, PerfKind kind) {
  const std::string u = ToLower(Trim(unit));
  if (u.empty() || kind == PerfKind::kTokens || kind == PerfKind::kCount) return 1.0;
  auto time_in_s = [](std::string_view t) -> std::optional<double> {
    if (t == "ns") return 1e-9;
    if (t == "us" || t == "\xC2\xB5s") return 1e-6;
    if (t == "ms") return 1e-3;
    if (t == "s" || t == "sec" || t == "secs" || t == "seconds") return 1.0;
    return std::nullopt;
  };
  if (kind == PerfKind::kPerSecond) {
    // "requests/sec", "tokens/sec/user", "tokens per sec": per second, whatever is counted.
    for (std::string_view per : {"/sec", "/s", " per sec", " per second"}) {
      size_t at = u.find(per);
      if (at == std::string::npos) continue;
      std::string_view rest = std::string_view(u).substr(at + per.size());
      if (rest.empty() || rest == "/user") return 1.0;
    }
    return std::nullopt;
  }
  auto s = time_in_s(u);
  if (!s) return std::nullopt;
  return kind == PerfKind::kSeconds ? *s : *s * 1e3;
}

const char* PerfUnitExpected(PerfKind kind) {
  switch (kind) {
    case PerfKind::kLatencyMs:
    case PerfKind::kSeconds:
      return "a time unit (ns, us, ms, s, sec)";
    case PerfKind::kPerSecond:
      return "a rate per second (requests/sec, tokens/sec)";
    default:
      return "a unit";
  }
}

// The block `key` of `metrics` when it is an object; nullptr when absent or null (a metric the
// run did not produce). Invalid for anything else.
Result<const nlohmann::json*> PerfBlockOf(const nlohmann::json& metrics, std::string_view key,
                                          const std::string& name) {
  auto it = metrics.find(key);
  if (it == metrics.end() || it->is_null()) return static_cast<const nlohmann::json*>(nullptr);
  if (!it->is_object()) {
    return Status::Invalid(
        fmt::format("{}: field '{}' is {}; expected an object with \"unit\" "
                    "and \"avg\"",
                    name, key, JsonForMessage(*it)));
  }
  return &*it;
}

// A statistic's value: a number, or a numeric string (GenAI-Perf's first releases).
Result<std::optional<double>> PerfStatValue(const nlohmann::json& v, std::string_view field,
                                            const std::string& name) {
  if (v.is_null()) return std::optional<double>();
  std::optional<double> d;
  if (v.is_number()) d = v.get<double>();
  if (v.is_string()) d = ParseDouble(v.get_ref<const std::string&>());
  if (!d || !std::isfinite(*d)) {
    return Status::Invalid(
        fmt::format("{}: field '{}' is {}; expected a number", name, field, JsonForMessage(v)));
  }
  return d;
}

// The block's unit and its factor to `kind`'s unit (1 when absent).
Result<double> PerfBlockFactor(const nlohmann::json& block, std::string_view key, PerfKind kind,
                               const std::string& name, std::string* unit) {
  auto u = block.find("unit");
  if (u != block.end() && u->is_string()) *unit = u->get<std::string>();
  auto f = PerfUnitFactor(*unit, kind);
  if (!f) {
    return Status::Invalid(fmt::format("{}: field '{}.unit' is \"{}\"; expected {}", name, key,
                                       *unit, PerfUnitExpected(kind)));
  }
  return *f;
}

Status ReadPerfStats(const nlohmann::json& metrics, const PerfStatsBlock& b, std::string_view tool,
                     const std::string& name, P& p) {
  auto block = PerfBlockOf(metrics, b.key, name);
  if (!block.ok()) return block.status();
  if (*block == nullptr) return Status::Ok();
  std::string unit;
  auto factor = PerfBlockFactor(**block, b.key, b.kind, name, &unit);
  if (!factor.ok()) return factor.status();
  validate::ServingStats& into = p.*(b.into);
  for (const auto& [field, v] : (*block)->items()) {
    const std::string stat = validate::StatName(field);
    if (stat.empty()) continue;  // unit, count, sum
    auto value = PerfStatValue(v, fmt::format("{}.{}", b.key, field), name);
    if (!value.ok()) return value.status();
    if (*value) into[stat] = **value * *factor;
  }
  if (*factor != 1.0) {
    p.notes.push_back(fmt::format("{} from {}'s {} in {}, converted to {}", b.what, tool, b.key,
                                  unit, b.kind == PerfKind::kLatencyMs ? "ms" : "s"));
  }
  return Status::Ok();
}

// A derived block's "avg" (else its "count", for the counts of newer schemas), converted.
Result<std::optional<double>> PerfBlockValue(const nlohmann::json& metrics, std::string_view key,
                                             PerfKind kind, const std::string& name,
                                             std::string* unit) {
  auto block = PerfBlockOf(metrics, key, name);
  if (!block.ok()) return block.status();
  if (*block == nullptr) return std::optional<double>();
  auto factor = PerfBlockFactor(**block, key, kind, name, unit);
  if (!factor.ok()) return factor.status();
  const char* field = (*block)->contains("avg") || kind != PerfKind::kCount ? "avg" : "count";
  auto v = (*block)->find(field);
  if (v == (*block)->end()) return std::optional<double>();
  auto value = PerfStatValue(*v, fmt::format("{}.{}", key, field), name);
  if (!value.ok() || !*value) return value;
  return std::optional<double>(**value * *factor);
}

}  // namespace

bool HasPerfMetricBlock(std::string_view head) {
  for (std::string_view key : {"request_throughput", "time_to_first_token", "request_latency"}) {
    const std::string quoted = "\"" + std::string(key) + "\"";
    for (size_t at = head.find(quoted); at != std::string_view::npos;
         at = head.find(quoted, at + 1)) {
      size_t brace = head.find_first_not_of(" \t\r\n", at + quoted.size());
      if (brace == std::string_view::npos || head[brace] != ':') continue;
      brace = head.find_first_not_of(" \t\r\n", brace + 1);
      if (brace == std::string_view::npos || head[brace] != '{') continue;
      size_t close = head.find('}', brace);
      std::string_view body = head.substr(brace, close == head.npos ? 400 : close - brace);
      if (body.find("\"unit\"") != std::string_view::npos) return true;
    }
  }
  return false;
}

Result<nlohmann::json> ReadPerfExport(const FormatRequest& r, std::string_view what) {
  auto text = ReadFormatContent(r, kMaxPerfExportBytes, what);
  if (!text.ok()) return text.status();
  auto doc = ParseJsonDocument(*text, r.path);
  if (!doc.ok()) return doc.status();
  if (!doc->is_object()) {
    return Status::Invalid(fmt::format("{}: the top level is {}; expected {} (one JSON object)",
                                       r.path, JsonTypePhrase(*doc), what));
  }
  return doc;
}

Status ReadPerfMetricBlocks(const nlohmann::json& metrics, std::string_view tool,
                            const std::string& name, P& p) {
  for (const PerfStatsBlock& b : kPerfStatsBlocks) {
    if (Status s = ReadPerfStats(metrics, b, tool, name, p); !s.ok()) return s;
  }
  for (const PerfValueBlock& b : kPerfValueBlocks) {
    std::string unit;
    auto v = PerfBlockValue(metrics, b.key, b.kind, name, &unit);
    if (!v.ok()) return v.status();
    if (*v) p.*(b.into) = **v;
  }
  for (const PerfCountBlock& b : kPerfCountBlocks) {
    std::string unit;
    auto v = PerfBlockValue(metrics, b.key, PerfKind::kCount, name, &unit);
    if (!v.ok()) return v.status();
    if (!*v) continue;
    if (**v < 0 || std::abs(**v - std::round(**v)) > 1e-6) {
      return Status::Invalid(
          fmt::format("{}: field '{}.avg' is {}; expected a whole count >= 0", name, b.key, **v));
    }
    p.*(b.into) = static_cast<int64_t>(std::llround(**v));
  }
  if (!p.output_throughput && !p.request_throughput && p.ttft_ms.empty() && p.e2el_ms.empty()) {
    return Status::Invalid(fmt::format(
        "{}: no {} metric block: expected \"request_throughput\", \"output_token_throughput\" "
        "or \"request_latency\" as {{\"unit\": ..., \"avg\": ...}}",
        name, tool));
  }
  if (!p.tpot_ms.empty()) {
    p.notes.push_back(
        fmt::format("TPOT from {}'s inter_token_latency ((request latency - TTFT) / "
                    "(output tokens - 1) per request)",
                    tool));
  }
  if (!p.itl_ms.empty()) {
    p.notes.push_back(
        fmt::format("ITL from {}'s inter_chunk_latency (the gap between streamed "
                    "chunks)",
                    tool));
  }
  return Status::Ok();
}

std::optional<double> PerfNumberAt(const nlohmann::json& j,
                                   std::initializer_list<std::string_view> path) {
  const nlohmann::json* at = &j;
  for (std::string_view key : path) {
    if (!at->is_object()) return std::nullopt;
    auto it = at->find(key);
    if (it == at->end()) return std::nullopt;
    at = &*it;
  }
  std::optional<double> d;
  if (at->is_number()) d = at->get<double>();
  if (at->is_string()) d = ParseDouble(at->get_ref<const std::string&>());
  if (d && !std::isfinite(*d)) return std::nullopt;
  return d;
}

std::optional<int64_t> PerfCountAt(const nlohmann::json& j,
                                   std::initializer_list<std::string_view> path) {
  auto d = PerfNumberAt(j, path);
  if (!d || *d < 0 || *d > 9e15 || *d != std::floor(*d)) return std::nullopt;
  return static_cast<int64_t>(*d);
}

std::optional<bool> PerfIgnoreEos(const nlohmann::json& extra) {
  auto as_bool = [](const nlohmann::json& v) -> std::optional<bool> {
    if (v.is_boolean()) return v.get<bool>();
    if (v.is_string()) {
      const std::string s = ToLower(v.get<std::string>());
      if (s == "true") return true;
      if (s == "false") return false;
    }
    return std::nullopt;
  };
  if (extra.is_object()) {
    auto it = extra.find("ignore_eos");
    return it == extra.end() ? std::nullopt : as_bool(*it);
  }
  if (!extra.is_array()) return std::nullopt;
  for (const nlohmann::json& pair : extra) {
    if (pair.is_array() && pair.size() == 2 && pair[0] == "ignore_eos") return as_bool(pair[1]);
  }
  return std::nullopt;
}

void SetPerfMode(P& p) {
  if (p.max_concurrency && *p.max_concurrency == 1 && p.request_rate.empty()) {
    p.mode = validate::ServingMode::kLatency;
  } else if (p.max_concurrency || !p.request_rate.empty()) {
    p.mode = validate::ServingMode::kServing;
  }
}

void NotePerfTelemetryGpus(size_t gpus, P& p) {
  if (gpus == 0) return;
  p.notes.push_back(fmt::format(
      "GPU telemetry lists {} GPU(s); not taken as the serving GPU count (the exporter lists "
      "every GPU it sees, idle ones too): per-GPU figures need --gpus",
      gpus));
}

std::any EvaluatePerfPoint(P p, std::string_view format, const FormatRequest& r) {
  validate::InferenceResult result;
  result.format = std::string(format);
  result.points.push_back(std::move(p));
  return std::any(validate::EvaluateInference(std::move(result), IngestOptionsOf(r), r.path));
}

}  // namespace ys::formats
