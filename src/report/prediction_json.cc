// The JSON renderings of `yardstick predict` (report/prediction_report.h): the field lists of the
// predict, predict_published and predict_suite documents, their schema samples and refinements,
// and PredictionJson, PublishedJson and SuitePredictionJson. The console renderings stay in
// report/prediction_report.cc.
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/document_schemas.h"
#include "core/json_fields.h"
#include "core/json_schema.h"
#include "report/prediction_report.h"

namespace ys::report {
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

nlohmann::json SuitePredictionJson(const std::vector<predict::WorkloadPrediction>& rows,
                                   double threshold,
                                   const std::vector<predict::PhasePrediction>& phases) {
  return prediction_json::Write(prediction_json::SuiteView{rows, threshold, phases});
}

}  // namespace ys::report
