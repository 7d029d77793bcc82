// `yardstick ingest LOG...`: training logs and serving-benchmark results in, per-workload window
// statistics, derived throughput and a status out.
#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "bench/device_specs.h"
#include "cli/command.h"
#include "core/exit_codes.h"
#include "core/json_fields.h"
#include "core/log.h"
#include "core/text.h"
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

struct IngestArgs {
  std::vector<std::string> logs;
  std::string format = "auto";
  std::string window = "35:44";
  int64_t seq = 0, gbs = 0, gpus = 0;
  double peak_tflops = 0;
  bool json = false;
};

Action Setup(CLI::App& sub) {
  auto a = std::make_shared<IngestArgs>();
  sub.add_option("LOG", a->logs,
                 "Training logs (NeMo 2, Megatron-Bridge, Megatron-LM, torchtitan) or serving-"
                 "benchmark JSON exports. Of several retries of one job "
                 "(log-<exp>_<jobid>_<retry>.out) only the newest counts")
      ->required();
  sub.add_option("--format", a->format, "Log format; auto detects it from the content")
      ->check(CLI::IsMember({"auto", "nemo2", "megatron", "torchtitan", "inference-json"}));
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
    o.format = *validate::ParseLogFormat(a->format);
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
    for (const std::string& path : sel.current) {
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
