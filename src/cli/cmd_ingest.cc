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
#include "core/exit_codes.h"
#include "core/json_fields.h"
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

struct IngestArgs {
  std::vector<std::string> logs;
  std::string format = "auto";
  std::string window = "35:44";
  std::string collective;
  int64_t seq = 0, gbs = 0, gpus = 0;
  double peak_tflops = 0;
  bool json = false;
};

// The run document of an nccl-tests log, a dcgmi diag or an nvidia-smi nvlink output, printed
// (the tables, or JSON); the exit code it gives (1: a failed check), or 2 with the error logged
// and kept for --json.
int EmitRunDocument(const std::string& path, const Result<std::optional<RunDocument>>& run,
                    bool json, IngestDocument& doc) {
  if (!run.ok()) {
    Log(LogLevel::kError, "{}", run.status().message());
    doc.errors.push_back({path, run.status().message()});
    return kExitCannotRun;
  }
  report::OutputOptions out{.json = json};
  if (Status s = report::EmitRun(**run, out); !s.ok()) {
    Log(LogLevel::kError, "{}", s.message());
    return kExitCannotRun;
  }
  return report::ExitCodeFor(**run);
}

Action Setup(CLI::App& sub) {
  auto a = std::make_shared<IngestArgs>();
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

  return [a]() -> Result<int> {
    // 0: not given (MFU is then left out, with the reason).
    if (a->peak_tflops != 0) {
      YS_RETURN_IF_ERROR(RefuseOutOfRange({CheckRange(a->peak_tflops, bench::kMinPeakTflops,
                                                      bench::kMaxPeakTflops, "--peak-tflops")}));
    }
    validate::IngestOptions o;
    const bool nccl_only = a->format == "nccl-tests";
    const validate::GpuToolOutput tool =
        a->format == "dcgmi-diag"          ? validate::GpuToolOutput::kDcgmDiagTable
        : a->format == "nvidia-smi-nvlink" ? validate::GpuToolOutput::kNvlink
                                           : validate::GpuToolOutput::kNone;
    const bool tool_only = tool != validate::GpuToolOutput::kNone;
    auto training = validate::ParseLogFormat(a->format);
    o.format = training ? *training : validate::LogFormat::kAuto;
    o.window = *validate::ParseWindow(a->window);
    if (a->seq > 0) o.seq_len = a->seq;
    if (a->gbs > 0) o.global_batch_size = a->gbs;
    if (a->gpus > 0) o.gpus = a->gpus;
    if (a->peak_tflops > 0) o.peak_tflops = a->peak_tflops;

    validate::RetrySelection sel = validate::SelectNewestRetries(a->logs);
    int exit_code = kExitPass;
    std::map<std::string, int> counts;
    IngestDocument doc;
    std::string text;
    int run_documents = 0;
    for (const std::string& path : sel.current) {
      if (a->format == "auto" || nccl_only || tool_only) {
        // An nccl-tests log, a dcgmi diag or an nvidia-smi nvlink output: a run document.
        auto tool_doc = tool_only || a->format == "auto"
                            ? validate::IngestGpuToolFile(path, tool)
                            : Result<std::optional<RunDocument>>(std::optional<RunDocument>());
        auto run_doc = tool_doc.ok() && !tool_doc->has_value() && !tool_only
                           ? validate::IngestNcclTestsFile(path, nccl_only, a->collective)
                           : tool_doc;
        if (!run_doc.ok() || run_doc->has_value()) {
          int code = EmitRunDocument(path, run_doc, a->json, doc);
          exit_code = std::max(exit_code, code);
          counts[code == kExitCannotRun ? "unreadable" : "run document"]++;
          run_documents += run_doc.ok() ? 1 : 0;
          continue;
        }
      }
      Result<validate::WorkloadRun> run = validate::IngestLog(path, o);
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
    if (a->json && run_documents > 0) {
      if (run_documents + doc.runs.size() + doc.errors.size() > 1) {
        Log(LogLevel::kError,
            "ingest --json: an nccl-tests log, a dcgmi diag or an nvidia-smi nvlink output "
            "gives a run document of its own; give it alone");
        return kExitCannotRun;
      }
      return exit_code;
    }
    if (a->json) {
      for (const validate::SupersededLog& s : sel.superseded)
        doc.superseded.push_back({s.path, s.newest});
      fmt::print("{}\n", json_fields::Write(doc).dump(
                             2, ' ', false, nlohmann::ordered_json::error_handler_t::replace));
    } else {
      std::string summary;
      for (const auto& [status, n] : counts) {
        summary += fmt::format("{}{} {}", summary.empty() ? "" : ", ", n, status);
      }
      if (!sel.superseded.empty()) {
        summary += fmt::format("; {} older retr{} superseded", sel.superseded.size(),
                               sel.superseded.size() == 1 ? "y" : "ies");
      }
      fmt::print("{}ingest: {} log(s): {}\n", SanitizeForDisplay(text), sel.current.size(),
                 summary);
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
