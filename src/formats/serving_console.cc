// Format unit: the result block a serving benchmark prints on the console, as vLLM's
// `vllm bench serve` / benchmark_serving.py and SGLang's bench_serving (and NVIDIA's sa-bench,
// which prints the same) write it after "============ Serving Benchmark Result ============":
// one "Label (unit):   value" line per figure. Read into the same serving point as the JSON
// export (validate/inference_result.h), so a run pasted from a terminal scores like its file.
#include <fmt/format.h>

#include <map>

#include "core/document_file.h"
#include "formats/format_text.h"
#include "validate/inference_result.h"
#include "validate/run_evaluation.h"

namespace ys::formats {
namespace {

constexpr std::string_view kBanner = "Serving Benchmark Result";
constexpr size_t kMaxConsoleBytes = size_t{16} << 20;

FormatSniff SniffServingConsole(std::string_view head) {
  if (auto line = FirstLine(head, [](std::string_view l) {
        return l.find(kBanner) != std::string_view::npos && l.find("====") != l.npos;
      })) {
    return Whole(Clip(*line));
  }
  if (auto line = FirstLine(head, [](std::string_view l) {
        return StartsWith(Trim(l), "Output token throughput (tok/s):") ||
               StartsWith(Trim(l), "Mean TTFT (ms):");
      })) {
    return Fragment(Clip(*line), "the '====== Serving Benchmark Result ======' banner");
  }
  return {};
}

// The figure a label names; where the point keeps it.
using Number = std::optional<double> validate::ServingPoint::*;
const std::map<std::string_view, Number>& NumberFields() {
  using P = validate::ServingPoint;
  static const std::map<std::string_view, Number> kFields = {
      {"Benchmark duration (s)", &P::duration_s},
      {"Request throughput (req/s)", &P::request_throughput},
      {"Output token throughput (tok/s)", &P::output_throughput},
      {"Total token throughput (tok/s)", &P::total_token_throughput},
      {"Total Token throughput (tok/s)", &P::total_token_throughput},
      {"Mean TTFT (ms)", &P::mean_ttft_ms},
      {"Median TTFT (ms)", &P::median_ttft_ms},
      {"P99 TTFT (ms)", &P::p99_ttft_ms},
      {"Mean TPOT (ms)", &P::mean_tpot_ms},
      {"Median TPOT (ms)", &P::median_tpot_ms},
      {"P99 TPOT (ms)", &P::p99_tpot_ms},
      {"Mean ITL (ms)", &P::mean_itl_ms},
      {"Median ITL (ms)", &P::median_itl_ms},
      {"P99 ITL (ms)", &P::p99_itl_ms},
  };
  return kFields;
}

// One "Label:   value" line into the point; false when the value of a known label is malformed.
bool TakeLine(std::string_view label, std::string_view value, validate::ServingPoint& p,
              std::optional<int64_t>& failed) {
  if (auto it = NumberFields().find(label); it != NumberFields().end()) {
    auto v = ParseDouble(value);
    if (!v || *v < 0) return false;
    p.*(it->second) = *v;
  } else if (label == "Successful requests" || label == "Failed requests") {
    auto n = ParseInt(value);
    if (!n || *n < 0) return false;
    (label == "Failed requests" ? failed : p.completed) = *n;
  } else if (label == "Max request concurrency" || label == "Maximum request concurrency") {
    if (auto n = ParseInt(value); n && *n > 0) p.max_concurrency = *n;  // else "not set"
  } else if (label == "Backend") {
    p.backend = std::string(value);
  } else if (label == "Traffic request rate") {
    p.request_rate = std::string(value);
  }
  return true;
}

Result<validate::InferenceResult> ParseServingConsole(std::string_view text,
                                                      const std::string& name) {
  validate::InferenceResult result;
  validate::ServingPoint point;
  std::optional<int64_t> failed;
  bool in_block = false;
  int64_t no = 0, figures = 0;
  auto close = [&] {
    if (failed && point.completed) point.num_prompts = *point.completed + *failed;
    if (figures > 0) result.points.push_back(point);
    point = {};
    failed.reset();
    figures = 0;
  };
  for (std::string_view line : SplitLines(text)) {
    ++no;
    line = Trim(line);
    if (line.find(kBanner) != std::string_view::npos) {
      close();  // one block per benchmark run: a sweep prints several
      in_block = true;
      continue;
    }
    size_t colon = line.find(':');
    if (colon == std::string_view::npos || StartsWith(line, "----")) continue;
    std::string_view label = Trim(line.substr(0, colon)), value = Trim(line.substr(colon + 1));
    const bool known = NumberFields().count(label) || label == "Successful requests";
    if (!in_block && !known) continue;  // text before the block (a fragment has no banner)
    in_block = true;
    if (!TakeLine(label, value, point, failed)) {
      return Status::Invalid(
          fmt::format("{}:{}: '{}': \"{}\" (expected a number >= 0)", name, no, label, value));
    }
    if (known) ++figures;
  }
  close();
  if (result.points.empty()) {
    return Status::Invalid(name +
                           ": no serving result: expected the '============ Serving Benchmark "
                           "Result ============' block with 'Output token throughput (tok/s):' "
                           "and the TTFT and TPOT lines");
  }
  return result;
}

Result<std::any> ReadServingConsole(const FormatRequest& r) {
  auto text = ReadFormatContent(r, kMaxConsoleBytes, "a serving benchmark's console output");
  if (!text.ok()) return text.status();
  auto parsed = ParseServingConsole(*text, r.path);
  if (!parsed.ok()) return parsed.status();
  return std::any(validate::EvaluateInference(std::move(*parsed), IngestOptionsOf(r), r.path));
}

}  // namespace

YS_FORMAT(SniffServingConsole, ReadServingConsole,
          {.name = "serving-console",
           .produces = FormatProduct::kWorkloadRun,
           .summary = "the result block vLLM (vllm bench serve, benchmark_serving.py) and SGLang "
                      "bench_serving print on the console",
           .example = "============ Serving Benchmark Result ============"})

}  // namespace ys::formats
