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
      {"Total throughput (tok/s)", &P::total_token_throughput},  // SGLang before 2025
  };
  return kFields;
}

// "Mean TTFT (ms)", "P99 E2E Latency (ms)", "Median ITL (ms)": the latency and its statistic.
validate::ServingStats* LatencyOf(validate::ServingPoint& p, std::string_view label,
                                  std::string* stat) {
  if (!EndsWith(label, " (ms)")) return nullptr;
  label.remove_suffix(5);
  size_t space = label.find(' ');
  if (space == std::string_view::npos) return nullptr;
  *stat = validate::StatName(label.substr(0, space));
  if (stat->empty()) return nullptr;
  std::string_view metric = label.substr(space + 1);
  if (metric == "TTFT") return &p.ttft_ms;
  if (metric == "TPOT") return &p.tpot_ms;
  if (metric == "ITL") return &p.itl_ms;
  if (metric == "E2EL" || metric == "E2E Latency") return &p.e2el_ms;
  return nullptr;
}

bool IsFigure(std::string_view label) {
  validate::ServingPoint scratch;
  std::string stat;
  return NumberFields().count(label) || LatencyOf(scratch, label, &stat) != nullptr;
}

struct ConsoleCounts {
  std::optional<int64_t> failed, input_tokens, output_tokens;
  bool sglang = false;  // SGLang's block names its backend; vLLM's does not
};

// The tool's own argument dump printed before a run ("Namespace(backend='vllm', ...,
// num_prompts=300, ..., ignore_eos=False, ...)", SGLang's "benchmark_args=Namespace(...)"):
// what it was asked, which its result block does not repeat.
struct ConsoleArgs {
  std::optional<int64_t> num_prompts;
  std::optional<bool> ignore_eos;
  std::optional<int64_t> max_concurrency;
  std::optional<double> input_len, output_len, range_ratio;
  std::string dataset, request_rate;
};

// The value of `key=` in an argument dump, unquoted; empty when absent.
std::string_view ConsoleArgOf(std::string_view line, std::string_view key) {
  for (size_t at = line.find(key); at != std::string_view::npos; at = line.find(key, at + 1)) {
    bool starts = at > 0 && (line[at - 1] == '(' || line[at - 1] == ' ');
    if (!starts || at + key.size() >= line.size() || line[at + key.size()] != '=') continue;
    std::string_view v = line.substr(at + key.size() + 1);
    v = v.substr(0, v.find_first_of(",)"));
    if (v.size() >= 2 && (v.front() == '\'' || v.front() == '"')) v = v.substr(1, v.size() - 2);
    return v;
  }
  return {};
}

std::optional<ConsoleArgs> ParseConsoleArgs(std::string_view line) {
  if (line.find("Namespace(") == std::string_view::npos) return std::nullopt;
  ConsoleArgs a;
  if (auto n = ParseInt(ConsoleArgOf(line, "num_prompts")); n && *n > 0) a.num_prompts = *n;
  std::string_view eos = ConsoleArgOf(line, "ignore_eos");
  if (eos == "True" || eos == "False") a.ignore_eos = eos == "True";
  a.input_len = ParseDouble(ConsoleArgOf(line, "random_input_len"));
  a.output_len = ParseDouble(ConsoleArgOf(line, "random_output_len"));
  a.range_ratio = ParseDouble(ConsoleArgOf(line, "random_range_ratio"));
  a.dataset = std::string(ConsoleArgOf(line, "dataset_name"));
  a.request_rate = std::string(ConsoleArgOf(line, "request_rate"));
  if (auto n = ParseInt(ConsoleArgOf(line, "max_concurrency")); n && *n > 0) a.max_concurrency = *n;
  return a;
}

// The asked lengths are the random dataset's, when each request had the same: SGLang draws
// lengths between ratio x len and len (fixed at ratio 1); vLLM drew them the same way before
// 2025 (default ratio 1) and now draws around len (fixed at ratio 0, the default).
void ApplyConsoleArgs(const ConsoleArgs& a, bool sglang, validate::ServingPoint& p) {
  if (!p.num_prompts && a.num_prompts) p.num_prompts = a.num_prompts;
  if (a.ignore_eos) p.ignore_eos = a.ignore_eos;
  if (p.request_rate.empty()) p.request_rate = a.request_rate;
  if (!p.max_concurrency) p.max_concurrency = a.max_concurrency;
  if (!a.dataset.empty() && a.dataset.rfind("random", 0) != 0) {
    p.notes.push_back(fmt::format("lengths from the {} dataset: none asked", a.dataset));
    return;
  }
  double ratio = a.range_ratio.value_or(sglang ? 0 : 1);
  if (ratio != 1 && (sglang || ratio != 0)) {
    p.notes.push_back(fmt::format(
        "random lengths (random_range_ratio {:g}): each request drew its own, none asked", ratio));
    return;
  }
  p.isl_asked = a.input_len;
  p.osl_asked = a.output_len;
  if (a.output_len) p.notes.push_back("lengths asked from the tool's argument dump (Namespace)");
}

// One "Label:   value" line into the point; false when the value of a known label is malformed.
bool TakeLine(std::string_view label, std::string_view value, validate::ServingPoint& p,
              ConsoleCounts& counts) {
  std::string stat;
  if (auto it = NumberFields().find(label); it != NumberFields().end()) {
    auto v = ParseDouble(value);
    if (!v || *v < 0) return false;
    p.*(it->second) = *v;
  } else if (validate::ServingStats* into = LatencyOf(p, label, &stat)) {
    auto v = ParseDouble(value);
    if (!v || *v < 0) return false;
    (*into)[stat] = *v;
  } else if (label == "Successful requests" || label == "Failed requests" ||
             label == "Total input tokens" || label == "Total generated tokens") {
    auto n = ParseInt(value);
    if (!n || *n < 0) return false;
    if (label == "Successful requests") p.completed = *n;
    if (label == "Failed requests") counts.failed = *n;
    if (label == "Total input tokens") counts.input_tokens = *n;
    if (label == "Total generated tokens") counts.output_tokens = *n;
  } else if (label == "Max request concurrency" || label == "Maximum request concurrency" ||
             label == "Max reqeuest concurrency" || label == "Max concurrency") {
    if (auto n = ParseInt(value); n && *n > 0) p.max_concurrency = *n;  // else "not set"
  } else if (label == "Backend") {
    p.backend = std::string(value);
    counts.sglang = true;
  } else if (label == "Total generated tokens (retokenized)") {
    counts.sglang = true;
  } else if (label == "Traffic request rate" || label == "Request rate configured (RPS)") {
    if (p.request_rate.empty()) p.request_rate = std::string(value);
  }
  return true;
}

// What the block's counts say once it is closed: requests asked, mean lengths, the mode.
void FinishPoint(validate::ServingPoint& p, const ConsoleCounts& c,
                 const std::optional<ConsoleArgs>& args) {
  p.tool = c.sglang ? "sglang" : "vllm";
  p.failed = c.failed;
  if (c.failed && p.completed) p.num_prompts = *p.completed + *c.failed;
  if (p.completed && *p.completed > 0) {
    double n = static_cast<double>(*p.completed);
    if (c.input_tokens) p.isl_tokens["mean"] = static_cast<double>(*c.input_tokens) / n;
    if (c.output_tokens) p.osl_tokens["mean"] = static_cast<double>(*c.output_tokens) / n;
  }
  if (args && p.completed) ApplyConsoleArgs(*args, c.sglang, p);
  if (p.max_concurrency && *p.max_concurrency == 1) {
    p.mode = validate::ServingMode::kLatency;
  } else if (p.max_concurrency || (!p.request_rate.empty() && p.request_rate != "inf")) {
    p.mode = validate::ServingMode::kServing;
  } else if (p.request_rate == "inf") {
    p.mode = validate::ServingMode::kOffline;
  }
}

Result<validate::InferenceResult> ParseServingConsole(std::string_view text,
                                                      const std::string& name) {
  validate::InferenceResult result;
  result.format = "serving-console";
  validate::ServingPoint point;
  ConsoleCounts counts;
  std::optional<ConsoleArgs> args;  // the last argument dump: the run it precedes
  bool in_block = false;
  int64_t no = 0, figures = 0;
  auto close = [&] {
    FinishPoint(point, counts, args);
    if (figures > 0) result.points.push_back(point);
    point = {};
    counts = {};
    figures = 0;
  };
  for (std::string_view line : SplitLines(text)) {
    ++no;
    line = Trim(line);
    if (auto dump = ParseConsoleArgs(line)) {
      close();
      args = std::move(dump);
      in_block = false;
      continue;
    }
    if (line.find(kBanner) != std::string_view::npos) {
      close();  // one block per benchmark run: a sweep prints several
      in_block = true;
      continue;
    }
    size_t colon = line.find(':');
    if (colon == std::string_view::npos || StartsWith(line, "----")) continue;
    std::string_view label = Trim(line.substr(0, colon)), value = Trim(line.substr(colon + 1));
    const bool known = IsFigure(label) || label == "Successful requests";
    if (!in_block && !known) continue;  // text before the block (a fragment has no banner)
    in_block = true;
    if (!TakeLine(label, value, point, counts)) {
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
