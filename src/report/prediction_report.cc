#include "report/prediction_report.h"

#include <fmt/format.h>

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "core/document_schemas.h"
#include "core/json_fields.h"
#include "core/json_schema.h"

namespace ys::report {
namespace {

using predict::CommTerm;
using predict::StepPrediction;

std::string Bytes(double b) {
  if (b >= 1 << 30) return fmt::format("{:.1f} GiB", b / (1 << 30));
  if (b >= 1 << 20) return fmt::format("{:.1f} MiB", b / (1 << 20));
  return fmt::format("{:.0f} KiB", b / 1024);
}

// Exposed comm terms merged by name (dp has a reduce-scatter and an all-gather, for dense and
// expert parameters): one row each.
std::vector<CommTerm> Merged(const StepPrediction& p) {
  std::vector<CommTerm> out;
  for (const CommTerm& t : p.comm) {
    auto it =
        std::find_if(out.begin(), out.end(), [&](const CommTerm& o) { return o.name == t.name; });
    if (it == out.end()) {
      out.push_back(t);
    } else {
      it->raw_s += t.raw_s;
      it->exposed_s += t.exposed_s;
      if (it->collective.find(t.collective) == std::string::npos)
        it->collective += "+" + t.collective;
      if (it->link != t.link) it->link += "+" + t.link;
    }
  }
  return out;
}

const char* CommLabel(const std::string& name) {
  if (name == "tp") return "tensor-parallel comm";
  if (name == "cp") return "context-parallel comm";
  if (name == "ep") return "expert-parallel all-to-all";
  if (name == "pp") return "pipeline send/recv";
  if (name == "dp") return "data-parallel comm";
  return "comm";
}

std::string RateKeyValue(const std::string& key, double v) {
  if (key.starts_with("gemm.")) return fmt::format("{:.0f} TFLOPS", v / 1e12);
  if (key == "hbm.bandwidth") return fmt::format("{:.2f} TB/s", v / 1e12);
  return fmt::format("{:.1f} GB/s", v / 1e9);
}

}  // namespace

std::vector<BreakdownRow> Breakdown(const StepPrediction& p) {
  std::vector<BreakdownRow> rows;
  rows.push_back({"compute", p.compute_s,
                  fmt::format("GEMM {:.3f} s, attention {:.3f} s, elementwise {:.3f} s", p.gemm_s,
                              p.attention_s, p.elementwise_s)});
  for (const CommTerm& t : Merged(p)) {
    rows.push_back({std::string(CommLabel(t.name)) + " (" + t.name + ")", t.exposed_s,
                    fmt::format("{} over {}, {} per message, {:.3f} s before overlap", t.collective,
                                t.link, Bytes(t.message_bytes), t.raw_s)});
  }
  rows.push_back({"host-bound issue", p.host_s,
                  "the GPU waits for the host to issue kernels (modules outside CUDA graphs, MoE "
                  "dispatcher sync)"});
  rows.push_back({"pipeline bubble", p.bubble_s, ""});
  rows.push_back({"optimizer step", p.optimizer_s, ""});
  return rows;
}

std::string PredictionConsole(const PredictionView& v) {
  const auto& r = *v.recipe;
  const auto& p = *v.prediction;
  std::string out = fmt::format(
      "{} on {} x {} ({}): tp {} pp {} cp {} ep {} etp {} vp {}, micro-batch {}, global batch {}, "
      "seq {}, {} layers, recompute {}, {} attention{}, CUDA graphs {}{}; dp {}, {} micro-batches "
      "per "
      "step\n\n",
      r.model->display_name, r.par.gpus, r.par.chip, r.dtype, r.par.tp, r.par.pp, r.par.cp,
      r.par.ep, r.Etp(), r.Vp(), r.par.micro_batch, r.par.global_batch, r.seq, r.layers,
      r.par.recompute_layers && r.par.recompute == "full"
          ? fmt::format("full (the first {} layers of each pipeline chunk)",
                        *r.par.recompute_layers)
          : r.par.recompute,
      r.par.attention_backend,
      r.model->moe ? fmt::format(", {} dispatcher, {}{}", r.par.moe_dispatcher,
                                 r.par.moe_token_drop ? "token drop" : "dropless",
                                 r.par.moe_a2a_overlap ? ", all-to-all overlapped" : "")
                   : std::string(),
      r.par.cuda_graphs,
      (r.par.mtp_layers > 0 ? fmt::format(", {} MTP module(s)", r.par.mtp_layers) : std::string()) +
          (r.par.bf16_layers > 0 && r.dtype != "bf16"
               ? fmt::format(", {} layers in bf16", r.par.bf16_layers)
               : std::string()) +
          (!r.par.module_precision.empty() && r.dtype != "bf16"
               ? fmt::format(", module precision {}", r.par.module_precision)
               : std::string()),
      p.data_parallel, p.micro_batches);
  if (r.par.weak_scaled_from > 0) {
    out.insert(
        out.size() - 1,
        fmt::format("(the layout of the model file's {}-GPU entry: no entry for {} GPUs, data "
                    "parallelism and global batch scaled)\n",
                    r.par.weak_scaled_from, r.par.gpus));
  }
  out += fmt::format("  {:<34} {:>10} {:>7}  {}\n", "component", "seconds", "share", "");
  for (const BreakdownRow& row : Breakdown(p)) {
    out += fmt::format("  {:<34} {:>10.3f} {:>6.1f}%  {}\n", row.name, row.seconds,
                       100 * row.seconds / p.step_time_s, row.detail);
  }
  out += fmt::format("  {:<34} {:>10.3f} {:>6.1f}%\n\n", "step time (total)", p.step_time_s, 100.0);
  out += fmt::format("  tokens/s/GPU {:.0f}   MFU {:.1f}% (model FLOPs {:.3g} per token)\n",
                     p.tokens_per_s_per_gpu, 100 * p.mfu, p.model_flops_per_token);
  std::map<std::string, std::string> origin = v.rates->origin;
  int non_reference = 0;
  for (const auto& [k, o] : origin) non_reference += o != "reference";
  out += fmt::format("  rates: {} ({}), {} rate(s) measured or set\n",
                     non_reference == 0 ? "reference" : "reference and measured",
                     v.calibration_path, non_reference);
  for (const std::string& m : v.measured) out += "    measured " + m + "\n";
  for (const auto& [k, o] : origin) {
    if (o == "--set") out += "    --set " + k + "\n";
  }
  if (!v.what_if.empty()) {
    out += "\n  what the measured shortfalls cost (each rate put back to the reference alone):\n";
    for (const auto& w : v.what_if) {
      out += fmt::format(
          "    {:<26} {} (reference {}): {:+.3f} s per step, {:.1f}% of the "
          "iteration\n",
          w.key, RateKeyValue(w.key, w.measured),
          w.reference > 0 ? RateKeyValue(w.key, w.reference) : "peak x efficiency", w.recovery_s,
          100 * w.recovery_share);
    }
  }
  return out;
}

// The field lists of predict's documents (core/json_fields.h); written only. The documents are
// nlohmann::json, whose objects keep their keys sorted.
template <typename V>
void Fields(V& v, BreakdownRow& row) {
  v("component", row.name);
  v("seconds", row.seconds);
  v("detail", row.detail);
}

namespace prediction_json {

// A view T{item} of each of `items`, brace-initialised: std::vector's range constructor would
// initialise the aggregate views with parentheses, which clang 14 refuses.
template <typename T, typename Items>
std::vector<T> ViewsOf(const Items& items) {
  std::vector<T> views;
  views.reserve(items.size());
  for (const auto& item : items) views.push_back(T{item});
  return views;
}

struct Comm {
  const predict::CommTerm& t;
};

template <typename V>
void Fields(V& v, Comm& c) {
  v("name", c.t.name);
  v("collective", c.t.collective);
  v("link", c.t.link);
  v("message_bytes", c.t.message_bytes);
  v.computed("busbw_gb_per_s", [&] { return c.t.busbw / 1e9; });
  v("raw_s", c.t.raw_s);
  v("exposed_s", c.t.exposed_s);
}

struct WhatIf {
  const predict::RateWhatIf& w;
};

template <typename V>
void Fields(V& v, WhatIf& x) {
  v("rate", x.w.key);
  v("measured", x.w.measured);
  v("reference", x.w.reference);
  v("step_s", x.w.step_s);
  v("restored_step_s", x.w.restored_s);
  v("recovery_s", x.w.recovery_s);
  v("recovery_share", x.w.recovery_share);
}

struct RecipeView {
  const predict::Recipe& r;
  const predict::StepPrediction& p;
};

template <typename V>
void Fields(V& v, RecipeView& x) {
  const auto& par = x.r.par;
  v("chip", par.chip);
  v("dtype", x.r.dtype);
  v("gpus", par.gpus);
  v("tp", par.tp);
  v("pp", par.pp);
  v("cp", par.cp);
  v("ep", par.ep);
  v.computed("etp", [&] { return x.r.Etp(); });
  v.computed("vp", [&] { return x.r.Vp(); });
  v("micro_batch", par.micro_batch);
  v("global_batch", par.global_batch);
  v("seq", x.r.seq);
  v("layers", x.r.layers);
  v("recompute", par.recompute);
  // Under full recompute: the layers of each pipeline chunk recomputed (unset: every layer).
  v.optional("recompute_layers", par.recompute_layers);
  v("attention_backend", par.attention_backend);
  // A low-precision recipe's layers kept in bf16 and its modules in another format.
  v("bf16_layers", par.bf16_layers);
  v.optional("module_precision", par.module_precision);
  bool moe = static_cast<bool>(x.r.model->moe);  // written for models with experts only
  v.optional("moe_dispatcher", par.moe_dispatcher, moe);
  v.optional("moe_token_drop", par.moe_token_drop, moe);
  v.optional("moe_a2a_overlap", par.moe_a2a_overlap, moe);
  v("fsdp", par.fsdp);
  v("data_parallel", x.p.data_parallel);
  v("micro_batches", x.p.micro_batches);
  // Where the layout comes from: the model file's entry (or the command line), and the GPU count
  // of the entry it was scaled from when the file has none for this count (0: not scaled).
  v("source", par.source);
  v("weak_scaled_from", par.weak_scaled_from);
}

struct Prediction {
  const PredictionView& view;
};

template <typename V>
void Fields(V& v, Prediction& x) {
  const PredictionView& view = x.view;
  const auto& p = *view.prediction;
  v.computed("schema_version", [] { return 1; });
  v.computed("command", [] { return "predict"; });
  v("step_time_s", p.step_time_s);
  v("model", view.recipe->model->name);
  v.computed("recipe", [&] { return RecipeView{*view.recipe, p}; });
  v.computed("breakdown", [&] { return Breakdown(p); });
  v("compute_s", p.compute_s);
  v.computed("exposed_comm_s", [&] { return p.ExposedComm(); });
  v("host_s", p.host_s);
  v("bubble_s", p.bubble_s);
  v("optimizer_s", p.optimizer_s);
  v.computed("comm", [&] { return ViewsOf<Comm>(p.comm); });
  v("tokens_per_s_per_gpu", p.tokens_per_s_per_gpu);
  v("mfu", p.mfu);
  v("model_flops_per_token", p.model_flops_per_token);
  v("rates_origin", view.rates->origin);
  v("measured", view.measured);
  v("calibration", view.calibration_path);
  v.computed("what_if", [&] { return ViewsOf<WhatIf>(view.what_if); });
}

struct Stats {
  const predict::ErrorStats& s;
};

template <typename V>
void Fields(V& v, Stats& x) {
  v("rows", x.s.rows);
  v("median_abs_error", x.s.median_abs);
  v("p90_abs_error", x.s.p90_abs);
}

struct ErrorRowView {
  const predict::ErrorRow& row;
};

template <typename V>
void Fields(V& v, ErrorRowView& x) {
  const auto& ref = x.row.c->ref;
  v("workload", ref.workload);
  v("chip", ref.provenance.chip);
  v("release", ref.provenance.release);
  v("dtype", ref.dtype);
  v("gpus", ref.gpus);
  v("gbs", ref.gbs);
  v("published_step_time_s", ref.step_time_s);
  v("step_time_s", x.row.prediction.step_time_s);
  v("error", x.row.error);
  v("held_out", x.row.c->held_out);
  v("mfu", x.row.prediction.mfu);
}

struct ErrorTableView {
  const predict::ErrorTable& t;
};

template <typename V>
void Fields(V& v, ErrorTableView& x) {
  v.computed("rows", [&] { return ViewsOf<ErrorRowView>(x.t.rows); });
  v.computed("fitted", [&] { return Stats{x.t.fitted}; });
  v.computed("held_out", [&] { return Stats{x.t.held_out}; });
}

struct Fold {
  const predict::FamilyFold& f;
};

template <typename V>
void Fields(V& v, Fold& x) {
  Stats stats{x.f.stats};
  Fields(v, stats);
  v("family", x.f.family);
  v("errors", x.f.errors);
}

struct CrossValidationView {
  const predict::CrossValidation& cv;
};

template <typename V>
void Fields(V& v, CrossValidationView& x) {
  v.computed("folds", [&] { return ViewsOf<Fold>(x.cv.folds); });
  v.computed("all", [&] { return Stats{x.cv.all}; });
}

struct SuiteRow {
  const predict::WorkloadPrediction& r;
};

template <typename V>
void Fields(V& v, SuiteRow& x) {
  v("workload", x.r.workload.id);
  v("dtype", x.r.workload.dtype);
  v("gpus", x.r.workload.gpus);
  v("model_step_s", x.r.model_step_s);
  v("reference_step_s", x.r.reference_step_s);
  v("predicted_step_s", x.r.predicted_step_s);
  v("predicted_score", x.r.predicted_score);
  v("anchored_step_s", x.r.anchored_step_s);
  v("anchored_on", x.r.anchored_on);
  v.optional("anchored_expected_error", x.r.anchored_expected_error);
  v("under", x.r.under);
  v("why", x.r.why);
}

struct SuiteView {
  const std::vector<predict::WorkloadPrediction>& rows;
  double threshold;
  const std::vector<predict::PhasePrediction>& phases;  // a serving suite's
};

template <typename V>
void Fields(V& v, SuiteView& x) {
  v("threshold", x.threshold);
  v.computed("workloads", [&] { return ViewsOf<SuiteRow>(x.rows); });
  v.optional("phases", x.phases);
}

// `predict --published --json`: the error table, the leave-one-model-out figures with --cv, the
// calibration it used, and the constants fitted with --fit.
struct PublishedView {
  const predict::ErrorTable& t;
  std::optional<CrossValidationView> cv;
  std::string calibration;
  std::string split;
  std::optional<std::map<std::string, double>> fitted_constants;
};

template <typename V>
void Fields(V& v, PublishedView& x) {
  ErrorTableView table{x.t};
  Fields(v, table);
  v.optional("leave_one_model_out", x.cv);
  v("calibration", x.calibration);
  v("split", x.split);
  v.optional("fitted_constants", x.fitted_constants);
}

template <typename T>
nlohmann::json Write(const T& view) {
  return nlohmann::json(json_fields::Write(view));
}

// The schema walks views whose pointers name samples (core/json_schema.h), a model with experts.
const predict::ModelSpec& SampleModel() {
  static const predict::ModelSpec kModel = [] {
    predict::ModelSpec m;
    m.moe.emplace();
    return m;
  }();
  return kModel;
}
std::vector<RecipeView> JsonSchemaSamples(const RecipeView*) {
  static const predict::Recipe kRecipe{.model = &SampleModel()};
  return {RecipeView{kRecipe, json_fields::SampleOf<predict::StepPrediction>()}};
}
std::vector<Prediction> JsonSchemaSamples(const Prediction*) {
  static const predict::Recipe kRecipe{.model = &SampleModel()};
  static const PredictionView kView{.recipe = &kRecipe,
                                    .prediction = &json_fields::SampleOf<predict::StepPrediction>(),
                                    .rates = &json_fields::SampleOf<predict::SystemRates>()};
  return {Prediction{kView}};
}
std::vector<ErrorRowView> JsonSchemaSamples(const ErrorRowView*) {
  static const predict::PublishedCase kCase;
  static const predict::ErrorRow kRow{.c = &kCase};
  return {ErrorRowView{kRow}};
}

// `predict --json` adds the release line asked and used, and the anchor with --anchor
// (cli/cmd_predict.cc), beside the field list's keys.
void JsonSchemaRefine(const Prediction*, nlohmann::ordered_json& schema) {
  using ojson = nlohmann::ordered_json;
  auto object = [](std::vector<std::pair<std::string, ojson>> properties) {
    ojson o = {{"type", "object"}, {"properties", ojson::object()}, {"required", ojson::array()}};
    for (auto& [key, type] : properties) {
      o["properties"][key] = std::move(type);
      o["required"].push_back(key);
    }
    o["additionalProperties"] = false;
    return o;
  };
  const ojson text = {{"type", "string"}}, seconds = {{"type", "number"}},
              count = {{"type", "integer"}};
  // The |error| an answer can expect in its situation (predict/release_choice.h): median, p90,
  // situation, basis; rows, median_abs, p90_abs and measured keep their old meaning (rows 0: too
  // little evidence, `measured` = `basis` says why).
  ojson situation = text;
  situation["enum"] = {"calibrated_release", "newer_release", "model_not_fitted", "borrowed_chip",
                       "uncalibrated"};
  const ojson expected = object({{"median", seconds},
                                 {"p90", seconds},
                                 {"situation", situation},
                                 {"basis", text},
                                 {"rows", count},
                                 {"median_abs", seconds},
                                 {"p90_abs", seconds},
                                 {"measured", text}});
  schema["properties"]["release"] = object({{"asked", text}, {"used", text}, {"note", text}});
  // The top-level step_time_s, tokens_per_s_per_gpu, mfu and expected_error are the booked
  // answer's: the anchored one where `anchor` is present, else the unanchored one (the breakdown
  // always adds up to unanchored.step_time_s).
  ojson booked = text;
  booked["enum"] = {"anchored", "unanchored"};
  schema["properties"]["booked"] = booked;
  schema["properties"]["expected_error"] = expected;
  schema["properties"]["unanchored"] = object({{"step_time_s", seconds},
                                               {"tokens_per_s_per_gpu", seconds},
                                               {"mfu", seconds},
                                               {"expected_error", expected}});
  schema["properties"]["anchor"] = object({{"row", text},
                                           {"row_published_s", seconds},
                                           {"row_predicted_s", seconds},
                                           {"factor", seconds}});
  schema["required"].push_back("release");
  schema["required"].push_back("expected_error");
  schema["required"].push_back("booked");
  schema["required"].push_back("unanchored");
}

YS_DOCUMENT_SCHEMA("predict", Prediction, "yardstick predict --json",
                   "A step time predicted from a model, a parallelism and the system's rates: "
                   "the breakdown, each communication term, the rates' origin and what each "
                   "measured shortfall costs.");
YS_DOCUMENT_SCHEMA("predict_published", PublishedView, "yardstick predict --published --json",
                   "The step-time model against published step times: each row's error, the "
                   "error statistics in and out of the fit, leave-one-model-out figures with "
                   "--cv, and the constants fitted with --fit.");
YS_DOCUMENT_SCHEMA("predict_suite", SuiteView, "yardstick validate --predict --json",
                   "Each workload of a suite predicted before the runs: the step time at the "
                   "reference rates and at this cluster's, the predicted score and why it is "
                   "under the threshold.");

}  // namespace prediction_json

nlohmann::json PredictionJson(const PredictionView& v) {
  return prediction_json::Write(prediction_json::Prediction{v});
}

std::string ErrorTableConsole(const predict::ErrorTable& t) {
  std::string out =
      fmt::format("{:<28} {:<6} {:<10} {:>5} {:>5} {:>10} {:>10} {:>8}  {}\n", "workload", "chip",
                  "release", "GPUs", "GBS", "published", "predicted", "error", "fit");
  for (const auto& row : t.rows) {
    const auto& ref = row.c->ref;
    out += fmt::format("{:<28} {:<6} {:<10} {:>5} {:>5} {:>10.3f} {:>10.3f} {:>+7.1f}%  {}\n",
                       ref.workload, ref.provenance.chip, ref.provenance.release, ref.gpus, ref.gbs,
                       ref.step_time_s, row.prediction.step_time_s, 100 * row.error,
                       row.c->held_out ? "held out" : "in fit");
  }
  out += fmt::format(
      "\nin fit:   {} rows, median |error| {:.1f}%, 90th percentile {:.1f}%\n"
      "held out: {} rows, median |error| {:.1f}%, 90th percentile {:.1f}%\n",
      t.fitted.rows, 100 * t.fitted.median_abs, 100 * t.fitted.p90_abs, t.held_out.rows,
      100 * t.held_out.median_abs, 100 * t.held_out.p90_abs);
  return out;
}

std::string CrossValidationConsole(const predict::CrossValidation& cv) {
  std::string out = fmt::format(
      "\nleave one model out (fit without the family, predict it):\n{:<20} {:>5} {:>14} {:>10}\n",
      "family", "rows", "median |error|", "p90");
  for (const auto& f : cv.folds) {
    out += fmt::format("{:<20} {:>5} {:>13.1f}% {:>9.1f}%\n", f.family, f.stats.rows,
                       100 * f.stats.median_abs, 100 * f.stats.p90_abs);
  }
  out += fmt::format("all families: {} rows, median |error| {:.1f}%, 90th percentile {:.1f}%\n",
                     cv.all.rows, 100 * cv.all.median_abs, 100 * cv.all.p90_abs);
  return out;
}

nlohmann::json PublishedJson(const predict::ErrorTable& t, const predict::CrossValidation* cv,
                             const std::string& calibration, const std::string& split,
                             const predict::Constants* fitted) {
  prediction_json::PublishedView view{t, std::nullopt, calibration, split, std::nullopt};
  if (cv != nullptr) view.cv.emplace(prediction_json::CrossValidationView{*cv});
  if (fitted != nullptr) {
    auto& c = view.fitted_constants.emplace();
    for (const auto& info : predict::ConstantTable()) c[info.name] = fitted->*(info.field);
  }
  return prediction_json::Write(view);
}

std::string SuitePredictionConsole(const std::vector<predict::WorkloadPrediction>& rows,
                                   double threshold) {
  auto num = [](const std::optional<double>& v, const char* f) {
    return v ? fmt::format(fmt::runtime(f), *v) : std::string("-");
  };
  std::string out = fmt::format(
      "predicted before the runs (step-time model; score = predicted at the reference rates / "
      "predicted at this cluster's):\n{:<28} {:>5} {:>5}  {:>9} {:>9} {:>9} {:>8}  {}\n",
      "workload", "prec", "GPUs", "model s", "ref s", "pred s", "score", "why");
  if (!rows.empty()) out.insert(0, "# " + rows.front().release + "\n");
  int under = 0;
  for (const auto& r : rows) {
    under += r.under;
    out += fmt::format("{:<28} {:>5} {:>5}  {:>9} {:>9} {:>9} {:>8}  {}{}\n", r.workload.id,
                       r.workload.dtype, r.workload.gpus, num(r.model_step_s, "{:.3f}"),
                       num(r.reference_step_s, "{:.3f}"), num(r.predicted_step_s, "{:.3f}"),
                       r.predicted_score ? fmt::format("{:.1f}%", 100 * *r.predicted_score) : "-",
                       r.under ? "UNDER: " : "", r.why);
  }
  out += fmt::format("predicted: {} of {} workloads under {:.0f}%\n", under, rows.size(),
                     100 * threshold);
  return out;
}

nlohmann::json SuitePredictionJson(const std::vector<predict::WorkloadPrediction>& rows,
                                   double threshold,
                                   const std::vector<predict::PhasePrediction>& phases) {
  return prediction_json::Write(prediction_json::SuiteView{rows, threshold, phases});
}

std::string ConstantsToml(const predict::Constants& c) {
  std::string out = "[constants]\n";
  for (const auto& info : predict::ConstantTable()) {
    out += fmt::format("{} = {:.4g}\n", info.name, c.*(info.field));
  }
  return out;
}

}  // namespace ys::report
