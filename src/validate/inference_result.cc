#include "validate/inference_result.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/json_document.h"
#include "validate/json_record_stream.h"

namespace ys::validate {
namespace {

using json = nlohmann::json;
using Record = JsonRecord;

class RecordReader {
 public:
  RecordReader(const Record& r, std::string where, std::vector<std::string>& notes)
      : r_(r), where_(std::move(where)), notes_(notes) {}

  const Status& status() const { return status_; }

  // A number; a bare NaN or Infinity is absent, with a note.
  std::optional<double> Number(const char* key) {
    auto it = r_.find(key);
    if (it == r_.end() || it->second.is_null()) return std::nullopt;
    if (IsNonFiniteText(it->second)) {
      notes_.push_back(
          fmt::format("'{}' is {}: read as absent", key, it->second.get_ref<const std::string&>()));
      return std::nullopt;
    }
    if (!it->second.is_number()) {
      Fail(key, "a number");
      return std::nullopt;
    }
    return it->second.get<double>();
  }
  std::optional<int64_t> Count(const char* key) {
    std::optional<double> v = Number(key);
    if (!v) return std::nullopt;
    if (!(*v >= 0 && *v < 0x1p63) || *v != std::floor(*v)) {  // an int64_t holds it
      Fail(key, "a whole number >= 0");
      return std::nullopt;
    }
    return static_cast<int64_t>(*v);
  }
  std::string Text(const char* key) {
    auto it = r_.find(key);
    if (it == r_.end() || it->second.is_null()) return {};
    if (it->second.is_string()) return it->second.get<std::string>();
    if (it->second.is_number()) return it->second.dump();
    Fail(key, "a string");
    return {};
  }
  // A --metadata value: vLLM writes `--metadata key=value` as the string "value". Read as a
  // number when it is one, whether a number or a string; nullopt otherwise (no error: metadata
  // is the user's, not the tool's).
  std::optional<double> Loose(const char* key) const {
    auto it = r_.find(key);
    if (it == r_.end()) return std::nullopt;
    if (it->second.is_number()) return it->second.get<double>();
    if (!it->second.is_string()) return std::nullopt;
    const std::string& s = it->second.get_ref<const std::string&>();
    char* end = nullptr;
    double v = std::strtod(s.c_str(), &end);
    if (s.empty() || *end != '\0' || !std::isfinite(v)) return std::nullopt;
    return v;
  }

 private:
  void Fail(const char* key, const char* expected) {
    if (!status_.ok()) return;
    status_ = Status::Invalid(fmt::format("{}: field '{}' is {}; expected {}", where_, key,
                                          JsonForMessage(r_.at(key)), expected));
  }
  const Record& r_;
  std::string where_;
  std::vector<std::string>& notes_;
  Status status_;
};

// The latency a key names in vLLM's and SGLang's spelling ("p99_e2el_ms", "median_ttft_ms",
// "std_e2e_latency_ms", "p99.9_itl_ms"), with the statistic; nullptr when the key is not one.
ServingStats* LatencyOf(ServingPoint& p, const std::string& key, std::string* stat) {
  if (key.size() < 4 || key.compare(key.size() - 3, 3, "_ms") != 0) return nullptr;
  size_t cut = key.find('_');
  if (cut == std::string::npos) return nullptr;
  *stat = StatName(std::string_view(key).substr(0, cut));
  if (stat->empty()) return nullptr;
  std::string_view metric = std::string_view(key).substr(cut + 1, key.size() - cut - 4);
  if (metric == "ttft") return &p.ttft_ms;
  if (metric == "tpot") return &p.tpot_ms;
  if (metric == "itl") return &p.itl_ms;
  if (metric == "e2el" || metric == "e2e_latency") return &p.e2el_ms;
  return nullptr;
}

// What the load generator did, from what the record says of its arrival process.
ServingMode ModeOf(const ServingPoint& p) {
  if (p.max_concurrency && *p.max_concurrency == 1) return ServingMode::kLatency;
  if (!p.max_concurrency && p.request_rate == "inf") {
    return ServingMode::kOffline;  // every request sent at once
  }
  return ServingMode::kServing;
}

// Requests, tokens and throughput.
void ReadCounts(const Record& r, RecordReader& rd, ServingPoint& p) {
  p.num_prompts = rd.Count("num_prompts");
  p.completed = rd.Count("completed");
  p.failed = rd.Count("failed");
  p.duration_s = rd.Number("duration");
  p.request_throughput = rd.Number("request_throughput");
  if (!p.request_throughput && p.completed && p.duration_s && *p.duration_s > 0) {
    p.request_throughput = static_cast<double>(*p.completed) / *p.duration_s;
    p.notes.push_back("request throughput = completed / duration (the record has none)");
  }
  p.output_throughput = rd.Number("output_throughput");
  p.total_token_throughput = rd.Number("total_token_throughput");
  if (!p.total_token_throughput) p.total_token_throughput = rd.Number("total_throughput");
  if (!p.total_token_throughput && p.output_throughput) {
    if (std::optional<double> input = rd.Number("input_throughput")) {
      p.total_token_throughput = *input + *p.output_throughput;
      p.notes.push_back("total token throughput = input_throughput + output_throughput");
    }
  }
  std::optional<int64_t> in_tokens = rd.Count("total_input_tokens");
  std::optional<int64_t> out_tokens = rd.Count("total_output_tokens");
  if (p.completed && *p.completed > 0) {
    double n = static_cast<double>(*p.completed);
    if (in_tokens) p.isl_tokens["mean"] = static_cast<double>(*in_tokens) / n;
    if (out_tokens) p.osl_tokens["mean"] = static_cast<double>(*out_tokens) / n;
  }
  // The per-request lengths, summarised while parsing; vLLM writes 0 for a failed request, so
  // they are taken only when every request in them completed.
  using Lens = std::pair<const char*, ServingStats*>;
  for (auto [key, into] : {Lens{"input_lens", &p.isl_tokens}, Lens{"output_lens", &p.osl_tokens}}) {
    auto it = r.find(key);
    if (it == r.end() || !it->second.is_object() || !it->second.contains("count")) continue;
    const json& s = it->second;
    if (!p.completed || s["count"].get<int64_t>() != *p.completed) continue;
    (*into)["min"] = s["min"].get<double>();
    (*into)["max"] = s["max"].get<double>();
    if (!into->count("mean")) into->emplace("mean", s["sum"].get<double>() / *p.completed);
  }
}

// The lengths asked. SGLang records its random-dataset arguments on every line, whatever the
// dataset: they are the asked lengths only for the random datasets at random_range_ratio 1
// (below 1 each request draws its lengths between ratio x len and len). vLLM records none; a
// `--metadata input_len=... output_len=...` pair stands for them, with a note.
void ReadAskedLengths(const Record& r, RecordReader& rd, ServingPoint& p) {
  std::string dataset = rd.Text("dataset_name");
  std::optional<double> ratio = rd.Number("random_range_ratio");
  bool random = dataset.empty() || dataset.rfind("random", 0) == 0;
  if (!random && r.count("random_output_len")) {
    p.notes.push_back(fmt::format("lengths from the {} dataset: none asked", dataset));
  } else if (p.tool == "sglang" && ratio && *ratio != 1 && r.count("random_output_len")) {
    p.notes.push_back(fmt::format(
        "random lengths (random_range_ratio {:g}): each request drew its own, none asked", *ratio));
  } else {
    p.isl_asked = rd.Number("random_input_len");
    p.osl_asked = rd.Number("random_output_len");
    using Asked = std::pair<const char*, std::optional<double>*>;
    for (auto [key, into] : {Asked{"input_len", &p.isl_asked}, Asked{"output_len", &p.osl_asked}}) {
      if (into->has_value()) continue;
      if ((*into = rd.Loose(key))) {
        p.notes.push_back(fmt::format("{} asked from the record's '{}' (a --metadata key)",
                                      key[0] == 'i' ? "ISL" : "OSL", key));
      }
    }
  }
  if (auto e = r.find("ignore_eos"); e != r.end()) {
    if (e->second.is_boolean()) p.ignore_eos = e->second.get<bool>();
    if (e->second == "True" || e->second == "true") p.ignore_eos = true;
    if (e->second == "False" || e->second == "false") p.ignore_eos = false;
  }
}

// The parallel layout: SGLang's server_info (its server arguments), else vLLM --metadata keys.
// The GPU count is set only from server_info, where it is the whole deployment's.
void ReadDeployment(const Record& r, RecordReader& rd, ServingPoint& p) {
  auto whole = [&](const char* key) -> std::optional<int64_t> {
    std::optional<double> v = rd.Loose(key);
    if (!v || *v < 1 || *v != std::floor(*v) || *v > 1e6) return std::nullopt;
    return static_cast<int64_t>(*v);
  };
  if (auto tp = whole("server_info.tp_size")) {
    p.tp = tp;
    p.pp = whole("server_info.pp_size");
    p.ep = whole("server_info.ep_size");
    std::optional<int64_t> dp = whole("server_info.dp_size");
    auto dp_attention = r.find("server_info.enable_dp_attention");
    bool in_tp = dp_attention != r.end() && dp_attention->second == true;
    auto mode = r.find("server_info.disaggregation_mode");
    if (mode == r.end() || mode->second.is_null() || mode->second == "null") {
      p.gpus = *tp * p.pp.value_or(1) * (in_tp ? 1 : dp.value_or(1));
      p.gpu_denominator = "all GPUs (tp_size x pp_size x dp_size of SGLang's server_info)";
    }
    return;
  }
  p.tp = whole("tensor_parallel_size");
  if (!p.tp) p.tp = whole("tp");
  p.pp = whole("pipeline_parallel_size");
  if (p.tp) p.notes.push_back("tensor parallelism from the record's --metadata");
}

ServingPoint ReadPoint(const Record& r, RecordReader& rd) {
  ServingPoint p;
  p.backend = rd.Text("backend");
  p.tool = r.count("random_range_ratio") || r.count("total_output_tokens_retokenized") ||
                   r.count("accept_length") || r.count("server_info") ||
                   p.backend.rfind("sglang", 0) == 0
               ? "sglang"
               : "vllm";
  p.model_id = rd.Text("model_id");
  p.max_concurrency = rd.Count("max_concurrency");
  if (!p.max_concurrency) p.max_concurrency = rd.Count("concurrency_limit");
  p.request_rate = rd.Text("request_rate");
  if (p.request_rate == "Infinity") p.request_rate = "inf";
  ReadCounts(r, rd, p);
  ReadAskedLengths(r, rd, p);
  ReadDeployment(r, rd, p);
  for (const auto& [key, value] : r) {
    std::string stat;
    ServingStats* into = LatencyOf(p, key, &stat);
    if (!into) continue;
    if (std::optional<double> v = rd.Number(key.c_str())) (*into)[stat] = *v;
  }
  p.mode = ModeOf(p);
  return p;
}

}  // namespace

std::optional<double> StatOf(const ServingStats& s, std::string_view name) {
  std::string key = StatName(name);
  auto it = s.find(key);
  if (it == s.end()) return std::nullopt;
  return it->second;
}

std::string StatName(std::string_view text) {
  std::string t;
  for (char c : text) t += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (t == "mean" || t == "avg" || t == "average") return "mean";
  if (t == "median" || t == "p50" || t == "50") return "p50";
  if (t == "std" || t == "stddev" || t == "min" || t == "max") return t == "stddev" ? "std" : t;
  std::string_view digits = t;
  if (!digits.empty() && digits[0] == 'p') digits.remove_prefix(1);
  if (digits.empty() || digits.size() > 6) return {};
  int dots = 0;
  for (char c : digits) {
    if (c == '.')
      ++dots;
    else if (!std::isdigit(static_cast<unsigned char>(c)))
      return {};
  }
  if (dots > 1 || digits.front() == '.' || digits.back() == '.') return {};
  return "p" + std::string(digits);
}

const char* ServingModeName(ServingMode m) {
  switch (m) {
    case ServingMode::kServing:
      return "serving";
    case ServingMode::kOffline:
      return "offline";
    case ServingMode::kLatency:
      return "latency";
    case ServingMode::kUnknown:
      break;
  }
  return "unknown";
}

std::optional<ServingMode> ParseServingMode(std::string_view name) {
  for (ServingMode m : {ServingMode::kUnknown, ServingMode::kServing, ServingMode::kOffline,
                        ServingMode::kLatency}) {
    if (name == ServingModeName(m)) return m;
  }
  return std::nullopt;
}

Result<InferenceResult> ParseServingResults(std::istream& raw, std::string_view name) {
  JsonRecordStream sax = ReadJsonRecords(raw);
  if (!sax.ok) {
    return Status::Invalid(fmt::format(
        "{}: not valid JSON (value {}: {}); expected a benchmark_serving result: a JSON object, "
        "an array of objects, or one object per line",
        name, sax.values, sax.error.empty() ? "parse error" : sax.error));
  }
  if (sax.values == 0) {
    return Status::Invalid(
        fmt::format("{}: empty; expected a benchmark_serving result JSON", name));
  }
  InferenceResult out;
  out.format = "inference-json";
  for (size_t i = 0; i < sax.records.size(); ++i) {
    const Record& r = sax.records[i];
    if (r.count("timing/train/total_step_time") || r.count("performance/tokens_per_sec_per_gpu")) {
      out.nemo_rl_metrics = true;
      continue;
    }
    std::vector<std::string> notes;
    RecordReader rd(r, fmt::format("{}: record {}", name, i + 1), notes);
    ServingPoint p = ReadPoint(r, rd);
    p.notes.insert(p.notes.end(), notes.begin(), notes.end());
    if (!rd.status().ok()) return rd.status();
    if (!p.output_throughput && !p.total_token_throughput) continue;  // not a serving result
    out.points.push_back(std::move(p));
  }
  return out;
}

Result<InferenceResult> ParseServingResultsText(std::string_view text, std::string_view name) {
  std::istringstream in{std::string(text)};
  return ParseServingResults(in, name);
}

std::string ServingPointName(const ServingPoint& p) {
  if (p.max_concurrency) return fmt::format("concurrency {}", *p.max_concurrency);
  if (!p.request_rate.empty() && p.request_rate != "inf") {
    return fmt::format("request rate {}", p.request_rate);
  }
  if (p.mode == ServingMode::kUnknown) return "the point";
  return std::string(ServingModeName(p.mode)) + " point";
}

void NormaliseByGpus(InferenceResult& r, std::optional<int64_t> gpus) {
  r.gpus = gpus;
  for (ServingPoint& p : r.points) {
    p.output_tokens_per_s_per_gpu.reset();
    p.total_tokens_per_s_per_gpu.reset();
    std::optional<int64_t> n = p.gpus ? p.gpus : gpus;
    if (!n || *n <= 0) continue;
    double g = static_cast<double>(*n);
    if (p.output_throughput) p.output_tokens_per_s_per_gpu = *p.output_throughput / g;
    if (p.total_token_throughput) p.total_tokens_per_s_per_gpu = *p.total_token_throughput / g;
  }
}

}  // namespace ys::validate
