// Format unit: MLPerf Inference LoadGen's mlperf_log_summary.txt, the "MLPerf Results Summary"
// of one run: the scenario (Offline, Server, Interactive, SingleStream), LoadGen's own verdict
// ("Result is : VALID" / "INVALID" and the constraints behind it), the throughput (tokens and
// samples per second), the latencies in nanoseconds (request latency, first token latency, time
// per output token) and the test parameters (target_qps, the TTFT and TPOT limits). Read into one
// serving point per summary (validate/inference_result.h), latencies in ms. The GPU count is not
// in the summary (the submission's system description has it): per-GPU figures need --gpus.
#include <fmt/format.h>

#include <cmath>
#include <map>

#include "formats/format_text.h"
#include "validate/inference_result.h"
#include "validate/run_evaluation.h"

namespace ys::formats {
namespace {

constexpr std::string_view kLoadgenBanner = "MLPerf Results Summary";
constexpr size_t kMaxLoadgenSummaryBytes = size_t{16} << 20;

FormatSniff SniffLoadgenSummary(std::string_view head) {
  if (auto line = FirstLine(head, [](std::string_view l) { return Trim(l) == kLoadgenBanner; })) {
    return Whole(Clip(*line));
  }
  if (auto line = FirstLine(head, [head](std::string_view l) {
        l = Trim(l);
        return StartsWith(l, "Completed tokens per second") ||
               (StartsWith(l, "Result is : ") && head.find("(ns)") != std::string_view::npos) ||
               l.find("percentile first token latency (ns)") != std::string_view::npos;
      })) {
    return Fragment(Clip(*line), "the 'MLPerf Results Summary' header with the scenario");
  }
  if (head.find("MLPerf") != std::string_view::npos || head.find(":::MLLOG") != head.npos) {
    return Near(0.3, "LoadGen's 'MLPerf Results Summary' (mlperf_log_summary.txt)");
  }
  return {};
}

// The throughput labels; the first of each wins (a Server summary repeats its tokens/s).
enum class LoadgenRate { kTokens, kSamples };
const std::map<std::string_view, LoadgenRate>& LoadgenRates() {
  static const std::map<std::string_view, LoadgenRate> kRates = {
      {"Completed tokens per second", LoadgenRate::kTokens},  // Server, Interactive
      {"Tokens per second", LoadgenRate::kTokens},            // Offline
      {"TPS w/ loadgen overhead", LoadgenRate::kTokens},      // SingleStream
      {"Completed samples per second", LoadgenRate::kSamples},
      {"Samples per second", LoadgenRate::kSamples},
      {"QPS w/ loadgen overhead", LoadgenRate::kSamples},
  };
  return kRates;
}

// One summary while it is read.
struct LoadgenRun {
  validate::ServingPoint p;
  std::string scenario, mode, result, tpot_name;
  std::vector<std::string> unmet;  // "min queries", "early stopping"
  std::optional<double> target_qps, ttft_limit_ms, tpot_limit_ms;
  std::optional<int64_t> samples_per_query;
  int figures = 0;
};

// "50.00" -> "p50", "99.90" -> "p99.9", "90.0th" -> "p90", "Mean" -> "mean"; empty otherwise.
std::string LoadgenStat(std::string_view word) {
  std::string w = ToLower(word);
  if (EndsWith(w, "th")) w.resize(w.size() - 2);
  if (w.find('.') != std::string::npos) {
    while (!w.empty() && w.back() == '0') w.pop_back();
    if (!w.empty() && w.back() == '.') w.pop_back();
  }
  return validate::StatName(w);
}

// "99.00 percentile first token latency (ns)", "Mean Time to Output Token (ns)", "Min latency
// (ns)", "90.0th percentile latency (ns)": the figure the label names and its statistic.
validate::ServingStats* LoadgenLatencyOf(LoadgenRun& run, std::string_view label,
                                         std::string* stat) {
  const std::string l = ToLower(label);
  if (!EndsWith(l, " (ns)")) return nullptr;
  const size_t space = l.find(' ');
  *stat = LoadgenStat(std::string_view(l).substr(0, space));
  if (stat->empty()) return nullptr;
  if (l.find("first token") != std::string::npos) return &run.p.ttft_ms;
  if (l.find("output token") != std::string::npos) {
    run.tpot_name = l.find("time per output") != std::string::npos ? "time per output token"
                                                                   : "time to output token";
    return &run.p.tpot_ms;
  }
  if (EndsWith(l, "latency (ns)")) return &run.p.e2el_ms;
  return nullptr;
}

// Header lines that are words, not figures; Invalid for a verdict LoadGen does not print.
Status LoadgenTakeText(LoadgenRun& run, std::string_view label, std::string_view value) {
  if (label == "SUT name") run.p.backend = std::string(value);
  if (label == "Scenario") run.scenario = std::string(value);
  if (label == "Mode") run.mode = std::string(value);
  if (label == "Result is") {
    if (value != "VALID" && value != "INVALID") {
      return Status::Invalid(fmt::format("'Result is': \"{}\" (expected VALID or INVALID)", value));
    }
    run.result = std::string(value);
  }
  if (EndsWith(label, " satisfied") && ToLower(value) == "no") {
    run.unmet.push_back(ToLower(label.substr(0, label.size() - 10)));
  }
  return Status::Ok();
}

// Settings: the offered rate and the latency limits LoadGen judged the run by.
bool LoadgenTakeSetting(LoadgenRun& run, std::string_view label, double v) {
  if (label == "target_qps") {
    run.target_qps = v;
  } else if (label == "ttft_latency (ns)") {
    run.ttft_limit_ms = v / 1e6;
  } else if (label == "tpot_latency (ns)") {
    run.tpot_limit_ms = v / 1e6;
  } else if (label == "samples_per_query") {
    if (v >= 0 && v == std::floor(v) && v <= 9e15) run.samples_per_query = static_cast<int64_t>(v);
  } else {
    return false;
  }
  return true;
}

// One "label : value" line; Invalid (without the place) for a figure that is not a number.
Status LoadgenTakeLine(LoadgenRun& run, std::string_view line) {
  const size_t colon = line.find(':');
  if (colon == std::string_view::npos) return Status::Ok();
  const std::string_view label = Trim(line.substr(0, colon));
  const std::string_view value = Trim(line.substr(colon + 1));
  std::string stat;
  auto rate = LoadgenRates().find(label);
  validate::ServingStats* latency = nullptr;
  if (rate == LoadgenRates().end()) latency = LoadgenLatencyOf(run, label, &stat);
  if (rate == LoadgenRates().end() && latency == nullptr) {
    if (auto v = ParseDouble(value); v && LoadgenTakeSetting(run, label, *v)) return Status::Ok();
    return LoadgenTakeText(run, label, value);
  }
  auto v = ParseDouble(value);
  if (!v || !std::isfinite(*v) || *v < 0) {
    return Status::Invalid(fmt::format("'{}': \"{}\" (expected a number >= 0)", label, value));
  }
  ++run.figures;
  if (latency != nullptr) {
    latency->try_emplace(stat, *v / 1e6);  // ns -> ms; the first block of a file wins
    return Status::Ok();
  }
  std::optional<double>& into =
      rate->second == LoadgenRate::kTokens ? run.p.output_throughput : run.p.request_throughput;
  if (!into) into = *v;
  return Status::Ok();
}

// Scenario -> mode: Offline queues every sample at once, Server and Interactive send at a
// target rate, SingleStream one sample at a time.
void LoadgenFinishMode(LoadgenRun& run) {
  validate::ServingPoint& p = run.p;
  const std::string s = ToLower(run.scenario);
  if (s == "offline") {
    p.mode = validate::ServingMode::kOffline;
  } else if (s == "server" || s == "interactive") {
    p.mode = validate::ServingMode::kServing;
  } else if (s == "singlestream") {
    p.mode = validate::ServingMode::kLatency;
    p.max_concurrency = 1;
  }
}

void LoadgenFinishNotes(LoadgenRun& run) {
  validate::ServingPoint& p = run.p;
  if (!run.scenario.empty()) p.notes.push_back("LoadGen scenario " + run.scenario);
  if (!run.mode.empty() && run.mode != "PerformanceOnly") {
    p.notes.push_back("LoadGen mode " + run.mode + ": not a performance run");
  }
  if (!run.unmet.empty()) p.notes.push_back("LoadGen: not satisfied: " + Join(run.unmet));
  std::vector<std::string> settings;
  if (run.target_qps) settings.push_back(fmt::format("target_qps {:g}", *run.target_qps));
  if (run.samples_per_query && p.mode == validate::ServingMode::kOffline) {
    settings.push_back(fmt::format("{} samples in its one query", *run.samples_per_query));
  }
  if (run.ttft_limit_ms) settings.push_back(fmt::format("TTFT limit {:g} ms", *run.ttft_limit_ms));
  if (run.tpot_limit_ms) settings.push_back(fmt::format("TPOT limit {:g} ms", *run.tpot_limit_ms));
  if (!settings.empty()) p.notes.push_back("LoadGen settings: " + Join(settings));
  if (!p.e2el_ms.empty() || !p.ttft_ms.empty() || !p.tpot_ms.empty()) {
    p.notes.push_back("latencies converted from LoadGen's nanoseconds to ms");
  }
  if (!run.tpot_name.empty()) p.notes.push_back("TPOT from LoadGen's '" + run.tpot_name + "'");
  p.notes.push_back(
      "LoadGen's summary counts no requests: its own VALID verdict covers the minimum query "
      "count and duration");
}

void LoadgenFinish(LoadgenRun& run) {
  validate::ServingPoint& p = run.p;
  p.tool = "mlperf-loadgen";
  if (run.result == "VALID") p.loadgen_valid = true;
  if (run.result == "INVALID") p.loadgen_valid = false;
  // A SUT that never reports first tokens leaves LoadGen's token statistics at 0.
  for (validate::ServingStats* s : {&p.ttft_ms, &p.tpot_ms}) {
    auto max = validate::StatOf(*s, "max");
    if (max && *max == 0) {
      s->clear();
      p.notes.push_back("token latencies all 0 (the SUT reported no first tokens): dropped");
    }
  }
  LoadgenFinishMode(run);
  LoadgenFinishNotes(run);
}

Result<validate::InferenceResult> ParseLoadgenSummary(std::string_view text,
                                                      const std::string& name) {
  validate::InferenceResult result;
  result.format = "mlperf-loadgen";
  LoadgenRun run;
  auto close = [&] {
    if (run.figures > 0 || !run.result.empty()) {
      LoadgenFinish(run);
      result.points.push_back(std::move(run.p));
    }
    run = {};
  };
  int64_t no = 0;
  for (std::string_view line : SplitLines(text)) {
    ++no;
    if (Trim(line) == kLoadgenBanner) {
      close();  // one summary per run: a file that gathers several has one banner each
      continue;
    }
    Status taken = LoadgenTakeLine(run, line);
    if (!taken.ok()) return Status::Invalid(fmt::format("{}:{}: {}", name, no, taken.message()));
  }
  close();
  if (result.points.empty()) {
    return Status::Invalid(name +
                           ": no LoadGen summary: expected 'MLPerf Results Summary' with "
                           "'Scenario :', 'Result is :' and the tokens per second");
  }
  return result;
}

Result<std::any> ReadLoadgenSummary(const FormatRequest& r) {
  auto text = ReadFormatContent(r, kMaxLoadgenSummaryBytes, "an MLPerf mlperf_log_summary.txt");
  if (!text.ok()) return text.status();
  auto parsed = ParseLoadgenSummary(*text, r.path);
  if (!parsed.ok()) return parsed.status();
  return std::any(validate::EvaluateInference(std::move(*parsed), IngestOptionsOf(r), r.path));
}

}  // namespace

YS_FORMAT(SniffLoadgenSummary, ReadLoadgenSummary,
          {.name = "mlperf-loadgen",
           .produces = FormatProduct::kWorkloadRun,
           .summary = "MLPerf Inference LoadGen's mlperf_log_summary.txt (Offline, Server, "
                      "Interactive, SingleStream; LLM token metrics)",
           .example = "MLPerf Results Summary"})

}  // namespace ys::formats
