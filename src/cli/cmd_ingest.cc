// `yardstick ingest FILE...`: the files an operator holds in, each read by the format its content
// names (the format room, core/format_registry.h and src/formats/; --format NAME overrides):
// training logs and serving-benchmark results give per-workload window statistics, derived
// throughput and a status; an nccl-tests log, a dcgmi diag or an nvidia-smi nvlink output gives
// the run document of the unit that judges it (coll.*, gpu.dcgm_diag, gpu.nvlink): the console
// report, or the document with --json. A file no format claims is refused (exit 2) with the
// closest format and what it lacked; a file of another product (a GPU-state dump, a kernel log)
// is sent to the command that reads it.
#include <fmt/format.h>

#include <algorithm>
#include <any>
#include <nlohmann/json.hpp>
#include <variant>

#include "bench/device_specs.h"
#include "cli/command.h"
#include "core/document_schemas.h"
#include "core/exit_codes.h"
#include "core/format_registry.h"
#include "core/json_fields.h"
#include "core/json_schema.h"
#include "core/log.h"
#include "core/text.h"
#include "report/output.h"
#include "report/workload_console.h"
#include "validate/ingest.h"
#include "validate/retry_logs.h"

namespace ys::cli::cmd_ingest {
namespace {

// `ingest --json`: the runs (each the workload-run document), the older retries left out and the
// logs that could not be read. Only written.
struct PathAndNewest {
  std::string path;
  std::string newest;
};

template <typename V>
void Fields(V& v, PathAndNewest& s) {
  v("path", s.path);
  v("newest", s.newest);
}

struct PathAndError {
  std::string path;
  std::string error;
};

template <typename V>
void Fields(V& v, PathAndError& e) {
  v("path", e.path);
  v("error", e.error);
}

struct IngestDocument {
  std::vector<nlohmann::ordered_json> runs;  // validate::ToJson(WorkloadRun)
  std::vector<PathAndNewest> superseded;
  std::vector<PathAndError> errors;
};

template <typename V>
void Fields(V& v, IngestDocument& d) {
  v.computed("schema_version", [] { return validate::kWorkloadRunSchemaVersion; });
  v("runs", d.runs);
  v("superseded", d.superseded);
  v("errors", d.errors);
}

YS_DOCUMENT_SCHEMA("ingest", IngestDocument, "yardstick ingest --json",
                   "The training logs read: each run as a workload-run document "
                   "(workload_run.schema.json), the older retries left out and the logs that "
                   "could not be read.");

struct IngestArgs {
  std::vector<std::string> logs;
  std::string format = "auto";
  std::string window = "35:44";
  std::string collective;
  int64_t seq = 0, gbs = 0, gpus = 0, concurrency = 0;
  double peak_tflops = 0;
  bool json = false;
};

validate::IngestOptions OptionsOf(const IngestArgs& a) {
  validate::IngestOptions o;  // the format unit chosen sets o.format
  o.window = *validate::ParseWindow(a.window);
  if (a.seq > 0) o.seq_len = a.seq;
  if (a.gbs > 0) o.global_batch_size = a.gbs;
  if (a.gpus > 0) o.gpus = a.gpus;
  if (a.concurrency > 0) o.concurrency = a.concurrency;
  if (a.peak_tflops > 0) o.peak_tflops = a.peak_tflops;
  return o;
}

// "ingest: 3 log(s): 1 pass, 1 run document, 1 unreadable; 1 older retry superseded".
std::string Summary(const std::map<std::string, int>& counts, const validate::RetrySelection& sel) {
  std::string summary;
  for (const auto& [status, n] : counts) {
    summary += fmt::format("{}{} {}", summary.empty() ? "" : ", ", n, status);
  }
  if (!sel.superseded.empty()) {
    summary += fmt::format("; {} older retr{} superseded", sel.superseded.size(),
                           sel.superseded.size() == 1 ? "y" : "ies");
  }
  return fmt::format("ingest: {} log(s): {}", sel.current.size(), summary);
}

// A file the format room reads: a WorkloadRun (a training or serving run) or a RunDocument (a
// tool's output judged as a unit).
using Ingested = std::variant<validate::WorkloadRun, RunDocument>;

// The file at `path` read by the format its content names (or --format). A training log whose
// first step line comes after the sniffed head (a long preamble) is found by the streaming
// reader, which looks at every line.
Result<Ingested> ReadInput(const std::string& path, const IngestArgs& a,
                           const validate::IngestOptions& o) {
  auto head = ReadFormatHead(path);
  if (!head.ok()) {
    if (head.status().code() == StatusCode::kNotFound) {
      return Status::NotFound(path +
                              ": no such file; expected a file of a format yardstick reads "
                              "(yardstick list --formats)");
    }
    return head.status();
  }
  auto chosen = ChooseFormat(path, *head, std::nullopt, a.format);
  if (!chosen.ok() && a.format == "auto") {
    // What no sniffer claims in the head: the streaming training-log reader looks at every line
    // (a step line past a long start-up) and names what makes a file unreadable (its size,
    // binary data, a framework yardstick does not score); a text with no step line at all is no
    // training log, and gets the format room's answer.
    auto run = validate::IngestLog(path, o);
    if (!run.ok()) return run.status();
    // A step line found, or an llmb-config beside the file naming it a job's log.
    if (run->format != validate::LogFormat::kAuto || run->config) return Ingested(std::move(*run));
  }
  if (!chosen.ok()) return chosen.status();
  const RegisteredFormat& f = *chosen->format;
  if (f.info.produces != FormatProduct::kWorkloadRun &&
      f.info.produces != FormatProduct::kRunDocument) {
    return Status::Invalid(
        fmt::format("{}: {} ({}: {}); ingest reads runs and tool outputs: give it to "
                    "yardstick {}",
                    path, f.info.name, FormatProductName(f.info.produces), chosen->sniff.evidence,
                    FormatProductReadBy(f.info.produces)));
  }
  const std::any options = o;
  auto read = f.read(FormatRequest{
      .path = path, .options = &options, .collective = a.collective, .forced = a.format != "auto"});
  if (!read.ok()) return read.status();
  if (auto* run = std::any_cast<validate::WorkloadRun>(&*read)) return Ingested(std::move(*run));
  if (auto* doc = std::any_cast<RunDocument>(&*read)) return Ingested(std::move(*doc));
  return Status::Internal(path + ": format " + std::string(f.info.name) +
                          " produced neither a run nor a run document");
}

// Prints the run documents read (the console report, or with --json the one document: JSON
// cannot hold several beside the training runs); the exit code they give (1: a failed check).
int EmitRunDocuments(const std::vector<RunDocument>& runs, const IngestArgs& a, size_t inputs) {
  if (a.json && inputs > 1) {
    Log(LogLevel::kError,
        "ingest --json: an nccl-tests log, a dcgmi diag or an nvidia-smi nvlink output gives a "
        "run document of its own; give it alone");
    return kExitCannotRun;
  }
  int code = kExitPass;
  for (const RunDocument& run : runs) {
    if (Status s = report::EmitRun(run, {.json = a.json}); !s.ok()) {
      Log(LogLevel::kError, "{}", s.message());
      return kExitCannotRun;
    }
    code = std::max(code, report::ExitCodeFor(run));
  }
  return code;
}

void AddOptions(CLI::App& sub, const std::shared_ptr<IngestArgs>& a) {
  sub.add_option("LOG", a->logs,
                 "Training logs (NeMo 2, Megatron-Bridge, Megatron-LM, torchtitan), serving-"
                 "benchmark JSON exports, nccl-tests logs, dcgmi diag or nvidia-smi nvlink -s/-e "
                 "outputs. Of several retries of one job "
                 "(log-<exp>_<jobid>_<retry>.out) only the newest counts")
      ->required();
  std::vector<std::string> formats = {"auto"};
  for (const RegisteredFormat* f : FormatRegistry::Global().List()) {
    if (f->info.produces == FormatProduct::kWorkloadRun ||
        f->info.produces == FormatProduct::kRunDocument) {
      formats.emplace_back(f->info.name);
    }
  }
  sub.add_option("--format", a->format,
                 "The file's format (yardstick list --formats); auto tells it from the content")
      ->check(CLI::IsMember(formats));
  sub.add_option("--collective", a->collective,
                 "nccl-tests logs that do not name their *_perf binary: the collective measured")
      ->check(CLI::IsMember({"all_reduce", "all_gather", "reduce_scatter", "alltoall", "broadcast",
                             "reduce", "sendrecv", "gather", "scatter", "hypercube"}));
  sub.add_option("--window", a->window,
                 "Steps to average, FIRST:LAST inclusive, 1-based as Megatron prints them (NeMo 2 "
                 "prints step k as iteration k-1)")
      ->check(CLI::Validator(
          [](std::string& v) {
            auto w = validate::ParseWindow(v);
            return w.ok() ? std::string() : w.status().message();
          },
          "FIRST:LAST"));
  sub.add_option("--seq", a->seq, "Sequence length (tokens per sample)")
      ->check(CLI::PositiveNumber);
  sub.add_option("--gbs", a->gbs, "Global batch size (default: as the log prints it)")
      ->check(CLI::PositiveNumber);
  sub.add_option("--gpus", a->gpus, "GPUs in the job (default: scale in llmb-config_<JOBID>.yaml)")
      ->check(CLI::PositiveNumber);
  sub.add_option("--concurrency", a->concurrency,
                 "Serving runs: the concurrency the load generator held, where its output does not "
                 "print it (a trtllm-bench report, a GenAI-Perf console table)")
      ->check(CLI::PositiveNumber);
  sub.add_option("--peak-tflops", a->peak_tflops,
                 "Peak dense TFLOPS of one GPU at the run's precision, for MFU");
  sub.add_flag("--json", a->json, "Print the workload runs as JSON");
}

Action Setup(CLI::App& sub) {
  auto a = std::make_shared<IngestArgs>();
  AddOptions(sub, a);
  return [a]() -> Result<int> {
    // 0: not given (MFU is then left out, with the reason).
    if (a->peak_tflops != 0) {
      YS_RETURN_IF_ERROR(RefuseOutOfRange({CheckRange(a->peak_tflops, bench::kMinPeakTflops,
                                                      bench::kMaxPeakTflops, "--peak-tflops")}));
    }
    const validate::IngestOptions o = OptionsOf(*a);

    validate::RetrySelection sel = validate::SelectNewestRetries(a->logs);
    int exit_code = kExitPass;
    std::map<std::string, int> counts;
    IngestDocument doc;
    std::string text;
    std::vector<RunDocument> run_documents;
    for (const std::string& path : sel.current) {
      Result<Ingested> input = ReadInput(path, *a, o);
      if (input.ok() && std::holds_alternative<RunDocument>(*input)) {
        run_documents.push_back(std::move(std::get<RunDocument>(*input)));
        counts["run document"]++;
        continue;
      }
      if (!input.ok()) {
        Log(LogLevel::kError, "{}", input.status().message());
        doc.errors.push_back({path, input.status().message()});
        exit_code = std::max(exit_code, kExitCannotRun);
        counts["unreadable"]++;
        continue;
      }
      auto* run = &std::get<validate::WorkloadRun>(*input);
      for (const validate::SupersededLog& s : sel.superseded) {
        if (s.newest == path) run->superseded_logs.push_back(s.path);
      }
      int code = report::ExitCodeForStatus(run->status);
      if (code == kExitCannotRun) {
        Log(LogLevel::kError, "{}: {}: {}", path, validate::RunStatusName(run->status),
            run->reason);
      }
      exit_code = std::max(exit_code, code);
      counts[validate::RunStatusName(run->status)]++;
      if (a->json) {
        doc.runs.push_back(validate::ToJson(*run));
      } else {
        text += report::FormatWorkloadRun(*run) + "\n";
      }
    }
    if (!run_documents.empty()) {
      exit_code = std::max(exit_code, EmitRunDocuments(run_documents, *a, sel.current.size()));
      if (a->json) return exit_code;
    }
    if (a->json) {
      for (const validate::SupersededLog& s : sel.superseded)
        doc.superseded.push_back({s.path, s.newest});
      fmt::print("{}\n", json_fields::Write(doc).dump(
                             2, ' ', false, nlohmann::ordered_json::error_handler_t::replace));
    } else {
      fmt::print("{}{}\n", SanitizeForDisplay(text), Summary(counts, sel));
    }
    return exit_code;
  };
}

}  // namespace

YS_REGISTER(CommandOf<Setup>,
            {.id = "ingest",
             .summary = "Read training logs or serving-benchmark results: window step time, "
                        "TFLOPS/GPU, tokens/s/GPU, MFU and a status per workload"})

}  // namespace ys::cli::cmd_ingest
