#include "report/workload_console.h"

#include <fmt/format.h>

#include "workloads/step_time_json.h"

namespace ys::report {

using validate::LogFormat;
using validate::RunStatus;
using validate::WorkloadRun;

namespace {

std::string Row(std::string_view label, std::string_view value) {
  return fmt::format("  {:<13} {}\n", label, value);
}

// "- (needs the sequence length (--seq))" for the first missing input of a figure.
std::string Missing(const WorkloadRun& r, std::string_view prefix) {
  for (const std::string& m : r.derived.missing) {
    if (m.rfind(prefix, 0) != 0) continue;
    size_t needs = m.find(" needs ");
    return "- (" + (needs == std::string::npos ? m : m.substr(needs + 1)) + ")";
  }
  return "-";
}

std::string FormatInference(const WorkloadRun& r) {
  std::string out;
  for (const validate::ServingPoint& p : r.inference->points) {
    std::string label = p.max_concurrency         ? fmt::format("conc {}", *p.max_concurrency)
                        : !p.request_rate.empty() ? fmt::format("rate {}", p.request_rate)
                                                  : std::string("point");
    std::string tput;
    if (p.output_throughput) {
      tput += fmt::format("output {:.2f} tok/s", *p.output_throughput);
      if (p.output_tokens_per_s_per_gpu) {
        tput += fmt::format(" ({:.2f}/GPU)", *p.output_tokens_per_s_per_gpu);
      }
    }
    if (p.total_token_throughput) {
      tput +=
          fmt::format("{}total {:.2f} tok/s", tput.empty() ? "" : ", ", *p.total_token_throughput);
      if (p.total_tokens_per_s_per_gpu) {
        tput += fmt::format(" ({:.2f}/GPU)", *p.total_tokens_per_s_per_gpu);
      }
    }
    out += Row(label, tput);
    auto ms = [](const validate::ServingStats& s, const char* stat) {
      auto v = validate::StatOf(s, stat);
      return v ? fmt::format("{:.2f}", *v) : std::string("-");
    };
    out += Row("", fmt::format("TTFT mean/median/p99 {}/{}/{} ms; TPOT mean/median {}/{} ms",
                               ms(p.ttft_ms, "mean"), ms(p.ttft_ms, "p50"), ms(p.ttft_ms, "p99"),
                               ms(p.tpot_ms, "mean"), ms(p.tpot_ms, "p50")));
  }
  if (!r.shape.gpus) out += Row("per GPU", Missing(r, "per-GPU"));
  return out;
}

}  // namespace

std::string FormatWorkloadRun(const WorkloadRun& r) {
  std::string out = r.log_path + "\n";
  out += Row("format", r.inference && !r.inference->format.empty() ? r.inference->format
                       : r.format == LogFormat::kAuto              ? "not recognised"
                                                      : validate::LogFormatName(r.format));
  out += Row("status", fmt::format("{}: {}", validate::RunStatusName(r.status), r.reason));
  if (r.config) {
    const validate::LlmbConfig& c = *r.config;
    out +=
        Row("job", fmt::format("{} {} {} x{} on {} ({})", c.model_name, c.model_size, c.dtype,
                               c.scale ? std::to_string(*c.scale) : "?", c.gpu_type, c.framework));
  }
  if (r.inference) {
    out += FormatInference(r);
  } else if (r.iterations_seen > 0) {
    std::string seen = fmt::format("{} seen", r.iterations_seen);
    if (r.last_step_seen) seen += fmt::format(", last step {}", *r.last_step_seen);
    if (r.total_steps) seen += fmt::format(" of {}", *r.total_steps);
    if (r.iteration_base == 0) seen += " (0-based in the log: step k is iteration k-1)";
    out += Row("iterations", seen);
    std::string window = fmt::format("window {}", validate::FormatWindow(r.window));
    if (r.step_time_s) {
      out += Row("step time", fmt::format("{:.3f} ± {:.3f} s  ({}, n={}{})", r.step_time_s->mean,
                                          r.step_time_s->stdev, window, r.step_time_s->n,
                                          r.samples.empty() || !r.samples.back().step_time_derived
                                              ? ""
                                              : ", derived from tps"));
    } else if (r.format == LogFormat::kTorchtitan && r.tokens_per_s_per_gpu) {
      out += Row("step time", "- (torchtitan prints tps, not a step time; --gpus derives it)");
    } else {
      out += Row("step time", "- (no timed step in the " + window + ")");
    }
    int64_t first = 0;
    if (auto a = workloads::AnalyzeStepTimes(validate::StepTimesAfterWarmup(r, &first)); a.ok()) {
      out += Row("step profile",
                 fmt::format("from step {}: {}", first, workloads::StepTimeSummary(*a)));
    }
    if (r.tflops_per_gpu) {
      out += Row("TFLOPS/GPU", fmt::format("{:.1f} ± {:.1f}  (n={})", r.tflops_per_gpu->mean,
                                           r.tflops_per_gpu->stdev, r.tflops_per_gpu->n));
    } else {
      out += Row("TFLOPS/GPU", r.tflops_not_reported ? "not reported" : "-");
    }
    if (r.derived.tokens_per_s_per_gpu) {
      std::string how;
      if (r.derived.tokens_per_s && r.shape.seq_len && r.shape.global_batch_size && r.shape.gpus &&
          r.step_time_s) {
        how = fmt::format("  (seq {} x GBS {} / {:.3f} s / {} GPUs)", *r.shape.seq_len,
                          *r.shape.global_batch_size, r.step_time_s->mean, *r.shape.gpus);
      } else if (r.tokens_per_s_per_gpu) {
        how = "  (tps printed by the log)";
      }
      out += Row("tokens/s/GPU", fmt::format("{:.1f}{}", *r.derived.tokens_per_s_per_gpu, how));
    } else {
      out += Row("tokens/s/GPU", Missing(r, "tokens/s"));
    }
    if (r.derived.mfu) {
      out += Row("MFU", fmt::format("{:.1f}%  (peak {} TFLOPS)", *r.derived.mfu * 100,
                                    r.shape.peak_tflops.value_or(0)));
    } else {
      out += Row("MFU", r.tflops_not_reported ? "- (TFLOPS not reported)" : Missing(r, "MFU"));
    }
  }
  for (const std::string& s : r.superseded_logs) out += Row("superseded", s);
  for (const std::string& n : r.notes) out += Row("note", n);
  return out;
}

int ExitCodeForStatus(RunStatus status) {
  switch (status) {
    case RunStatus::kSuccess:
      return 0;
    case RunStatus::kIncomplete:
    case RunStatus::kInvalidGradNorm:
      return 1;
    case RunStatus::kNoData:
    case RunStatus::kNoLog:
    case RunStatus::kUnsupportedFramework:
    case RunStatus::kInvalidMeasurement:
      return 2;
  }
  return 2;
}

}  // namespace ys::report
