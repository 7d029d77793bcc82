#include "workloads/serving/serving_unit.h"

#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>

#include "bench/available_memory.h"
#include "bench/gemm/internal/openblas_util.h"
#include "core/text.h"
#include "workloads/proxy_plan.h"
#include "workloads/serving/internal/cpu_serving_engine.h"
#include "workloads/serving/internal/serving_prediction.h"
#include "workloads/serving_calibration.h"

namespace ys::workloads {
namespace {

using bench::BenchContext;

// The model the unit serves: the scaled spec (2 layers) and the engine's view of it.
struct ServingModel {
  std::string path;
  predict::ModelSpec scaled;
  int scale = 1;
  std::string display;  // "Llama 3.1 8B/16"
  ServingModelShape shape;
};

Result<ServingModel> LoadServingModel(const BenchContext& ctx, std::string_view model) {
  ServingModel m;
  m.path = ctx.options().data_dir + "/models/" + std::string(model) + ".toml";
  auto spec = predict::LoadModelSpec(m.path);
  if (!spec.ok()) return spec.status();
  auto recipe = CpuRecipe(*spec, nullptr);
  if (!recipe.ok()) return recipe.status();
  if (!spec->shape.attention_heads)
    return Status::Unsupported(m.path + ": [shape] attention_heads is not given");
  m.scale = CpuScaleFactor(*spec, *recipe);
  m.scaled = CpuScaledSpec(*spec, m.scale);
  m.scaled.shape.layers = 2;
  if (m.scaled.shape.vocab_size)
    m.scaled.shape.vocab_size = std::max(1, *m.scaled.shape.vocab_size / m.scale);
  m.display = fmt::format("{}/{}", spec->display_name, m.scale);
  auto shape = ServingShapeOf(m.scaled);
  if (!shape.ok()) return shape.status();
  m.shape = std::move(*shape);
  return m;
}

ServingStream StreamOf(const BenchContext& ctx) {
  ServingStream s{.concurrency = ctx.param<int>("concurrency"),
                  .isl = ctx.param<int>("isl"),
                  .osl = ctx.param<int>("osl"),
                  .measured_requests = ctx.param<int>("requests"),
                  .time_limit_s = ctx.quick() ? 10.0 : 60.0};
  return s;
}

// Half of MemAvailable (8 GiB when unknown), the figure the engine's buffers are checked against.
double ServingMemoryBudget(const BenchContext& ctx) {
  auto avail = bench::AvailableMemoryBytes(ctx.host());
  return avail.ok() ? static_cast<double>(*avail) / 2 : 8.0 * (1ull << 30);
}

// /proc/cpuinfo's first model name, or "".
std::string ServingCpuModel(const BenchContext& ctx) {
  auto text = ctx.host().ReadFile("/proc/cpuinfo");
  if (!text.ok()) return "";
  for (std::string_view line : Split(*text, '\n')) {
    if (!line.starts_with("model name")) continue;
    auto colon = line.find(':');
    if (colon != std::string_view::npos) return std::string(Trim(line.substr(colon + 1)));
  }
  return "";
}

// One figure compared: measured (the mean over counted requests, or the span's rate) against
// predicted, with the stated error where the calibration file has one.
struct ServingComparison {
  std::string name;  // "TTFT"
  double measured = 0, predicted = 0;
  std::optional<double> stated;  // the p90 error
  double Ratio() const { return predicted > 0 ? measured / predicted : 0; }
  std::string Verdict() const {
    auto err = ServingPredictionError(predicted, measured);
    if (!stated) return "no stated error for this CPU";
    if (!err) return "nothing measured";
    return fmt::format("{} ±{:.0f}%", *err <= *stated ? "within" : "outside", *stated * 100);
  }
};

// What the run's measurements, table and summary are drawn from.
struct ServingRunFigures {
  const std::string& id;
  const ServingModel& model;
  const ServingStream& stream;
  const ServingTrace& trace;
  const ServingStats& stats;
  const predict::ServePrediction& prediction;
  const CpuServeRates& rates;
  std::optional<ServeCpuCalibration> calibration;
  int threads = 0;
};

std::vector<ServingComparison> CompareServing(const ServingRunFigures& run) {
  const auto* cal = run.calibration ? &*run.calibration : nullptr;
  auto band = [&](const ServingErrorBand ServeCpuCalibration::*b) -> std::optional<double> {
    if (cal == nullptr) return std::nullopt;
    return (cal->*b).p90;
  };
  return {{"TTFT", run.stats.ttft_mean_s, run.prediction.ttft_s, band(&ServeCpuCalibration::ttft)},
          {"TPOT", run.stats.tpot_mean_s, run.prediction.tpot_s, band(&ServeCpuCalibration::tpot)},
          {"output tokens/s", run.stats.output_tokens_per_s, run.prediction.output_tokens_per_s,
           band(&ServeCpuCalibration::output_tokens_per_s)}};
}

using ServingParamMap = std::map<std::string, std::string>;

ServingParamMap CommonServingParams(const ServingRunFigures& run) {
  return {{"backend", "cpu"},
          {"device", "cpu"},
          {"dtype", kCpuServeDtype},
          {"scale", fmt::format("1/{}", run.model.scale)},
          {"layers", std::to_string(run.model.shape.layers)},
          {"concurrency", std::to_string(run.stream.concurrency)},
          {"isl", std::to_string(run.stream.isl)},
          {"osl", std::to_string(run.stream.osl)}};
}

ServingParamMap WithServingParams(const ServingParamMap& common, ServingParamMap extra) {
  extra.insert(common.begin(), common.end());
  return extra;
}

std::string ServingTerms(const std::vector<predict::ServeTerm>& terms) {
  std::vector<std::string> out;
  for (const predict::ServeTerm& t : terms)
    out.push_back(fmt::format("{} {:.4g} ms", t.name, t.seconds * 1e3));
  return Join(out, "; ");
}

void AddMeasuredServing(BenchmarkResult& r, const ServingRunFigures& run,
                        const ServingParamMap& common) {
  const ServingStats& s = run.stats;
  const std::string& id = run.id;
  r.measurements.push_back(bench::MakeMeasurement(
      id + ".ttft", "s", Better::kLower, s.ttft_s,
      WithServingParams(common, {{"mean", fmt::format("{:.6g}", s.ttft_mean_s)},
                                 {"p99", fmt::format("{:.6g}", s.ttft_p99_s)},
                                 {"definition", "first token - arrival, per counted request"}})));
  r.measurements.push_back(bench::MakeMeasurement(
      id + ".tpot", "s", Better::kLower, s.tpot_s,
      WithServingParams(common, {{"mean", fmt::format("{:.6g}", s.tpot_mean_s)},
                                 {"definition", "(latency - TTFT) / (OSL - 1), per request"}})));
  r.measurements.push_back(bench::MakeMeasurement(
      id + ".output_tokens_per_s", "tokens/s", Better::kHigher, {s.output_tokens_per_s},
      WithServingParams(common, {{"span_s", fmt::format("{:.6g}", s.span_s)},
                                 {"span_tokens", std::to_string(s.span_tokens)}})));
  r.measurements.push_back(bench::MakeMeasurement(
      id + ".tokens_per_s_per_user", "tokens/s", Better::kHigher, {s.tokens_per_s_per_user},
      WithServingParams(common, {{"definition", "1 / mean TPOT"}})));
  r.measurements.push_back(bench::MakeMeasurement(
      id + ".requests_completed", "requests", Better::kHigher, {double(s.completed)},
      WithServingParams(common, {{"asked", std::to_string(run.stream.measured_requests)}})));
}

void AddPredictedServing(BenchmarkResult& r, const ServingRunFigures& run,
                         const ServingParamMap& common) {
  const char* names[] = {"predicted_ttft", "predicted_tpot", "predicted_output_tokens_per_s"};
  const char* units[] = {"s", "s", "tokens/s"};
  const Better better[] = {Better::kLower, Better::kLower, Better::kHigher};
  const std::string terms[] = {ServingTerms(run.prediction.prefill),
                               ServingTerms(run.prediction.decode), "in flight / TPOT"};
  const std::vector<ServingComparison> cmp = CompareServing(run);
  for (size_t i = 0; i < cmp.size(); ++i) {
    ServingParamMap p = {{"measured_over_predicted", fmt::format("{:.4f}", cmp[i].Ratio())},
                         {"verdict", cmp[i].Verdict()},
                         {"terms", terms[i]}};
    if (cmp[i].stated) p["stated_error"] = fmt::format("{:.4f}", *cmp[i].stated);
    r.measurements.push_back(bench::MakeMeasurement(run.id + "." + names[i], units[i], better[i],
                                                    {cmp[i].predicted},
                                                    WithServingParams(common, std::move(p))));
  }
}

ResultTable ServingTable(const ServingRunFigures& run) {
  ResultTable t{.title = fmt::format("{} serving proxy: concurrency {}, ISL {}, OSL {}, {} "
                                     "counted requests (measured = mean per request)",
                                     run.model.display, run.stream.concurrency, run.stream.isl,
                                     run.stream.osl, run.stats.completed),
                .columns = {"figure", "measured", "predicted", "meas/pred", "verdict"}};
  for (const ServingComparison& c : CompareServing(run)) {
    const bool ms = c.name != "output tokens/s";
    const double k = ms ? 1e3 : 1;
    t.rows.push_back({c.name + (ms ? " ms" : ""), fmt::format("{:.4g}", c.measured * k),
                      fmt::format("{:.4g}", c.predicted * k), fmt::format("{:.3f}", c.Ratio()),
                      c.Verdict()});
  }
  t.footer.push_back("# prefill terms: " + ServingTerms(run.prediction.prefill));
  t.footer.push_back("# decode step terms: " + ServingTerms(run.prediction.decode));
  t.footer.push_back(fmt::format(
      "# TTFT p50 {:.4g} ms, p99 {:.4g} ms; TPOT p50 {:.4g} ms; {} "
      "engine steps, {} prefills, at most {} in flight",
      run.stats.ttft_p50_s * 1e3, run.stats.ttft_p99_s * 1e3, run.stats.tpot_p50_s * 1e3,
      run.trace.steps, run.trace.prefills, run.trace.max_in_flight));
  return t;
}

void NoteServing(BenchmarkResult& r, const ServingRunFigures& run, const std::string& cpu) {
  bench::OpenBlasInfo blas = bench::QueryOpenBlas();
  const ServingModelShape& s = run.model.shape;
  r.Note("model", fmt::format("{}: scaled 1/{} as the training proxy (hidden {}, heads {}, kv "
                              "heads {}, head dim {}, FFN {}, vocabulary {}), {} layers",
                              run.model.path, run.model.scale, s.hidden, s.heads, s.kv_heads,
                              s.head_dim, s.ffn, s.vocab, s.layers));
  r.Note("backend", fmt::format("cpu: OpenBLAS sgemm fp32 ({} kernel, {} threads), one process",
                                blas.corename, run.threads));
  r.Note("schedule",
         "closed loop at a fixed concurrency; prefill first (a whole prompt per "
         "admitted request, then one decode step of the running sequences); "
         "warm-up requests with staggered lengths, not counted");
  r.Note("rates", run.rates.method);
  for (size_t i = 0; i < run.prediction.notes.size(); ++i)
    r.Note(fmt::format("prediction.{}", i + 1), run.prediction.notes[i]);
  if (run.calibration) {
    const ServeCpuCalibration& c = *run.calibration;
    r.Note("stated_error",
           fmt::format("{} ({}): p90 of |predicted/measured - 1| over {} runs on {} ({}), {}{}",
                       c.path, c.date, c.runs, c.machine, c.cpu_model, c.method,
                       c.cpu_model == cpu ? "" : "; this CPU is another: " + cpu));
  }
  if (run.trace.time_limited)
    r.Note("time_limit", fmt::format("the run stopped admitting requests after {:.0f} s",
                                     run.stream.time_limit_s));
}

std::string ServingSummary(const ServingRunFigures& run) {
  const auto cmp = CompareServing(run);
  return fmt::format(
      "{} @ concurrency {}: TTFT {:.3g} ms (predicted {:.3g}, {}), TPOT {:.3g} ms (predicted "
      "{:.3g}, {}), {:.0f} output tokens/s (predicted {:.0f}, {}); {} requests",
      run.model.display, run.stream.concurrency, cmp[0].measured * 1e3, cmp[0].predicted * 1e3,
      cmp[0].Verdict(), cmp[1].measured * 1e3, cmp[1].predicted * 1e3, cmp[1].Verdict(),
      cmp[2].measured, cmp[2].predicted, cmp[2].Verdict(), run.stats.completed);
}

std::optional<BenchmarkResult> ServingSkipReason(const BenchContext& ctx, std::string_view model) {
  if (ctx.quick() && model != kQuickServingModel)
    return BenchmarkResult::Skip(fmt::format(
        "the quick profile runs serving.{} only; `yardstick bench --filter 'serving.*'` runs "
        "this model",
        kQuickServingModel));
  if (!ctx.Allows(bench::Backend::kCpu))
    return BenchmarkResult::Skip("--backend gpu: the serving proxy runs on the CPU only");
  return std::nullopt;
}

}  // namespace

namespace {

// The stated error for this CPU: nullopt when the file is absent (then nothing is judged);
// an error for a file that is there but malformed.
Result<std::optional<ServeCpuCalibration>> LoadServingCalibration(const BenchContext& ctx) {
  const std::string path = ServeCpuCalibrationPath(ctx.options().data_dir);
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return std::optional<ServeCpuCalibration>();
  auto cal = LoadServeCpuCalibration(path);
  if (!cal.ok()) return cal.status();
  return std::optional<ServeCpuCalibration>(std::move(*cal));
}

double ServingClock() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

BenchmarkResult RunServingProxy(const BenchContext& ctx, std::string_view model) {
  const std::string id = "serving." + std::string(model);
  if (auto skip = ServingSkipReason(ctx, model)) return std::move(*skip);
  auto m = LoadServingModel(ctx, model);
  if (!m.ok()) {
    if (m.status().code() == StatusCode::kUnsupported)
      return BenchmarkResult::Skip(m.status().message());
    return BenchmarkResult::Error(m.status());
  }
  const ServingStream stream = StreamOf(ctx);
  if (Status s = CheckServingStream(stream); !s.ok()) return BenchmarkResult::Error(s);
  auto calibration = LoadServingCalibration(ctx);
  if (!calibration.ok()) return BenchmarkResult::Error(calibration.status());
  const double budget = ServingMemoryBudget(ctx);
  const double need = ServingEngineBytes(m->shape, stream.concurrency, stream.isl + stream.osl,
                                         std::max(stream.isl, stream.concurrency));
  if (need > budget)
    return BenchmarkResult::Error(Status::Invalid(fmt::format(
        "{}: the serving proxy needs {:.3g} GB at concurrency {}, ISL {}, OSL {}; half of "
        "MemAvailable is {:.3g} GB",
        m->path, need / 1e9, stream.concurrency, stream.isl, stream.osl, budget / 1e9)));

  // One BLAS thread: the scaled GEMMs (hidden 256, a decode batch of a few rows) are too small to
  // share across cores; shared, each call waits for its slowest thread, and a busy core makes
  // the step time swing by several times (measured on a 2-CPU VM).
  const int threads = 1;
  bench::ScopedOpenBlasThreads blas_threads(threads);
  auto engine = CpuServingEngine::Open(m->shape, stream.concurrency, stream.isl, stream.osl);
  if (!engine.ok()) return BenchmarkResult::Error(engine.status());
  ctx.Progress("calibration");
  const int iters = ctx.quick() ? 5 : 9;
  auto before = MeasureCpuServeRates(**engine, m->scaled, stream, budget, iters);
  if (!before.ok()) return BenchmarkResult::Error(before.status());
  std::function<double()> clock = ServingClock;
  auto trace = RunContinuousBatching(stream, **engine, clock,
                                     [&](const std::string& what) { ctx.Progress(what); });
  if (!trace.ok()) return BenchmarkResult::Error(trace.status());
  ctx.Progress("calibration after the stream");
  auto after = MeasureCpuServeRates(**engine, m->scaled, stream, budget, iters);
  if (!after.ok()) return BenchmarkResult::Error(after.status());
  const CpuServeRates rates = BracketCpuServeRates(*before, *after);
  auto prediction = PredictCpuServing(m->scaled, stream, rates, budget);
  if (!prediction.ok()) return BenchmarkResult::Error(prediction.status());
  auto stats = SummarizeServing(*trace);
  if (!stats.ok()) return BenchmarkResult::Error(stats.status());

  const ServingRunFigures run{.id = id,
                              .model = *m,
                              .stream = stream,
                              .trace = *trace,
                              .stats = *stats,
                              .prediction = *prediction,
                              .rates = rates,
                              .calibration = *calibration,
                              .threads = threads};
  BenchmarkResult r;
  const ServingParamMap common = CommonServingParams(run);
  AddMeasuredServing(r, run, common);
  AddPredictedServing(r, run, common);
  NoteServing(r, run, ServingCpuModel(ctx));
  r.tables.push_back(ServingTable(run));
  r.summary = ServingSummary(run);
  return r;
}

std::vector<ParamSpec> ServingParams() {
  return {{.name = "concurrency",
           .type = ParamType::kInt,
           .default_value = 8,
           .lo = 1,
           .hi = 256,
           .meaning = "requests in flight (closed loop)"},
          {.name = "isl",
           .type = ParamType::kInt,
           .default_value = 128,
           .lo = 1,
           .hi = 8192,
           .meaning = "prompt tokens per request"},
          {.name = "osl",
           .type = ParamType::kInt,
           .default_value = 32,
           .lo = 2,
           .hi = 4096,
           .meaning = "output tokens per request (no early stop)"},
          {.name = "requests",
           .type = ParamType::kInt,
           .default_value = 32,
           .lo = 1,
           .hi = 100000,
           .meaning = "counted requests, after one warm-up request per slot"}};
}

Measures ServingMeasures() {
  return {
      .kind = FigureKind::kProxy,
      .figures = {{"ttft", "s", Better::kLower},
                  {"tpot", "s", Better::kLower},
                  {"output_tokens_per_s", "tokens/s", Better::kHigher},
                  {"tokens_per_s_per_user", "tokens/s", Better::kHigher},
                  {"requests_completed", "requests", Better::kHigher},
                  {"predicted_ttft", "s", Better::kLower},
                  {"predicted_tpot", "s", Better::kLower},
                  {"predicted_output_tokens_per_s", "tokens/s", Better::kHigher}},
      .identity = {"backend", "device", "dtype", "scale", "layers", "concurrency", "isl", "osl"}};
}

}  // namespace ys::workloads
