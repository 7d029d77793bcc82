// `yardstick ingest LOG...`: training logs and serving-benchmark results in, per-workload window
// statistics, derived throughput and a status out. An nccl-tests log (detected from its content,
// or --format nccl-tests) becomes the run document `yardstick bench` writes for its coll.* units
// (validate/nccl_tests_run.h); a dcgmi diag or nvidia-smi nvlink -s/-e output a run document with
// the gpu.dcgm_diag or gpu.nvlink check (validate/gpu_tool_run.h): the console report, or the
// document with --json.
#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "bench/device_specs.h"
#include "cli/command.h"
#include "core/document_schemas.h"
#include "core/exit_codes.h"
#include "core/json_fields.h"
#include "core/json_schema.h"
#include "core/log.h"
#include "core/text.h"
#include "report/output.h"
#include "report/workload_console.h"
#include "validate/gpu_tool_run.h"
#include "validate/ingest.h"
#include "validate/nccl_tests_run.h"
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
  int64_t seq = 0, gbs = 0, gpus = 0;
  double peak_tflops = 0;
  bool json = false;
};

validate::IngestOptions OptionsOf(const IngestArgs& a) {
  validate::IngestOptions o;
  auto training = validate::ParseLogFormat(a.format);  // nullopt for the run-document formats
  o.format = training ? *training : validate::LogFormat::kAuto;
  o.window = *validate::ParseWindow(a.window);
  if (a.seq > 0) o.seq_len = a.seq;
  if (a.gbs > 0) o.global_batch_size = a.gbs;
  if (a.gpus > 0) o.gpus = a.gpus;
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

// The run document of an nccl-tests log, a dcgmi diag or an nvidia-smi nvlink output at `path`
// (the format named, or told from the content); nullopt when the file is none of them.
Result<std::optional<RunDocument>> ReadRunDocument(const std::string& path, const IngestArgs& a) {
  using validate::GpuToolOutput;
  const GpuToolOutput tool = a.format == "dcgmi-diag"          ? GpuToolOutput::kDcgmDiagTable
                             : a.format == "nvidia-smi-nvlink" ? GpuToolOutput::kNvlink
                                                               : GpuToolOutput::kNone;
  if (tool != GpuToolOutput::kNone) return validate::IngestGpuToolFile(path, tool);
  if (a.format == "nccl-tests") return validate::IngestNcclTestsFile(path, true, a.collective);
  if (a.format != "auto") return std::optional<RunDocument>();
  auto doc = validate::IngestGpuToolFile(path);
  if (!doc.ok() || doc->has_value()) return doc;
  return validate::IngestNcclTestsFile(path, false, a.collective);
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
  sub.add_option("--format", a->format, "Log format; auto detects it from the content")
      ->check(CLI::IsMember({"auto", "nemo2", "megatron", "torchtitan", "inference-json",
                             "nccl-tests", "dcgmi-diag", "nvidia-smi-nvlink"}));
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
      auto run_doc = ReadRunDocument(path, *a);
      if (run_doc.ok() && run_doc->has_value()) {
        run_documents.push_back(std::move(**run_doc));
        counts["run document"]++;
        continue;
      }
      Result<validate::WorkloadRun> run = run_doc.ok()
                                              ? validate::IngestLog(path, o)
                                              : Result<validate::WorkloadRun>(run_doc.status());
      if (!run.ok()) {
        Log(LogLevel::kError, "{}", run.status().message());
        doc.errors.push_back({path, run.status().message()});
        exit_code = std::max(exit_code, kExitCannotRun);
        counts["unreadable"]++;
        continue;
      }
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
