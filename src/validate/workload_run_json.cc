// The JSON form of WorkloadRun (workload_run.h): written by ToJson, read back by
// WorkloadRunFromJson, which names the first field that is missing or of the wrong type.
#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "validate/workload_run.h"

namespace ys::validate {

using ojson = nlohmann::ordered_json;
using json = nlohmann::json;

namespace {

ojson Number(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}
template <typename T>
ojson Opt(const std::optional<T>& v) {
  if (!v) return nullptr;
  if constexpr (std::is_floating_point_v<T>) {
    return Number(*v);
  } else {
    return *v;
  }
}

ojson ToJson(const IterationSample& s) {
  ojson j;
  j["step"] = s.step;
  j["line"] = s.line;
  if (s.step_time_s) j["step_time_s"] = Number(*s.step_time_s);
  if (s.step_time_derived) j["step_time_derived"] = true;
  if (s.tflops_per_gpu) j["tflops_per_gpu"] = Number(*s.tflops_per_gpu);
  if (s.tflops_line) j["tflops_line"] = s.tflops_line;
  if (s.tokens_per_s_per_gpu) j["tokens_per_s_per_gpu"] = Number(*s.tokens_per_s_per_gpu);
  if (s.grad_norm) j["grad_norm"] = Number(*s.grad_norm);
  if (s.loss) j["loss"] = Number(*s.loss);
  if (s.mfu_reported_pct) j["mfu_reported_pct"] = Number(*s.mfu_reported_pct);
  return j;
}

ojson ToJson(const ServingPoint& p) {
  ojson j;
  j["backend"] = p.backend;
  j["model_id"] = p.model_id;
  j["max_concurrency"] = Opt(p.max_concurrency);
  j["request_rate"] = p.request_rate;
  j["num_prompts"] = Opt(p.num_prompts);
  j["completed"] = Opt(p.completed);
  j["duration_s"] = Opt(p.duration_s);
  j["request_throughput"] = Opt(p.request_throughput);
  j["output_throughput"] = Opt(p.output_throughput);
  j["total_token_throughput"] = Opt(p.total_token_throughput);
  j["mean_ttft_ms"] = Opt(p.mean_ttft_ms);
  j["median_ttft_ms"] = Opt(p.median_ttft_ms);
  j["p99_ttft_ms"] = Opt(p.p99_ttft_ms);
  j["mean_tpot_ms"] = Opt(p.mean_tpot_ms);
  j["median_tpot_ms"] = Opt(p.median_tpot_ms);
  j["p99_tpot_ms"] = Opt(p.p99_tpot_ms);
  j["mean_itl_ms"] = Opt(p.mean_itl_ms);
  j["median_itl_ms"] = Opt(p.median_itl_ms);
  j["p99_itl_ms"] = Opt(p.p99_itl_ms);
  j["output_tokens_per_s_per_gpu"] = Opt(p.output_tokens_per_s_per_gpu);
  j["total_tokens_per_s_per_gpu"] = Opt(p.total_tokens_per_s_per_gpu);
  return j;
}

// Reads fields, remembering the first error with the path of the field that caused it.
class Reader {
 public:
  const Status& status() const { return status_; }
  bool ok() const { return status_.ok(); }

  const json* Field(const json& obj, const std::string& path, const char* key, bool required) {
    if (!obj.is_object()) return Fail(path, "an object"), nullptr;
    auto it = obj.find(key);
    if (it == obj.end()) {
      if (required) Fail(Join(path, key), "present");
      return nullptr;
    }
    return &*it;
  }
  double Double(const json& obj, const std::string& path, const char* key) {
    std::optional<double> v = OptDouble(obj, path, key, true);
    if (!v) Fail(Join(path, key), "a number");
    return v.value_or(0);
  }
  std::optional<double> OptDouble(const json& obj, const std::string& path, const char* key,
                                  bool required = false) {
    const json* v = Field(obj, path, key, required);
    if (!v || v->is_null()) return std::nullopt;
    if (v->is_number()) return v->get<double>();
    if (v->is_string()) {
      const std::string& s = v->get_ref<const std::string&>();
      if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
      if (s == "inf") return std::numeric_limits<double>::infinity();
      if (s == "-inf") return -std::numeric_limits<double>::infinity();
    }
    Fail(Join(path, key), "a number (or \"nan\", \"inf\", \"-inf\")");
    return std::nullopt;
  }
  int64_t Int(const json& obj, const std::string& path, const char* key) {
    std::optional<int64_t> v = OptInt(obj, path, key, true);
    if (!v) Fail(Join(path, key), "an integer");
    return v.value_or(0);
  }
  std::optional<int64_t> OptInt(const json& obj, const std::string& path, const char* key,
                                bool required = false) {
    const json* v = Field(obj, path, key, required);
    if (!v || v->is_null()) return std::nullopt;
    if (v->is_number_integer()) return v->get<int64_t>();
    Fail(Join(path, key), "an integer");
    return std::nullopt;
  }
  std::string String(const json& obj, const std::string& path, const char* key,
                     bool required = true) {
    const json* v = Field(obj, path, key, required);
    if (!v) return {};
    if (v->is_string()) return v->get<std::string>();
    Fail(Join(path, key), "a string");
    return {};
  }
  bool Bool(const json& obj, const std::string& path, const char* key, bool required = true) {
    const json* v = Field(obj, path, key, required);
    if (!v) return false;
    if (v->is_boolean()) return v->get<bool>();
    Fail(Join(path, key), "true or false");
    return false;
  }
  std::vector<std::string> Strings(const json& obj, const std::string& path, const char* key) {
    std::vector<std::string> out;
    const json* v = Field(obj, path, key, true);
    if (!v) return out;
    if (!v->is_array()) return Fail(Join(path, key), "an array of strings"), out;
    for (const json& e : *v) {
      if (!e.is_string()) return Fail(Join(path, key), "an array of strings"), out;
      out.push_back(e.get<std::string>());
    }
    return out;
  }
  std::optional<SampleStats> Stats(const json& obj, const std::string& path, const char* key) {
    const json* v = Field(obj, path, key, true);
    if (!v || v->is_null()) return std::nullopt;
    std::string p = Join(path, key);
    SampleStats s;
    s.n = Int(*v, p, "n");
    s.min = Double(*v, p, "min");
    s.median = Double(*v, p, "median");
    s.max = Double(*v, p, "max");
    s.mean = Double(*v, p, "mean");
    s.stdev = Double(*v, p, "stdev");
    return s;
  }
  void Fail(const std::string& path, const std::string& expected) {
    if (status_.ok()) {
      status_ = Status::Invalid(fmt::format("workload run: '{}': expected {}", path, expected));
    }
  }
  static std::string Join(const std::string& path, const char* key) {
    return path.empty() ? key : path + "." + key;
  }

 private:
  Status status_;
};

}  // namespace

ojson ToJson(const SampleStats& s) {
  return {{"n", s.n},
          {"min", Number(s.min)},
          {"median", Number(s.median)},
          {"max", Number(s.max)},
          {"mean", Number(s.mean)},
          {"stdev", Number(s.stdev)}};
}

ojson ToJson(const WorkloadRun& r) {
  auto stats = [](const std::optional<SampleStats>& s) -> ojson {
    return s ? ToJson(*s) : ojson(nullptr);
  };
  ojson j;
  j["schema_version"] = kWorkloadRunSchemaVersion;
  j["log_path"] = r.log_path;
  j["format"] = LogFormatName(r.format);
  j["status"] = RunStatusName(r.status);
  j["reason"] = r.reason;
  j["iteration_base"] = r.iteration_base;
  j["window"] = {{"first_step", r.window.first_step}, {"last_step", r.window.last_step}};
  j["lines"] = r.lines;
  j["iterations_seen"] = r.iterations_seen;
  j["last_step_seen"] = Opt(r.last_step_seen);
  j["total_steps"] = Opt(r.total_steps);
  j["final_marker_seen"] = r.final_marker_seen;
  j["final_marker_line"] = r.final_marker_line;
  j["missing_window_steps"] = r.missing_window_steps;
  j["step_time_s"] = stats(r.step_time_s);
  j["tflops_per_gpu"] = stats(r.tflops_per_gpu);
  j["tflops_not_reported"] = r.tflops_not_reported;
  j["tokens_per_s_per_gpu"] = stats(r.tokens_per_s_per_gpu);
  j["shape"] = {{"seq_len", Opt(r.shape.seq_len)},
                {"seq_len_source", r.shape.seq_len_source},
                {"global_batch_size", Opt(r.shape.global_batch_size)},
                {"global_batch_size_source", r.shape.global_batch_size_source},
                {"gpus", Opt(r.shape.gpus)},
                {"gpus_source", r.shape.gpus_source},
                {"peak_tflops", Opt(r.shape.peak_tflops)},
                {"peak_tflops_source", r.shape.peak_tflops_source}};
  j["derived"] = {{"step_time_s", Opt(r.derived.step_time_s)},
                  {"tokens_per_s", Opt(r.derived.tokens_per_s)},
                  {"tokens_per_s_per_gpu", Opt(r.derived.tokens_per_s_per_gpu)},
                  {"tflops_per_gpu", Opt(r.derived.tflops_per_gpu)},
                  {"mfu", Opt(r.derived.mfu)},
                  {"missing", r.derived.missing}};
  if (r.config) {
    const LlmbConfig& c = *r.config;
    j["config"] = {{"path", c.path},
                   {"job_id", c.job_id},
                   {"framework", c.framework},
                   {"fw_version", c.fw_version},
                   {"model_name", c.model_name},
                   {"model_size", c.model_size},
                   {"dtype", c.dtype},
                   {"scale", Opt(c.scale)},
                   {"gpu_type", c.gpu_type},
                   {"gpus_per_node", Opt(c.gpus_per_node)}};
  } else {
    j["config"] = nullptr;
  }
  if (r.inference) {
    ojson points = ojson::array();
    for (const ServingPoint& p : r.inference->points) points.push_back(ToJson(p));
    j["inference"] = {{"gpus", Opt(r.inference->gpus)},
                      {"nemo_rl_metrics", r.inference->nemo_rl_metrics},
                      {"points", points}};
  } else {
    j["inference"] = nullptr;
  }
  ojson bad = ojson::array();
  for (const NonFiniteGradNorm& g : r.nonfinite_grad_norms) {
    bad.push_back({{"step", g.step}, {"line", g.line}, {"value", Number(g.value)}});
  }
  j["nonfinite_grad_norms"] = bad;
  ojson samples = ojson::array();
  for (const IterationSample& s : r.samples) samples.push_back(ToJson(s));
  j["samples"] = samples;
  j["superseded_logs"] = r.superseded_logs;
  j["notes"] = r.notes;
  return j;
}

Result<WorkloadRun> WorkloadRunFromJson(const json& j) {
  Reader rd;
  WorkloadRun r;
  if (!j.is_object()) return Status::Invalid("workload run: expected a JSON object");
  int64_t version = rd.Int(j, "", "schema_version");
  if (rd.ok() && version != kWorkloadRunSchemaVersion) {
    return Status::Invalid(
        fmt::format("workload run: schema_version {} is not supported; "
                    "expected {}",
                    version, kWorkloadRunSchemaVersion));
  }
  r.log_path = rd.String(j, "", "log_path");
  std::string format = rd.String(j, "", "format");
  if (rd.ok()) {
    std::optional<LogFormat> f = ParseLogFormat(format);
    if (!f) rd.Fail("format", "auto, nemo2, megatron, torchtitan or inference-json");
    r.format = f.value_or(LogFormat::kAuto);
  }
  std::string status = rd.String(j, "", "status");
  if (rd.ok()) {
    std::optional<RunStatus> s = ParseRunStatus(status);
    if (!s) {
      rd.Fail("status",
              "success, incomplete, no_data, no_log, unsupported_framework or "
              "invalid_grad_norm");
    }
    r.status = s.value_or(RunStatus::kNoData);
  }
  r.reason = rd.String(j, "", "reason");
  r.iteration_base = static_cast<int>(rd.Int(j, "", "iteration_base"));
  if (const json* w = rd.Field(j, "", "window", true)) {
    r.window.first_step = rd.Int(*w, "window", "first_step");
    r.window.last_step = rd.Int(*w, "window", "last_step");
  }
  r.lines = rd.Int(j, "", "lines");
  r.iterations_seen = rd.Int(j, "", "iterations_seen");
  r.last_step_seen = rd.OptInt(j, "", "last_step_seen");
  r.total_steps = rd.OptInt(j, "", "total_steps");
  r.final_marker_seen = rd.Bool(j, "", "final_marker_seen");
  r.final_marker_line = rd.Int(j, "", "final_marker_line");
  if (const json* m = rd.Field(j, "", "missing_window_steps", true)) {
    if (!m->is_array()) rd.Fail("missing_window_steps", "an array of integers");
    for (const json& e : m->is_array() ? *m : json::array()) {
      if (!e.is_number_integer()) {
        rd.Fail("missing_window_steps", "an array of integers");
        break;
      }
      r.missing_window_steps.push_back(e.get<int64_t>());
    }
  }
  r.step_time_s = rd.Stats(j, "", "step_time_s");
  r.tflops_per_gpu = rd.Stats(j, "", "tflops_per_gpu");
  r.tflops_not_reported = rd.Bool(j, "", "tflops_not_reported");
  r.tokens_per_s_per_gpu = rd.Stats(j, "", "tokens_per_s_per_gpu");
  if (const json* s = rd.Field(j, "", "shape", true)) {
    r.shape.seq_len = rd.OptInt(*s, "shape", "seq_len", true);
    r.shape.seq_len_source = rd.String(*s, "shape", "seq_len_source");
    r.shape.global_batch_size = rd.OptInt(*s, "shape", "global_batch_size", true);
    r.shape.global_batch_size_source = rd.String(*s, "shape", "global_batch_size_source");
    r.shape.gpus = rd.OptInt(*s, "shape", "gpus", true);
    r.shape.gpus_source = rd.String(*s, "shape", "gpus_source");
    r.shape.peak_tflops = rd.OptDouble(*s, "shape", "peak_tflops");
    r.shape.peak_tflops_source = rd.String(*s, "shape", "peak_tflops_source");
  }
  if (const json* d = rd.Field(j, "", "derived", true)) {
    r.derived.step_time_s = rd.OptDouble(*d, "derived", "step_time_s");
    r.derived.tokens_per_s = rd.OptDouble(*d, "derived", "tokens_per_s");
    r.derived.tokens_per_s_per_gpu = rd.OptDouble(*d, "derived", "tokens_per_s_per_gpu");
    r.derived.tflops_per_gpu = rd.OptDouble(*d, "derived", "tflops_per_gpu");
    r.derived.mfu = rd.OptDouble(*d, "derived", "mfu");
    r.derived.missing = rd.Strings(*d, "derived", "missing");
  }
  if (const json* c = rd.Field(j, "", "config", true); c && !c->is_null()) {
    LlmbConfig cfg;
    cfg.path = rd.String(*c, "config", "path");
    cfg.job_id = rd.String(*c, "config", "job_id");
    cfg.framework = rd.String(*c, "config", "framework");
    cfg.fw_version = rd.String(*c, "config", "fw_version");
    cfg.model_name = rd.String(*c, "config", "model_name");
    cfg.model_size = rd.String(*c, "config", "model_size");
    cfg.dtype = rd.String(*c, "config", "dtype");
    cfg.scale = rd.OptInt(*c, "config", "scale");
    cfg.gpu_type = rd.String(*c, "config", "gpu_type");
    cfg.gpus_per_node = rd.OptInt(*c, "config", "gpus_per_node");
    r.config = cfg;
  }
  if (const json* inf = rd.Field(j, "", "inference", true); inf && !inf->is_null()) {
    InferenceResult ir;
    ir.gpus = rd.OptInt(*inf, "inference", "gpus");
    ir.nemo_rl_metrics = rd.Bool(*inf, "inference", "nemo_rl_metrics");
    const json* pts = rd.Field(*inf, "inference", "points", true);
    if (pts && !pts->is_array()) rd.Fail("inference.points", "an array");
    for (size_t i = 0; pts && pts->is_array() && i < pts->size(); ++i) {
      const json& e = (*pts)[i];
      std::string p = fmt::format("inference.points[{}]", i);
      ServingPoint sp;
      sp.backend = rd.String(e, p, "backend");
      sp.model_id = rd.String(e, p, "model_id");
      sp.max_concurrency = rd.OptInt(e, p, "max_concurrency");
      sp.request_rate = rd.String(e, p, "request_rate");
      sp.num_prompts = rd.OptInt(e, p, "num_prompts");
      sp.completed = rd.OptInt(e, p, "completed");
      sp.duration_s = rd.OptDouble(e, p, "duration_s");
      sp.request_throughput = rd.OptDouble(e, p, "request_throughput");
      sp.output_throughput = rd.OptDouble(e, p, "output_throughput");
      sp.total_token_throughput = rd.OptDouble(e, p, "total_token_throughput");
      sp.mean_ttft_ms = rd.OptDouble(e, p, "mean_ttft_ms");
      sp.median_ttft_ms = rd.OptDouble(e, p, "median_ttft_ms");
      sp.p99_ttft_ms = rd.OptDouble(e, p, "p99_ttft_ms");
      sp.mean_tpot_ms = rd.OptDouble(e, p, "mean_tpot_ms");
      sp.median_tpot_ms = rd.OptDouble(e, p, "median_tpot_ms");
      sp.p99_tpot_ms = rd.OptDouble(e, p, "p99_tpot_ms");
      sp.mean_itl_ms = rd.OptDouble(e, p, "mean_itl_ms");
      sp.median_itl_ms = rd.OptDouble(e, p, "median_itl_ms");
      sp.p99_itl_ms = rd.OptDouble(e, p, "p99_itl_ms");
      sp.output_tokens_per_s_per_gpu = rd.OptDouble(e, p, "output_tokens_per_s_per_gpu");
      sp.total_tokens_per_s_per_gpu = rd.OptDouble(e, p, "total_tokens_per_s_per_gpu");
      ir.points.push_back(std::move(sp));
    }
    r.inference = std::move(ir);
  }
  if (const json* bad = rd.Field(j, "", "nonfinite_grad_norms", true)) {
    if (!bad->is_array()) rd.Fail("nonfinite_grad_norms", "an array");
    for (size_t i = 0; bad->is_array() && i < bad->size(); ++i) {
      std::string p = fmt::format("nonfinite_grad_norms[{}]", i);
      const json& e = (*bad)[i];
      r.nonfinite_grad_norms.push_back(
          {rd.Int(e, p, "step"), rd.Int(e, p, "line"), rd.Double(e, p, "value")});
    }
  }
  if (const json* samples = rd.Field(j, "", "samples", true)) {
    if (!samples->is_array()) rd.Fail("samples", "an array");
    for (size_t i = 0; samples->is_array() && i < samples->size(); ++i) {
      std::string p = fmt::format("samples[{}]", i);
      const json& e = (*samples)[i];
      IterationSample s;
      s.step = rd.Int(e, p, "step");
      s.line = rd.Int(e, p, "line");
      s.step_time_s = rd.OptDouble(e, p, "step_time_s");
      if (e.is_object() && e.contains("step_time_derived")) {
        s.step_time_derived = rd.Bool(e, p, "step_time_derived");
      }
      s.tflops_per_gpu = rd.OptDouble(e, p, "tflops_per_gpu");
      s.tflops_line = rd.OptInt(e, p, "tflops_line").value_or(0);
      s.tokens_per_s_per_gpu = rd.OptDouble(e, p, "tokens_per_s_per_gpu");
      s.grad_norm = rd.OptDouble(e, p, "grad_norm");
      s.loss = rd.OptDouble(e, p, "loss");
      s.mfu_reported_pct = rd.OptDouble(e, p, "mfu_reported_pct");
      r.samples.push_back(std::move(s));
    }
  }
  r.superseded_logs = rd.Strings(j, "", "superseded_logs");
  r.notes = rd.Strings(j, "", "notes");
  if (!rd.ok()) return rd.status();
  return r;
}

}  // namespace ys::validate
