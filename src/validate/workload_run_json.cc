// The JSON form of WorkloadRun (workload_run.h): one field list per struct (core/json_fields.h),
// walked by ToJson and by WorkloadRunFromJson, which names the first field that is missing or of
// the wrong type. The document's own conventions (non-finite numbers as "nan", "inf", "-inf";
// messages "workload run: '<path>': expected ...") are its JsonStyle.
#include <fmt/format.h>

#include <array>
#include <nlohmann/json.hpp>

#include "core/document_schemas.h"
#include "core/json_fields.h"
#include "core/json_schema.h"
#include "core/run_document_fields.h"
#include "validate/workload_run.h"

namespace ys::validate {

inline auto JsonNames(LogFormat) {
  return std::array{std::pair{LogFormat::kAuto, "auto"}, std::pair{LogFormat::kNemo2, "nemo2"},
                    std::pair{LogFormat::kMegatron, "megatron"},
                    std::pair{LogFormat::kTorchtitan, "torchtitan"},
                    std::pair{LogFormat::kInferenceJson, "inference-json"}};
}
inline auto JsonNames(RunStatus) {
  return std::array{std::pair{RunStatus::kSuccess, "success"},
                    std::pair{RunStatus::kIncomplete, "incomplete"},
                    std::pair{RunStatus::kNoData, "no_data"},
                    std::pair{RunStatus::kNoLog, "no_log"},
                    std::pair{RunStatus::kUnsupportedFramework, "unsupported_framework"},
                    std::pair{RunStatus::kInvalidGradNorm, "invalid_grad_norm"},
                    std::pair{RunStatus::kInvalidMeasurement, "invalid_measurement"}};
}

constexpr json_fields::Style JsonStyle(const WorkloadRun*) {
  return {.name_found_type = false,
          .non_finite_as_string = true,
          .quote_path = true,
          .name_scalar_arrays = true,
          .enum_expects_string = true};
}

template <typename V>
void Fields(V& v, MeasurementWindow& w) {
  v("first_step", w.first_step);
  v("last_step", w.last_step);
}

template <typename V>
void Fields(V& v, JobShape& s) {
  v("seq_len", s.seq_len);
  v("seq_len_source", s.seq_len_source);
  v("global_batch_size", s.global_batch_size);
  v("global_batch_size_source", s.global_batch_size_source);
  v("gpus", s.gpus);
  v("gpus_source", s.gpus_source);
  v.defaulted("peak_tflops", s.peak_tflops);
  v("peak_tflops_source", s.peak_tflops_source);
}

template <typename V>
void Fields(V& v, DerivedMetrics& d) {
  v.defaulted("step_time_s", d.step_time_s);
  v.defaulted("tokens_per_s", d.tokens_per_s);
  v.defaulted("tokens_per_s_per_gpu", d.tokens_per_s_per_gpu);
  v.defaulted("tflops_per_gpu", d.tflops_per_gpu);
  v.defaulted("mfu", d.mfu);
  v("missing", d.missing);
}

template <typename V>
void Fields(V& v, LlmbConfig& c) {
  v("path", c.path);
  v("job_id", c.job_id);
  v("framework", c.framework);
  v("fw_version", c.fw_version);
  v("model_name", c.model_name);
  v("model_size", c.model_size);
  v("dtype", c.dtype);
  v.defaulted("scale", c.scale);
  v("gpu_type", c.gpu_type);
  v.defaulted("gpus_per_node", c.gpus_per_node);
}

inline auto JsonNames(ServingMode) {
  return std::array{
      std::pair{ServingMode::kUnknown, "unknown"}, std::pair{ServingMode::kServing, "serving"},
      std::pair{ServingMode::kOffline, "offline"}, std::pair{ServingMode::kLatency, "latency"}};
}

template <typename V>
void Fields(V& v, ServingPoint& p) {
  v("tool", p.tool);
  v("backend", p.backend);
  v("model_id", p.model_id);
  v("mode", p.mode);
  v.defaulted("max_concurrency", p.max_concurrency);
  v("request_rate", p.request_rate);
  v.defaulted("num_prompts", p.num_prompts);
  v.defaulted("completed", p.completed);
  v.defaulted("failed", p.failed);
  v.defaulted("osl_mismatch", p.osl_mismatch);
  v.defaulted("warmup_requests", p.warmup_requests);
  v("warmup_in_window", p.warmup_in_window);
  v("cancelled", p.cancelled);
  v.defaulted("isl_asked", p.isl_asked);
  v.defaulted("osl_asked", p.osl_asked);
  v("isl_tokens", p.isl_tokens);
  v("osl_tokens", p.osl_tokens);
  v.defaulted("ignore_eos", p.ignore_eos);
  v.defaulted("duration_s", p.duration_s);
  v.defaulted("request_throughput", p.request_throughput);
  v.defaulted("output_throughput", p.output_throughput);
  v.defaulted("total_token_throughput", p.total_token_throughput);
  v.defaulted("output_tokens_per_s_per_user", p.output_tokens_per_s_per_user);
  v("ttft_ms", p.ttft_ms);
  v("tpot_ms", p.tpot_ms);
  v("itl_ms", p.itl_ms);
  v("e2el_ms", p.e2el_ms);
  v.defaulted("loadgen_valid", p.loadgen_valid);
  v.defaulted("gpus", p.gpus);
  v("gpu_denominator", p.gpu_denominator);
  v.defaulted("tp", p.tp);
  v.defaulted("pp", p.pp);
  v.defaulted("ep", p.ep);
  v("notes", p.notes);
  v("flaws", p.flaws);
  v.defaulted("output_tokens_per_s_per_gpu", p.output_tokens_per_s_per_gpu);
  v.defaulted("total_tokens_per_s_per_gpu", p.total_tokens_per_s_per_gpu);
}

template <typename V>
void Fields(V& v, InferenceResult& r) {
  v("format", r.format);
  v.defaulted("gpus", r.gpus);
  v("nemo_rl_metrics", r.nemo_rl_metrics);
  v("points", r.points);
}

template <typename V>
void Fields(V& v, NonFiniteGradNorm& g) {
  v("step", g.step);
  v("line", g.line);
  v("value", g.value);
}

template <typename V>
void Fields(V& v, IterationSample& s) {
  v("step", s.step);
  v("line", s.line);
  v.optional("step_time_s", s.step_time_s);
  v.optional("step_time_derived", s.step_time_derived);
  v.optional("tflops_per_gpu", s.tflops_per_gpu);
  v.optional("tflops_line", s.tflops_line);
  v.optional("tokens_per_s_per_gpu", s.tokens_per_s_per_gpu);
  v.optional("grad_norm", s.grad_norm);
  v.optional("loss", s.loss);
  v.optional("mfu_reported_pct", s.mfu_reported_pct);
}

template <typename V>
void Fields(V& v, WorkloadRun& r) {
  // Written as kWorkloadRunSchemaVersion; WorkloadRunFromJson refuses any other.
  int64_t schema_version = kWorkloadRunSchemaVersion;
  v("schema_version", schema_version);
  v("log_path", r.log_path);
  v("format", r.format);
  v("status", r.status);
  v("reason", r.reason);
  v("iteration_base", r.iteration_base);
  v("window", r.window);
  v("lines", r.lines);
  v("iterations_seen", r.iterations_seen);
  v.defaulted("last_step_seen", r.last_step_seen);
  v.defaulted("total_steps", r.total_steps);
  v("final_marker_seen", r.final_marker_seen);
  v("final_marker_line", r.final_marker_line);
  v("missing_window_steps", r.missing_window_steps);
  v("step_time_s", r.step_time_s);
  v("tflops_per_gpu", r.tflops_per_gpu);
  v("tflops_not_reported", r.tflops_not_reported);
  v("tokens_per_s_per_gpu", r.tokens_per_s_per_gpu);
  v("shape", r.shape);
  v("derived", r.derived);
  v("config", r.config);
  v("inference", r.inference);
  v("nonfinite_grad_norms", r.nonfinite_grad_norms);
  v("samples", r.samples);
  v("superseded_logs", r.superseded_logs);
  v("notes", r.notes);
}

YS_DOCUMENT_SCHEMA("workload_run", WorkloadRun, "yardstick workload run (ingest)",
                   "One training log read: its status, the measurement window, the step time, "
                   "TFLOPS and tokens/s over it, the job's shape and config, and each iteration "
                   "sample; a number that is not finite is written as \"nan\", \"inf\" or "
                   "\"-inf\".");

nlohmann::ordered_json ToJson(const SampleStats& s) {
  return json_fields::Write(s, JsonStyle(static_cast<const WorkloadRun*>(nullptr)));
}

nlohmann::ordered_json ToJson(const WorkloadRun& r) { return json_fields::Write(r); }

Result<WorkloadRun> WorkloadRunFromJson(const nlohmann::json& j) {
  if (!j.is_object()) return Status::Invalid("workload run: expected a JSON object");
  // A version this build does not know is refused before its fields are read.
  if (auto v = j.find("schema_version");
      v != j.end() && v->is_number_integer() && *v != kWorkloadRunSchemaVersion) {
    return Status::Invalid(
        fmt::format("workload run: schema_version {} is not supported; expected {}", v->dump(),
                    kWorkloadRunSchemaVersion));
  }
  Result<WorkloadRun> r = json_fields::Parse<WorkloadRun>(j, "");
  if (!r.ok()) return Status::Invalid("workload run: " + r.status().message());
  return r;
}

}  // namespace ys::validate
