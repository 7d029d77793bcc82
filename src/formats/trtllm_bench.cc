// Format unit: the report TensorRT-LLM's `trtllm-bench throughput` and `trtllm-bench latency`
// print at the end of a run: "= SECTION" blocks between rules of '=' (ENGINE DETAILS or PYTORCH
// BACKEND, REQUEST DETAILS, WORLD + RUNTIME INFORMATION, PERFORMANCE OVERVIEW with its
// "[TTFT] P99 : ..." breakdowns, DATASET DETAILS), one "Label: value" per line, separated by
// spaces or, in releases before 1.0, by tabs. Releases before 1.0 print "Token Throughput" for
// the output tokens/s, and their latency subcommand prints GENERAL / THROUGHPUT / LATENCY
// OVERVIEW sections instead (where "Total Token Throughput" counts output tokens only).
// Read into one serving point per report (validate/inference_result.h).
#include <fmt/format.h>

#include <cmath>
#include <map>
#include <set>

#include "formats/format_text.h"
#include "validate/inference_result.h"
#include "validate/run_evaluation.h"

namespace ys::formats {
namespace {

constexpr size_t kMaxTrtllmBenchBytes = size_t{64} << 20;  // the report sits in a verbose log

enum class TrtllmSection {
  kNone,
  kEngine,      // ENGINE DETAILS: a TensorRT engine
  kPytorch,     // PYTORCH BACKEND
  kRequests,    // REQUEST DETAILS, GENERAL OVERVIEW (latency, before 1.0)
  kWorld,       // WORLD + RUNTIME INFORMATION
  kOverview,    // PERFORMANCE OVERVIEW, LATENCY OVERVIEW
  kOldLatency,  // THROUGHPUT OVERVIEW of the latency subcommand before 1.0
  kDataset,     // DATASET DETAILS
  kOther,       // breakdowns the point does not keep (generation latency, acceptance, decoding)
};

// "= PERFORMANCE OVERVIEW " -> its section; nullopt for a line that is not a section title.
std::optional<TrtllmSection> TrtllmSectionOf(std::string_view line) {
  line = Trim(line);
  if (!StartsWith(line, "= ")) return std::nullopt;
  const std::string title = ToLower(Trim(line.substr(2)));
  const std::pair<std::string_view, TrtllmSection> kTitles[] = {
      {"engine details", TrtllmSection::kEngine},
      {"pytorch backend", TrtllmSection::kPytorch},
      {"request details", TrtllmSection::kRequests},
      {"general overview", TrtllmSection::kRequests},
      {"world + runtime information", TrtllmSection::kWorld},
      {"performance overview", TrtllmSection::kOverview},
      {"latency overview", TrtllmSection::kOverview},
      {"throughput overview", TrtllmSection::kOldLatency},
      {"dataset details", TrtllmSection::kDataset},
  };
  for (const auto& [prefix, section] : kTitles) {
    if (StartsWith(title, prefix)) return section;
  }
  return TrtllmSection::kOther;
}

FormatSniff SniffTrtllmBench(std::string_view head) {
  if (auto line = FirstLine(head, [](std::string_view l) {
        auto s = TrtllmSectionOf(l);
        return s == TrtllmSection::kOverview || s == TrtllmSection::kWorld;
      })) {
    return Whole(Clip(*line));
  }
  if (auto line = FirstLine(head, [](std::string_view l) {
        l = Trim(l);
        return StartsWith(l, "Total Output Throughput (tokens/sec):") ||
               StartsWith(l, "Per GPU Output Throughput (t") ||
               StartsWith(l, "Token Throughput (tokens/sec):");
      })) {
    return Fragment(Clip(*line),
                    "the '= PERFORMANCE OVERVIEW' and '= WORLD + RUNTIME "
                    "INFORMATION' sections (the GPU count)");
  }
  if (head.find("[TRT-LLM]") != std::string_view::npos) {
    return Near(0.3, "the trtllm-bench report ('= PERFORMANCE OVERVIEW' section)");
  }
  return {};
}

// The labels the point keeps (trimmed, as printed; spacing and tabs vary by release).
enum class TrtllmField {
  kRequests,
  kConcurrency,
  kIsl,
  kOsl,
  kRequestThroughput,
  kOutputThroughput,
  kTotalTokenThroughput,
  kTotalLatency,
  kRequestLatency,
  kPerUser,
  kPerUserWithContext,
  kPerGpu,
  kTtft,
  kTpot,
  kInterToken,
  kTp,
  kPp,
  kEp,
  kBatch,
  kSequences,
};

const std::map<std::string_view, TrtllmField>& TrtllmFields() {
  using F = TrtllmField;
  static const std::map<std::string_view, TrtllmField> kFields = {
      {"Number of requests", F::kRequests},
      {"Number of concurrent requests", F::kConcurrency},
      {"Average Input Length (tokens)", F::kIsl},
      {"Average Output Length (tokens)", F::kOsl},
      {"Request Throughput (req/sec)", F::kRequestThroughput},
      {"Total Output Throughput (tokens/sec)", F::kOutputThroughput},
      {"Token Throughput (tokens/sec)", F::kOutputThroughput},  // before 0.17: output tokens
      {"Total Token Throughput (tokens/sec)", F::kTotalTokenThroughput},
      {"Total Latency (ms)", F::kTotalLatency},
      {"Average request latency (ms)", F::kRequestLatency},
      {"Per User Output Throughput [w/ ctx] (tps/user)", F::kPerUserWithContext},
      {"Per User Output Throughput (tokens/sec/user)", F::kPerUser},
      {"Per GPU Output Throughput (tps/gpu)", F::kPerGpu},
      {"Per GPU Output Throughput (tokens/sec/gpu)", F::kPerGpu},
      {"Average time-to-first-token [TTFT] (ms)", F::kTtft},
      {"Average time-to-first-token (ms)", F::kTtft},
      {"Average time-per-output-token [TPOT] (ms)", F::kTpot},
      {"Average inter-token latency (ms)", F::kInterToken},
      {"TP Size", F::kTp},
      {"PP Size", F::kPp},
      {"EP Size", F::kEp},
      {"Max Runtime Batch Size", F::kBatch},
      {"Number of Sequences", F::kSequences},
  };
  return kFields;
}

// One report while it is read.
struct TrtllmRun {
  validate::ServingPoint p;
  std::set<TrtllmSection> seen;
  bool old_latency = false;  // GENERAL / THROUGHPUT / LATENCY OVERVIEW: `latency` before 1.0
  int figures = 0;
  std::optional<int64_t> requests, batch, sequences, tp, pp, ep;
  std::optional<double> concurrency, per_gpu, dataset_isl, dataset_osl;
  std::string version;
};

// A count: "8"; "None" (EP of a dense model) is no count.
Status TrtllmTakeCount(TrtllmRun& run, TrtllmField f, double v) {
  if (v != std::floor(v) || v < 0 || v > 2147483647.0) return Status::Invalid("a whole number");
  const auto n = static_cast<int64_t>(v);
  if (f == TrtllmField::kRequests) run.requests = n;
  if (f == TrtllmField::kTp) run.tp = n;
  if (f == TrtllmField::kPp) run.pp = n;
  if (f == TrtllmField::kEp) run.ep = n;
  if (f == TrtllmField::kBatch) run.batch = n;
  if (f == TrtllmField::kSequences) run.sequences = n;
  return Status::Ok();
}

// One known figure into the run.
Status TrtllmTakeField(TrtllmRun& run, TrtllmSection section, TrtllmField f, double v) {
  using F = TrtllmField;
  validate::ServingPoint& p = run.p;
  switch (f) {
    case F::kRequests:
    case F::kTp:
    case F::kPp:
    case F::kEp:
    case F::kBatch:
    case F::kSequences:
      return TrtllmTakeCount(run, f, v);
    case F::kConcurrency:
      run.concurrency = v;
      return Status::Ok();
    case F::kIsl:
      p.isl_tokens["mean"] = v;
      return Status::Ok();
    case F::kOsl:
      p.osl_tokens["mean"] = v;
      return Status::Ok();
    case F::kRequestThroughput:
      p.request_throughput = v;
      break;
    case F::kOutputThroughput:
      p.output_throughput = v;
      break;
    case F::kTotalTokenThroughput:
      // The latency subcommand before 1.0 counted output tokens only under this name.
      (section == TrtllmSection::kOldLatency ? p.output_throughput : p.total_token_throughput) = v;
      break;
    case F::kTotalLatency:
      p.duration_s = v / 1000;
      break;
    case F::kRequestLatency:
      p.e2el_ms["mean"] = v;
      break;
    case F::kPerUser:
      p.output_tokens_per_s_per_user = v;
      break;
    case F::kPerUserWithContext:
      // Counts the wait for the first token; yardstick's per-user rate is the decode rate.
      p.notes.push_back(fmt::format(
          "per-user output throughput {} tok/s/user with the first token's wait ([w/ ctx]) not "
          "kept: the per-user rate compared is 1000 / TPOT",
          v));
      break;
    case F::kPerGpu:
      run.per_gpu = v;
      break;
    case F::kTtft:
      p.ttft_ms["mean"] = v;
      break;
    case F::kTpot:
    case F::kInterToken:
      p.tpot_ms["mean"] = v;
      break;
  }
  ++run.figures;
  return Status::Ok();
}

// "[TTFT] P99    : 232.4339", "[Latency] MINIMUM: 1050.1519": the breakdowns the point keeps
// (other lines pass); Invalid for a kept statistic that is not a latency.
Status TrtllmTakeBreakdown(TrtllmRun& run, std::string_view label, double v) {
  if (!StartsWith(label, "[")) return Status::Ok();
  const size_t close = label.find(']');
  if (close == std::string_view::npos) return Status::Ok();
  const std::string_view tag = label.substr(1, close - 1);
  std::string stat = ToLower(Trim(label.substr(close + 1)));
  if (stat == "minimum" || stat == "maximum") stat.resize(3);
  stat = validate::StatName(stat);
  validate::ServingStats* into = tag == "TTFT"      ? &run.p.ttft_ms
                                 : tag == "TPOT"    ? &run.p.tpot_ms
                                 : tag == "Latency" ? &run.p.e2el_ms
                                                    : nullptr;
  if (into == nullptr || stat.empty()) return Status::Ok();
  if (!std::isfinite(v) || v < 0) {
    return Status::Invalid(fmt::format("'{}': {} (expected a number >= 0)", label, v));
  }
  (*into)[stat] = v;
  ++run.figures;
  return Status::Ok();
}

// "AVG:   128.0000   128.0000   256.0000" under DATASET DETAILS: the dataset's asked lengths.
void TrtllmTakeDatasetRow(TrtllmRun& run, std::string_view label, std::string_view value) {
  if (label != "AVG") return;
  auto cols = SplitWhitespace(value);
  if (cols.size() < 2) return;
  auto isl = ParseDouble(cols[0]), osl = ParseDouble(cols[1]);
  if (!isl || !osl || !std::isfinite(*isl + *osl) || *isl < 0 || *osl <= 0) return;
  run.dataset_isl = isl;
  run.dataset_osl = osl;
}

void TrtllmTakeText(TrtllmRun& run, TrtllmSection section, std::string_view label,
                    std::string_view value) {
  if (section != TrtllmSection::kEngine && section != TrtllmSection::kPytorch) return;
  if (label == "Model") run.p.model_id = std::string(value);
  if (label == "TensorRT-LLM Version" || label == "TensorRT LLM Version") {
    run.version = std::string(value);
  }
}

// One "Label: value" line of a report; Invalid (without the place) for a malformed figure.
Status TrtllmTakeLine(TrtllmRun& run, TrtllmSection section, std::string_view line) {
  const size_t colon = line.find(':');
  if (colon == std::string_view::npos) return Status::Ok();
  const std::string_view label = Trim(line.substr(0, colon));
  const std::string_view value = Trim(line.substr(colon + 1));
  if (section == TrtllmSection::kDataset) TrtllmTakeDatasetRow(run, label, value);
  auto it = TrtllmFields().find(label);
  if (it == TrtllmFields().end()) {
    if (auto v = ParseDouble(value)) return TrtllmTakeBreakdown(run, label, *v);
    TrtllmTakeText(run, section, label, value);
    return Status::Ok();
  }
  if (value == "None" || value == "N/A") return Status::Ok();
  auto v = ParseDouble(value);
  if (!v || !std::isfinite(*v) || *v < 0) {
    return Status::Invalid(fmt::format("'{}': \"{}\" (expected a number >= 0)", label, value));
  }
  Status taken = TrtllmTakeField(run, section, it->second, *v);
  if (!taken.ok()) {
    return Status::Invalid(
        fmt::format("'{}': \"{}\" (expected {})", label, value, taken.message()));
  }
  return Status::Ok();
}

// The GPUs: TP x PP as the report states them, else (a PERFORMANCE OVERVIEW pasted alone) the
// whole number that total over per-GPU throughput makes; the report's per-GPU figure is checked.
void TrtllmFinishGpus(TrtllmRun& run) {
  validate::ServingPoint& p = run.p;
  p.tp = run.tp;
  p.pp = run.pp;
  p.ep = run.ep;
  if (run.tp && *run.tp > 0) {
    p.gpus = *run.tp * run.pp.value_or(1);
    p.gpu_denominator = "all GPUs of the engine (TP x PP)";
  } else if (run.per_gpu && *run.per_gpu > 0 && p.output_throughput) {
    const double ratio = *p.output_throughput / *run.per_gpu;
    if (ratio >= 0.5 && ratio < 1e6 && std::fabs(ratio - std::round(ratio)) < 0.01 * ratio) {
      p.gpus = static_cast<int64_t>(std::round(ratio));
      p.gpu_denominator = "all GPUs of the engine (total / per-GPU output throughput)";
      p.notes.push_back(fmt::format(
          "no TP/PP sizes in the report: {} GPUs from its total and per-GPU output throughput",
          *p.gpus));
    }
  }
  if (p.gpus && run.per_gpu && p.output_throughput) {
    const double expected = *p.output_throughput / static_cast<double>(*p.gpus);
    if (std::fabs(*run.per_gpu - expected) > 0.01 * expected + 0.01) {
      p.notes.push_back(fmt::format(
          "the report's per-GPU output throughput {:.4f} tokens/s is not its total over {} "
          "GPUs ({:.4f})",
          *run.per_gpu, *p.gpus, expected));
    }
  }
}

// What the report says of the arrival process: the latency subcommand (or a batch of one) runs
// one request at a time; the throughput subcommand queues every request at once unless
// --concurrency was given, which the report does not print.
void TrtllmFinishMode(TrtllmRun& run) {
  validate::ServingPoint& p = run.p;
  if (run.old_latency || (run.batch && *run.batch == 1)) {
    p.mode = validate::ServingMode::kLatency;
    p.max_concurrency = 1;
  } else if (run.batch) {
    p.mode = validate::ServingMode::kOffline;
    std::string in_flight =
        run.concurrency ? fmt::format(" (on average {:.1f} requests in flight)", *run.concurrency)
                        : std::string();
    p.notes.push_back(
        "trtllm-bench throughput: read as offline max-throughput, every request "
        "queued at once; a --concurrency limit is not printed in the report" +
        in_flight);
  }
}

void TrtllmFinish(TrtllmRun& run) {
  validate::ServingPoint& p = run.p;
  p.tool = "trtllm-bench";
  if (run.seen.count(TrtllmSection::kPytorch)) p.backend = "pytorch";
  if (run.seen.count(TrtllmSection::kEngine)) p.backend = "tensorrt";
  if (!run.version.empty()) p.notes.push_back("TensorRT-LLM " + run.version);
  if (run.requests) {
    p.num_prompts = p.completed = run.requests;
    p.notes.push_back(
        "requests asked = requests reported: trtllm-bench ends only when every request has "
        "returned, and prints no failure count");
  }
  if (run.dataset_osl && run.sequences && run.requests && *run.sequences == *run.requests) {
    p.isl_asked = run.dataset_isl;
    p.osl_asked = run.dataset_osl;
  }
  if (!p.tpot_ms.empty()) {
    p.notes.push_back(
        "TPOT as trtllm-bench computes it per request: (latency - TTFT) / "
        "(output tokens - 1)");
  }
  TrtllmFinishGpus(run);
  TrtllmFinishMode(run);
}

Result<validate::InferenceResult> ParseTrtllmBench(std::string_view text, const std::string& name) {
  validate::InferenceResult result;
  result.format = "trtllm-bench";
  TrtllmRun run;
  TrtllmSection section = TrtllmSection::kNone;
  auto close = [&] {
    TrtllmFinish(run);
    if (run.figures > 0) result.points.push_back(std::move(run.p));
    run = {};
  };
  int64_t no = 0;
  for (std::string_view line : SplitLines(text)) {
    ++no;
    if (auto s = TrtllmSectionOf(line)) {
      // A section seen twice starts the next report (a log with several runs).
      if (run.seen.count(*s) && *s != TrtllmSection::kOther) close();
      section = *s;
      run.seen.insert(section);
      if (StartsWith(ToLower(Trim(line)), "= general overview")) run.old_latency = true;
      continue;
    }
    Status taken = TrtllmTakeLine(run, section, line);
    if (!taken.ok()) return Status::Invalid(fmt::format("{}:{}: {}", name, no, taken.message()));
  }
  close();
  if (result.points.empty()) {
    return Status::Invalid(name +
                           ": no trtllm-bench report: expected its '= PERFORMANCE OVERVIEW' "
                           "section with 'Request Throughput (req/sec):' and the output "
                           "throughput");
  }
  return result;
}

Result<std::any> ReadTrtllmBench(const FormatRequest& r) {
  auto text = ReadFormatContent(r, kMaxTrtllmBenchBytes, "a trtllm-bench report");
  if (!text.ok()) return text.status();
  auto parsed = ParseTrtllmBench(*text, r.path);
  if (!parsed.ok()) return parsed.status();
  return std::any(validate::EvaluateInference(std::move(*parsed), IngestOptionsOf(r), r.path));
}

}  // namespace

YS_FORMAT(SniffTrtllmBench, ReadTrtllmBench,
          {.name = "trtllm-bench",
           .produces = FormatProduct::kWorkloadRun,
           .summary = "the report TensorRT-LLM's trtllm-bench throughput / latency prints "
                      "(PERFORMANCE OVERVIEW, WORLD + RUNTIME INFORMATION)",
           .example = "= PERFORMANCE OVERVIEW"})

}  // namespace ys::formats
