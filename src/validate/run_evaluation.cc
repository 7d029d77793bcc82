#include "validate/run_evaluation.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/text.h"
#include "validate/derived_metrics.h"
#include "validate/serving_validity.h"

namespace ys::validate {
namespace {

constexpr const char* kExpectedTraining =
    "expected Megatron ('iteration N/ M | ... elapsed time per iteration (ms): X'), NeMo 2 "
    "('iteration N/M | ... train_step_timing in s: X') or torchtitan ('step: N  loss: X ... "
    "tps: Y') training-log lines";

const char* ExpectedFor(LogFormat f) {
  switch (f) {
    case LogFormat::kNemo2:
      return "expected NeMo 2 lines 'iteration N/M | ... train_step_timing in s: X'";
    case LogFormat::kMegatron:
      return "expected Megatron lines 'iteration N/ M | ... elapsed time per iteration (ms): X'";
    case LogFormat::kTorchtitan:
      return "expected torchtitan lines 'step: N  loss: X ... tps: Y  tflops: Z'";
    default:
      return kExpectedTraining;
  }
}

bool SupportedFramework(std::string_view fw) {
  std::string f = ToLower(fw);
  for (const char* ok : {"nemo2", "nemo", "nemo_2", "megatron_bridge", "megatron-bridge", "mbridge",
                         "megatron", "megatron_lm", "megatron-lm", "torchtitan"}) {
    if (f == ok) return true;
  }
  return false;
}

// The log's printed number for a 1-based step.
int64_t Printed(int64_t step, int base) { return step - 1 + base; }

// " (printed as iteration 34-43)" for 0-based logs, else "".
std::string PrintedNote(const std::vector<int64_t>& steps, int base) {
  if (base == 1 || steps.empty()) return {};
  std::vector<int64_t> printed;
  for (int64_t s : steps) printed.push_back(Printed(s, base));
  return fmt::format(" (printed as iteration {})", FormatSteps(printed));
}

JobShape ResolveShape(const IngestOptions& o, const ParsedLog* log, const LlmbConfig* cfg,
                      std::vector<std::string>& notes) {
  JobShape s;
  auto pick = [&](std::optional<int64_t>& out, std::string& source, std::optional<int64_t> cli,
                  std::optional<int64_t> other, const char* other_source, const char* what) {
    if (cli) {
      out = cli;
      source = "caller";
      if (other && *other != *cli) {
        notes.push_back(fmt::format("{}: {} given, but the {} says {}; using {}", what, *cli,
                                    other_source, *other, *cli));
      }
    } else if (other) {
      out = other;
      source = other_source;
    }
  };
  pick(s.seq_len, s.seq_len_source, o.seq_len, log ? log->seq_len : std::nullopt, "log",
       "sequence length");
  pick(s.global_batch_size, s.global_batch_size_source, o.global_batch_size,
       log ? log->global_batch_size : std::nullopt, "log", "global batch size");
  pick(s.gpus, s.gpus_source, o.gpus, cfg ? cfg->scale : std::nullopt, "llmb-config", "GPU count");
  if (o.peak_tflops) {
    s.peak_tflops = o.peak_tflops;
    s.peak_tflops_source = "caller";
  }
  return s;
}

std::string TrainingReason(const WorkloadRun& r, LogFormat forced) {
  const int base = r.iteration_base;
  std::string window = FormatWindow(r.window);
  std::string window_printed =
      base == 1 ? std::string()
                : fmt::format(" (printed as iteration {}-{})", Printed(r.window.first_step, base),
                              Printed(r.window.last_step, base));
  switch (r.status) {
    case RunStatus::kSuccess:
      return fmt::format("steps {}{} all timed ({} samples); final marker at line {}", window,
                         window_printed, r.window.size(), r.final_marker_line);
    case RunStatus::kInvalidGradNorm: {
      const NonFiniteGradNorm& g = r.nonfinite_grad_norms.front();
      std::string where = g.step > 0 ? fmt::format("step {}{}, line {}", g.step,
                                                   PrintedNote({g.step}, base), g.line)
                                     : fmt::format("line {}", g.line);
      std::string more = r.nonfinite_grad_norms.size() > 1
                             ? fmt::format(" and {} more", r.nonfinite_grad_norms.size() - 1)
                             : std::string();
      return fmt::format("grad norm is {} at {}{}: the run diverged and its numbers are invalid",
                         std::isnan(g.value) ? "nan" : (g.value > 0 ? "inf" : "-inf"), where, more);
    }
    case RunStatus::kNoData:
      return fmt::format("no training iterations in {} line(s); {}", r.lines, ExpectedFor(forced));
    default:
      break;
  }
  std::vector<std::string> parts;
  if (r.total_steps && *r.total_steps < r.window.last_step) {
    parts.push_back(fmt::format("the run has {} steps; window {} needs steps up to {}",
                                *r.total_steps, window, r.window.last_step));
  }
  if (!r.missing_window_steps.empty()) {
    parts.push_back(fmt::format("no timing sample for step {}{} of window {}",
                                FormatSteps(r.missing_window_steps),
                                PrintedNote(r.missing_window_steps, base), window));
  }
  if (!r.final_marker_seen) {
    if (r.format == LogFormat::kTorchtitan) {
      parts.push_back(r.total_steps
                          ? fmt::format("last step {} not seen (last step printed: {})",
                                        *r.total_steps, r.last_step_seen.value_or(0))
                          : std::string("no 'Training completed' and no total step count: the "
                                        "end of the run was not seen"));
    } else if (r.total_steps) {
      int64_t m = Printed(*r.total_steps, base);
      parts.push_back(
          fmt::format("final marker 'iteration {}/{}' not seen (last iteration printed: {}/{})", m,
                      m, Printed(r.last_step_seen.value_or(0), base), m));
    } else {
      parts.push_back("final marker 'iteration N/N' not seen");
    }
  }
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : "; ") + p;
  return out;
}

// torchtitan prints tokens/s/GPU, not a step time: derive it when the shape is known.
void DeriveTorchtitanStepTimes(ParsedLog& log, WorkloadRun& r) {
  std::optional<int64_t> tokens = log.tokens_per_step;
  if (r.shape.seq_len && r.shape.global_batch_size) {
    tokens = *r.shape.seq_len * *r.shape.global_batch_size;
  }
  if (tokens && r.shape.gpus) {
    for (IterationSample& s : log.samples) {
      if (s.tokens_per_s_per_gpu && *s.tokens_per_s_per_gpu > 0) {
        s.step_time_s = static_cast<double>(*tokens) /
                        (*s.tokens_per_s_per_gpu * static_cast<double>(*r.shape.gpus));
        s.step_time_derived = true;
      }
    }
    r.notes.push_back(
        fmt::format("torchtitan prints no step time; it is derived as {} tokens "
                    "per step / (tps x {} GPUs)",
                    *tokens, *r.shape.gpus));
  }
}

// The measurement window's statistics, the derived metrics and notes on what the log left out.
void EvaluateRunWindow(WorkloadRun& r) {
  WindowEvaluation ev = EvaluateWindow(r.samples, r.window);
  r.missing_window_steps = ev.missing_steps;
  r.step_time_s = ev.step_time_s;
  r.tflops_per_gpu = ev.tflops_per_gpu;
  r.tokens_per_s_per_gpu = ev.tokens_per_s_per_gpu;
  int64_t timed = r.window.size() - static_cast<int64_t>(ev.missing_steps.size());
  r.tflops_not_reported = timed > 0 && !ev.tflops_per_gpu;
  if (ev.tflops_zero > 0) {
    r.notes.push_back(fmt::format(
        "TFLOPS/GPU printed as 0 on {} window step(s): taken as not reported, not as zero "
        "(Megatron-Bridge prints 0 MODEL_TFLOP/s/GPU for hybrid models such as Nemotron-H)",
        ev.tflops_zero));
  }
  if (ev.tflops_missing > 0 && ev.tflops_per_gpu) {
    r.notes.push_back(
        fmt::format("{} timed window step(s) have no TFLOPS; the TFLOPS mean is "
                    "over the other {}",
                    ev.tflops_missing, ev.tflops_per_gpu->n));
  }
  r.derived = DeriveMetrics(
      ev.step_time_s ? std::optional<double>(ev.step_time_s->mean) : std::nullopt,
      ev.tflops_per_gpu ? std::optional<double>(ev.tflops_per_gpu->mean) : std::nullopt,
      ev.tokens_per_s_per_gpu ? std::optional<double>(ev.tokens_per_s_per_gpu->mean) : std::nullopt,
      r.shape);
  if (r.tflops_not_reported) {
    r.derived.missing.push_back("TFLOPS/GPU and MFU: the log reports no TFLOPS for the window");
  }
}

}  // namespace

WorkloadRun EvaluateTrainingLog(ParsedLog log, const IngestOptions& o, std::string_view path) {
  WorkloadRun r;
  r.log_path = std::string(path);
  r.format = log.format;
  r.iteration_base = log.iteration_base;
  r.window = o.window;
  r.lines = log.lines;
  r.iterations_seen = static_cast<int64_t>(log.samples.size());
  if (!log.samples.empty()) r.last_step_seen = log.samples.back().step;
  r.total_steps = log.total_steps;
  r.final_marker_seen = log.final_marker_seen;
  r.final_marker_line = log.final_marker_line;
  r.nonfinite_grad_norms = log.nonfinite_grad_norms;
  r.notes = log.notes;
  r.config = o.config;
  r.shape = ResolveShape(o, &log, r.config ? &*r.config : nullptr, r.notes);

  if (log.format == LogFormat::kTorchtitan) DeriveTorchtitanStepTimes(log, r);
  r.samples = std::move(log.samples);

  EvaluateRunWindow(r);

  bool unsupported = o.format == LogFormat::kAuto && r.config && !r.config->framework.empty() &&
                     !SupportedFramework(r.config->framework);
  if (unsupported) {
    r.status = RunStatus::kUnsupportedFramework;
    r.reason = fmt::format(
        "{} says framework '{}'; yardstick reads NeMo 2, Megatron-Bridge, "
        "Megatron-LM and torchtitan logs (--format forces one)",
        r.config->path, r.config->framework);
    return r;
  }
  if (r.samples.empty()) {
    r.status = RunStatus::kNoData;
  } else if (!r.nonfinite_grad_norms.empty()) {
    r.status = RunStatus::kInvalidGradNorm;
  } else if (!r.missing_window_steps.empty() || !r.final_marker_seen) {
    r.status = RunStatus::kIncomplete;
  } else {
    r.status = RunStatus::kSuccess;
  }
  r.reason = TrainingReason(r, o.format);
  if (r.config && !r.config->framework.empty() && r.status != RunStatus::kNoData) {
    std::string fw = ToLower(r.config->framework);
    bool nemo_cfg = fw == "nemo2" || fw == "nemo" || fw == "nemo_2";
    if (nemo_cfg != (r.format == LogFormat::kNemo2) && fw != "torchtitan") {
      r.notes.push_back(fmt::format("{} says framework '{}' but the log reads as {}",
                                    r.config->path, r.config->framework, LogFormatName(r.format)));
    }
  }
  return r;
}

WorkloadRun EvaluateInference(InferenceResult result, const IngestOptions& o,
                              std::string_view path) {
  WorkloadRun r;
  r.log_path = std::string(path);
  r.format = LogFormat::kInferenceJson;
  r.window = o.window;
  r.config = o.config;
  r.shape = ResolveShape(o, nullptr, r.config ? &*r.config : nullptr, r.notes);
  NormaliseByGpus(result, r.shape.gpus);
  if (o.concurrency) {
    for (ServingPoint& p : result.points) {
      if (p.max_concurrency) continue;  // the file's own figure wins
      p.max_concurrency = *o.concurrency;
      p.mode = *o.concurrency == 1 ? ServingMode::kLatency : ServingMode::kServing;
      p.notes.push_back(
          fmt::format("concurrency {} as given (--concurrency): the file does not "
                      "print it",
                      *o.concurrency));
    }
  }
  const bool file_counts = std::all_of(result.points.begin(), result.points.end(),
                                       [](const ServingPoint& p) { return p.gpus.has_value(); });
  if (!r.shape.gpus && !(file_counts && !result.points.empty())) {
    r.derived.missing.push_back("per-GPU throughput needs the GPU count (--gpus)");
  }
  size_t unknown_asked = 0, flawed = 0;  // points that do not say how many requests were asked
  std::string flaws;
  for (ServingPoint& p : result.points) {
    if (!p.completed || !p.num_prompts) ++unknown_asked;
    p.flaws.clear();
    std::vector<ServingFlawFound> found = FindServingFlaws(p);
    for (const ServingFlawFound& f : found) {
      p.flaws.push_back(fmt::format("{}: {}", ServingFlawName(f.flaw), f.detail));
    }
    if (found.empty()) continue;
    ++flawed;
    flaws += fmt::format("{}{}: {}", flaws.empty() ? "" : "; ", ServingPointName(p),
                         DescribeFlaws(found));
  }
  if (result.points.empty() && result.nemo_rl_metrics) {
    r.status = RunStatus::kUnsupportedFramework;
    r.reason =
        "a NeMo-RL metrics.json (timing/train/total_step_time): not a serving-benchmark "
        "result, and RL runs are not read yet";
  } else if (result.points.empty()) {
    r.status = RunStatus::kNoData;
    r.reason =
        "no serving-benchmark result in the file: expected a point with output_throughput "
        "or total_token_throughput";
  } else if (flawed == result.points.size()) {
    r.status = RunStatus::kInvalidMeasurement;
    r.reason = "not a measure of serving capacity: " + flaws;
  } else {
    r.status = RunStatus::kSuccess;
    r.reason = fmt::format("{} serving point(s)", result.points.size());
    if (flawed > 0) {
      r.reason += fmt::format("; {} of them refused ({})", flawed, flaws);
    }
    if (unknown_asked > 0) {
      r.reason += fmt::format(
          "; {} do not say how many requests were asked (no failed-request count and no "
          "request count asked in the file): lost requests cannot be ruled out there",
          unknown_asked);
    } else if (flawed == 0) {
      r.reason += "; every request completed";
    }
  }
  r.inference = std::move(result);
  return r;
}

}  // namespace ys::validate
