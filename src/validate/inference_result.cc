#include "validate/inference_result.h"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/json_document.h"

namespace ys::validate {
namespace {

using json = nlohmann::json;
using Record = std::map<std::string, json>;

// Keeps the scalar fields of each record object (the root object, or each object of a root
// array); a nested array or object is kept as an empty [] or {}, so per-request arrays never
// reach memory but a field of the wrong type is still seen.
class RecordSax : public nlohmann::json_sax<json> {
 public:
  std::vector<Record> records;
  std::string error;

  bool null() override { return Scalar(json(nullptr)); }
  bool boolean(bool v) override { return Scalar(json(v)); }
  bool number_integer(number_integer_t v) override { return Scalar(json(v)); }
  bool number_unsigned(number_unsigned_t v) override { return Scalar(json(v)); }
  bool number_float(number_float_t v, const string_t&) override { return Scalar(json(v)); }
  bool string(string_t& v) override { return Scalar(json(v)); }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override {
    Scalar(json::object());  // a nested object stands as {} in its record
    bool record = stack_.empty() || (stack_.size() == 1 && stack_[0] == '[');
    stack_.push_back(record ? 'R' : '{');
    if (record) current_.clear();
    return true;
  }
  bool key(string_t& k) override {
    key_ = k;
    return true;
  }
  bool end_object() override {
    if (stack_.back() == 'R') records.push_back(std::move(current_));
    stack_.pop_back();
    return true;
  }
  bool start_array(std::size_t) override {
    Scalar(json::array());  // a per-request array stands as [] in its record
    stack_.push_back('[');
    return true;
  }
  bool end_array() override {
    stack_.pop_back();
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) override {
    error = e.what();
    return false;
  }

 private:
  bool Scalar(json v) {
    if (!stack_.empty() && stack_.back() == 'R') current_[key_] = std::move(v);
    return true;
  }
  std::vector<char> stack_;  // 'R' record object, '{' other object, '[' array
  Record current_;
  std::string key_;
};

class RecordReader {
 public:
  RecordReader(const Record& r, std::string where) : r_(r), where_(std::move(where)) {}

  const Status& status() const { return status_; }

  std::optional<double> Number(const char* key) {
    auto it = r_.find(key);
    if (it == r_.end() || it->second.is_null()) return std::nullopt;
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

 private:
  void Fail(const char* key, const char* expected) {
    if (!status_.ok()) return;
    status_ = Status::Invalid(fmt::format("{}: field '{}' is {}; expected {}", where_, key,
                                          JsonForMessage(r_.at(key)), expected));
  }
  const Record& r_;
  std::string where_;
  Status status_;
};

}  // namespace

Result<InferenceResult> ParseServingResults(std::istream& in, std::string_view name) {
  RecordSax sax;
  int values = 0;
  while (true) {
    int c;
    while ((c = in.peek()) != EOF && std::isspace(c)) in.get();
    if (c == EOF) break;
    ++values;
    if (!json::sax_parse(in, &sax, nlohmann::detail::input_format_t::json, /*strict=*/false)) {
      return Status::Invalid(fmt::format(
          "{}: not valid JSON (value {}: {}); expected a benchmark_serving result: a JSON object, "
          "an array of objects, or one object per line",
          name, values, sax.error.empty() ? "parse error" : sax.error));
    }
  }
  if (values == 0) {
    return Status::Invalid(
        fmt::format("{}: empty; expected a benchmark_serving result JSON", name));
  }
  InferenceResult out;
  for (size_t i = 0; i < sax.records.size(); ++i) {
    const Record& r = sax.records[i];
    if (r.count("timing/train/total_step_time") || r.count("performance/tokens_per_sec_per_gpu")) {
      out.nemo_rl_metrics = true;
      continue;
    }
    RecordReader rd(r, fmt::format("{}: record {}", name, i + 1));
    ServingPoint p;
    p.backend = rd.Text("backend");
    p.model_id = rd.Text("model_id");
    p.max_concurrency = rd.Count("max_concurrency");
    p.request_rate = rd.Text("request_rate");
    p.num_prompts = rd.Count("num_prompts");
    p.completed = rd.Count("completed");
    p.duration_s = rd.Number("duration");
    p.request_throughput = rd.Number("request_throughput");
    p.output_throughput = rd.Number("output_throughput");
    p.total_token_throughput = rd.Number("total_token_throughput");
    if (!p.total_token_throughput && p.output_throughput) {
      if (std::optional<double> input = rd.Number("input_throughput")) {
        p.total_token_throughput = *input + *p.output_throughput;
      }
    }
    p.mean_ttft_ms = rd.Number("mean_ttft_ms");
    p.median_ttft_ms = rd.Number("median_ttft_ms");
    p.p99_ttft_ms = rd.Number("p99_ttft_ms");
    p.mean_tpot_ms = rd.Number("mean_tpot_ms");
    p.median_tpot_ms = rd.Number("median_tpot_ms");
    p.p99_tpot_ms = rd.Number("p99_tpot_ms");
    p.mean_itl_ms = rd.Number("mean_itl_ms");
    p.median_itl_ms = rd.Number("median_itl_ms");
    p.p99_itl_ms = rd.Number("p99_itl_ms");
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

void NormaliseByGpus(InferenceResult& r, std::optional<int64_t> gpus) {
  r.gpus = gpus;
  for (ServingPoint& p : r.points) {
    p.output_tokens_per_s_per_gpu.reset();
    p.total_tokens_per_s_per_gpu.reset();
    if (!gpus || *gpus <= 0) continue;
    double g = static_cast<double>(*gpus);
    if (p.output_throughput) p.output_tokens_per_s_per_gpu = *p.output_throughput / g;
    if (p.total_token_throughput) p.total_tokens_per_s_per_gpu = *p.total_token_throughput / g;
  }
}

}  // namespace ys::validate
