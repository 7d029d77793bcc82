// `yardstick predict --model NAME|FILE --chip CHIP --dtype DTYPE --gpus N [--tp N --pp N --cp N
// --ep N --etp N --vp N --mbs N --gbs N --seq N --layers N --recompute
// none|selective|mla_up_proj|full --attention fused|unfused --dispatcher alltoall|deepep
// --token-drop on|off --a2a-overlap on|off --mtp-layers N --cuda-graphs SCOPES]
// [--measured RUN.json ...] [--set KEY=VALUE ...] [--json] [--data DIR]`: the step time a recipe
// will reach, with its breakdown (predict/predictor.h), at the reference rates or at
// this cluster's measured ones, and what each measured shortfall costs.
// `yardstick predict --published [--fit] [--cv] [--json]`: a prediction for every published row of
// baselines/ with the error table (in fit / held out); --fit re-fits the constants on the rows
// outside the held-out set and prints them as calibration/step_model.toml's [constants]; --cv adds
// the leave-one-model-out figures (predict/suite/published_predictions.h LeaveOneModelOut). Then
// the per-release tables of baselines/published/*.tsv: leave-one-model-out per release and chip,
// the next release from the previous one's constants (plain and anchored), and the rows of releases
// after the calibration as `predict --release` answers them (predict/later_releases.h), in
// cli/predict_published.h.
// `yardstick predict --serve ...`: a serving deployment's throughput and latency
// (cli/predict_serve.h).
// Exit 0 on a prediction, 2 when an input cannot be read or a value is out of range, 64 on a
// usage error.
#include <fmt/format.h>

#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <tuple>

#include "cli/command.h"
#include "cli/predict_published.h"
#include "cli/predict_serve.h"
#include "cli/predict_serve_fit.h"
#include "core/exit_codes.h"
#include "core/log.h"
#include "core/run_document_json.h"
#include "predict/predictor.h"
#include "predict/release_calibration.h"
#include "predict/suite/published_predictions.h"
#include "report/prediction_report.h"

namespace ys::cli::cmd_predict {
namespace {

struct PredictArgs {
  std::string model, chip, dtype, data, recompute, attention, dispatcher, token_drop, a2a_overlap,
      release, cuda_graphs, module_precision;
  std::optional<int> gpus, tp, pp, cp, ep, etp, vp, mbs, gbs, seq, layers, mtp_layers,
      recompute_layers, bf16_layers;
  std::vector<std::string> measured, sets;
  bool json = false, published = false, fit = false, cv = false;
  bool serve = false;
  ServeArgs served;        // --serve's own flags (cli/predict_serve.h)
  ServeFitArgs serve_fit;  // --serve-fit, --write (cli/predict_serve_fit.h)
};

// The serving prediction's arguments from the shared flags and its own.
ServeArgs ServeArgsOf(const PredictArgs& a) {
  ServeArgs s = a.served;
  std::tie(s.model, s.chip, s.dtype, s.data, s.json, s.measured, s.sets) =
      std::tie(a.model, a.chip, a.dtype, a.data, a.json, a.measured, a.sets);
  s.gpus = a.gpus.value_or(0);
  s.tp = a.tp.value_or(1);
  s.pp = a.pp.value_or(1);
  s.ep = a.ep.value_or(1);
  return s;
}

Result<int> Served(const PredictArgs& a) {
  Result<int> code = RunServe(ServeArgsOf(a));
  if (!code.ok()) return Prefixed("predict --serve", code.status());
  return code;
}

// The model file's entry for the chip, dtype and GPU count, with the command line's fields laid
// over it; with no entry, the command line's fields over tp = pp = cp = ep = 1, micro-batch 1
// (then --gbs is required).
Result<predict::Recipe> BuildRecipe(const PredictArgs& a, const predict::Predictor& predictor,
                                    const predict::ModelSpec& spec) {
  // With --release, the recipe that release ran where the model file has it (the release is part
  // of the recipe); else the current recipes.
  predict::RecipeQuery q{.chip = a.chip,
                         .dtype = predict::DtypeOfPrecision(a.dtype),
                         .gpus = a.gpus,
                         .entry = a.release.empty() ? predict::RecipeEntry::kForGpus
                                                    : predict::RecipeEntry::kOfRelease,
                         .release = a.release,
                         .bare_without_entry = true,
                         .weak_scaling = true};
  q.overrides = {.tp = a.tp,
                 .pp = a.pp,
                 .cp = a.cp,
                 .ep = a.ep,
                 .etp = a.etp,
                 .vp = a.vp,
                 .micro_batch = a.mbs,
                 .global_batch = a.gbs,
                 .seq = a.seq,
                 .layers = a.layers,
                 .mtp_layers = a.mtp_layers,
                 .recompute_layers = a.recompute_layers,
                 .bf16_layers = a.bf16_layers,
                 .recompute = a.recompute,
                 .attention_backend = a.attention,
                 .moe_dispatcher = a.dispatcher,
                 .cuda_graphs = a.cuda_graphs,
                 .module_precision = a.module_precision};
  if (!a.token_drop.empty()) q.overrides.moe_token_drop = a.token_drop == "on";
  if (!a.a2a_overlap.empty()) q.overrides.moe_a2a_overlap = a.a2a_overlap == "on";
  auto r = predictor.BuildRecipe(spec, q);
  if (!r.ok()) {
    return Status::Invalid(r.status().message() +
                           "; give the recipe's parallelism on the command line (at least --gbs)");
  }
  if (a.recompute_layers && r->par.recompute != "full") {
    return Status::Invalid("--recompute-layers " + std::to_string(*a.recompute_layers) +
                           ": needs --recompute full (the recipe's recompute is " +
                           r->par.recompute + ")");
  }
  if (r->par.ep > 1 && !spec.moe)
    return Status::Invalid("--ep " + std::to_string(r->par.ep) + ": " + spec.name +
                           " has no experts");
  return r;
}

// The numeric flags' ranges ("--tp: 0 is out of range ..."), before anything is read.
Status CheckFlags(const PredictArgs& a) {
  for (auto [flag, v] : {std::pair{"--gpus", a.gpus},
                         {"--tp", a.tp},
                         {"--pp", a.pp},
                         {"--cp", a.cp},
                         {"--ep", a.ep},
                         {"--etp", a.etp},
                         {"--vp", a.vp},
                         {"--mbs", a.mbs}}) {
    if (v) YS_RETURN_IF_ERROR(CheckIntRange(*v, 1, 1 << 20, flag));
  }
  for (auto [flag, v] : {std::pair{"--gbs", a.gbs}, {"--seq", a.seq}, {"--layers", a.layers}}) {
    if (v) YS_RETURN_IF_ERROR(CheckIntRange(*v, 1, 1 << 24, flag));
  }
  if (a.mtp_layers) YS_RETURN_IF_ERROR(CheckIntRange(*a.mtp_layers, 0, 64, "--mtp-layers"));
  return Status::Ok();
}

// --model and --chip as the files of models/ and specs/ name them (H100 is h100).
Status ResolveModelAndChip(PredictArgs& a) {
  const std::string data = DataDir(a.data);
  if (!a.model.empty()) {
    auto model = ResolveDataName(data, "models", "--model", a.model);
    if (!model.ok()) return Prefixed("predict", model.status());
    a.model = *model;
  }
  if (!a.chip.empty()) {
    auto chip = ResolveDataName(data, "specs", "--chip", a.chip);
    if (!chip.ok()) return Prefixed("predict", chip.status());
    a.chip = *chip;
  }
  return Status::Ok();
}

// An expected error as JSON: {median, p90, situation, basis} and, with their old meaning, rows,
// median_abs, p90_abs and measured (docs/schemas.md).
nlohmann::json ExpectedJson(const predict::ExpectedError& e) {
  return {{"median", e.stats.median_abs},
          {"p90", e.stats.p90_abs},
          {"situation", predict::SituationName(e.situation)},
          {"basis", e.measured},
          {"rows", e.stats.rows},
          {"median_abs", e.stats.median_abs},
          {"p90_abs", e.stats.p90_abs},
          {"measured", e.measured}};
}

// The JSON document: the top-level step_time_s, tokens/s/GPU and MFU are the booked answer (the
// anchored one where an anchor exists), with the unanchored figure and the anchor beside it.
nlohmann::json AnswerJson(const PredictArgs& a, const predict::ReleaseConstantsChoice& chosen,
                          const report::PredictionView& view,
                          const std::optional<predict::Anchor>& anchor) {
  nlohmann::json j = report::PredictionJson(view);
  j["release"] = {
      {"asked", chosen.choice.asked}, {"used", chosen.choice.used}, {"note", chosen.choice.note}};
  const predict::StepPrediction& p = *view.prediction;
  const predict::ExpectedQuery unanchored{.precision = a.dtype,
                                          .moe = view.recipe->model->moe.has_value(),
                                          .model_has_rows = anchor.has_value()};
  j["unanchored"] = {{"step_time_s", p.step_time_s},
                     {"tokens_per_s_per_gpu", p.tokens_per_s_per_gpu},
                     {"mfu", p.mfu},
                     {"expected_error", ExpectedJson(chosen.Expected(unanchored))}};
  j["booked"] = anchor ? "anchored" : "unanchored";
  j["expected_error"] = j["unanchored"]["expected_error"];
  if (anchor) {
    const double factor = anchor->anchored_s / p.step_time_s;
    predict::ExpectedQuery anchored = unanchored;
    anchored.anchored = true;
    anchored.anchor = &*anchor;
    j["step_time_s"] = anchor->anchored_s;
    j["tokens_per_s_per_gpu"] = p.tokens_per_s_per_gpu / factor;
    j["mfu"] = p.mfu / factor;
    j["expected_error"] = ExpectedJson(chosen.Expected(anchored));
    j["anchor"] = {{"row", anchor->Describe()},
                   {"row_published_s", anchor->row->row.step_time_s},
                   {"row_predicted_s", anchor->row_predicted_s},
                   {"factor", factor}};
  }
  return j;
}

// The release line, the prediction, and the answer to book: anchored where a published row of the
// same model and chip exists in the release or an older one (predict/anchor.h), else unanchored,
// each with its expected error in its situation (predict/release_choice.h).
Result<int> Answer(const PredictArgs& a, predict::Predictor& predictor,
                   const predict::ReleaseConstantsChoice& chosen,
                   const report::PredictionView& view) {
  auto anchor = predictor.AnchorOn(chosen, a.dtype, *view.recipe, view.prediction->step_time_s);
  if (!anchor.ok()) return anchor.status();
  if (a.json) {
    std::cout << AnswerJson(a, chosen, view, *anchor).dump(2) << "\n";
    return kExitPass;
  }
  const predict::ExpectedQuery unanchored{.precision = a.dtype,
                                          .moe = view.recipe->model->moe.has_value(),
                                          .model_has_rows = anchor->has_value()};
  std::cout << "# " << chosen.Header() << "\n" << report::PredictionConsole(view);
  std::cout << chosen.ExpectedLine(unanchored) << "\n";
  if (*anchor) {
    predict::ExpectedQuery anchored = unanchored;
    anchored.anchored = true;
    anchored.anchor = &**anchor;
    std::cout << fmt::format("booked: anchored on {}: {:.3f} s (unanchored {:.3f} s)\n",
                             (*anchor)->Describe(), (*anchor)->anchored_s,
                             view.prediction->step_time_s);
    std::cout << chosen.ExpectedLine(anchored) << "\n";
  } else {
    std::cout << "booked: unanchored, " << fmt::format("{:.3f} s", view.prediction->step_time_s)
              << " (no published row of " << view.recipe->model->name << " on " << a.chip
              << " in release " << chosen.choice.used << " or an older one to anchor on)\n";
  }
  return kExitPass;
}

// The recipe's step at the reference rates with --measured and --set laid over, and the answer.
Result<int> Predict(const PredictArgs& a, predict::Predictor& predictor) {
  auto spec = predictor.LoadModel(a.model);
  if (!spec.ok()) return spec.status();
  auto chosen = predictor.Release(a.release, a.chip, a.dtype);
  if (!chosen.ok()) return chosen.status();
  auto recipe = BuildRecipe(a, predictor, *spec);
  if (!recipe.ok()) return recipe.status();
  auto chip = predictor.LoadChip(a.chip);
  if (!chip.ok()) return chip.status();
  std::vector<RunDocument> docs;
  docs.reserve(a.measured.size());
  predict::RateInputs in{.sets = a.sets};
  for (const std::string& path : a.measured) {
    auto j = ReadJsonFile(path);
    if (!j.ok()) return j.status();
    auto doc = RunDocumentFromJson(*j);
    if (!doc.ok()) return Status::Invalid(path + ": " + doc.status().message());
    docs.push_back(std::move(*doc));
    in.measured.emplace_back(path, &docs.back());
  }
  auto prediction = predictor.Predict(*recipe, *chip, chosen->constants, in);
  if (!prediction.ok()) return prediction.status();
  if (!prediction->what_if_status.ok()) return prediction->what_if_status;
  report::PredictionView view;
  view.measured = prediction->measured;
  view.recipe = &*recipe;
  view.prediction = &prediction->step;
  view.rates = &prediction->rates;
  view.calibration_path = predictor.calibration().path;
  view.what_if = prediction->what_if;
  return Answer(a, predictor, *chosen, view);
}

// The prediction; an error's message is the reader's, which the action prefixes with "predict: ".
Result<int> Run(const PredictArgs& a) {
  if (!a.recompute.empty()) {
    if (std::string bad = predict::CheckRecompute(a.recompute); !bad.empty())
      return Status::Invalid("--recompute " + a.recompute + ": expected " + bad);
  }
  if (!a.cuda_graphs.empty()) {
    if (std::string bad = predict::CheckCudaGraphs(a.cuda_graphs); !bad.empty())
      return Status::Invalid("--cuda-graphs " + a.cuda_graphs + ": expected " + bad);
  }
  if (!a.module_precision.empty() && a.module_precision != "none") {
    if (std::string bad = predict::CheckModulePrecision(a.module_precision); !bad.empty())
      return Status::Invalid("--module-precision " + a.module_precision + ": expected none or " +
                             bad);
  }
  if (!a.dispatcher.empty() && a.dispatcher != "alltoall" && a.dispatcher != "deepep") {
    return Status::Invalid("--dispatcher " + a.dispatcher + ": expected alltoall or deepep");
  }
  for (auto [flag, v] :
       {std::pair{"--token-drop", &a.token_drop}, {"--a2a-overlap", &a.a2a_overlap}}) {
    if (!v->empty() && *v != "on" && *v != "off") {
      return Status::Invalid(std::string(flag) + " " + *v + ": expected on or off");
    }
  }
  if (!a.attention.empty() && a.attention != "fused" && a.attention != "unfused") {
    return Status::Invalid("--attention " + a.attention + ": expected fused or unfused");
  }
  auto predictor = predict::Predictor::Open(DataDir(a.data));
  if (!predictor.ok()) return predictor.status();
  if (a.published)
    return RunPublished({a.fit, a.cv, a.json}, predictor->data_dir(), predictor->calibration());
  if (a.fit || a.cv) {
    Log(LogLevel::kError, "predict: --fit and --cv go with --published");
    return kExitUsage;
  }
  if (a.model.empty() || a.chip.empty() || a.dtype.empty() || !a.gpus) {
    Log(LogLevel::kError, "predict: give --model, --chip, --dtype and --gpus (or --published)");
    return kExitUsage;
  }
  return Predict(a, *predictor);
}

Action Setup(CLI::App& sub) {
  auto a = std::make_shared<PredictArgs>();
  sub.add_option("--model", a->model, "A model name from models/ (llama3.1_405b) or a model file");
  sub.add_option("--chip", a->chip, "Chip of specs/: h100, h200, b200, b300, gb200, gb300");
  sub.add_option("--dtype", a->dtype,
                 "bf16, fp8 (current scaling), fp8_cs, fp8_ds (delayed scaling), mxfp8 or nvfp4");
  sub.add_option("--release", a->release,
                 "NeMo / Megatron-Bridge container tag (26.04.01) or dgxc-benchmarking tag "
                 "whose calibrated constants apply (default: the newest calibrated)");
  sub.add_option("--gpus", a->gpus, "GPUs of the job");
  sub.add_option("--tp", a->tp, "Tensor parallel size (default: the model file's recipe)");
  sub.add_option("--pp", a->pp, "Pipeline parallel size");
  sub.add_option("--cp", a->cp, "Context parallel size");
  sub.add_option("--ep", a->ep, "Expert parallel size");
  sub.add_option("--etp", a->etp, "Expert tensor parallel size (default: tp)");
  sub.add_option("--vp", a->vp, "Virtual pipeline stages per pipeline rank");
  sub.add_option("--mbs", a->mbs, "Micro-batch size");
  sub.add_option("--gbs", a->gbs, "Global batch size");
  sub.add_option("--seq", a->seq, "Sequence length (default: the model file's)");
  sub.add_option("--layers", a->layers, "Layers (a proxy of fewer layers)");
  sub.add_option("--cuda-graphs", a->cuda_graphs,
                 "CUDA graphs: none, full_iteration, or captured scopes joined by + (attn, mamba, "
                 "mlp, moe, moe_router, moe_preprocess)");
  sub.add_option("--mtp-layers", a->mtp_layers,
                 "Multi-token-prediction modules trained beside the model (Megatron's "
                 "mtp_num_layers; each one more layer and the output head on the last stage)");
  sub.add_option("--recompute", a->recompute,
                 "Activation recompute: none, selective, full, or modules joined by + "
                 "(core_attn, mla_up_proj, mlp, moe, shared_experts, moe_act, layernorm)");
  sub.add_option("--recompute-layers", a->recompute_layers,
                 "With --recompute full: only the first N layers of each pipeline chunk are "
                 "recomputed (Megatron's recompute_num_layers, recompute_method block)")
      ->check(CLI::Range(1, 100000));
  sub.add_option("--bf16-layers", a->bf16_layers,
                 "Layers of a low-precision recipe kept in bf16 at the ends of the stack "
                 "(Megatron's first_last_layers_bf16 with num_layers_at_start_in_bf16 + "
                 "num_layers_at_end_in_bf16)")
      ->check(CLI::Range(0, 100000));
  sub.add_option("--module-precision", a->module_precision,
                 "GEMMs a low-precision recipe runs in another format: module:format pairs joined "
                 "by + (modules attn, mlp, experts, shared_experts, latent, mamba_in, mamba_out, "
                 "mtp; formats bf16, fp8), or none");
  sub.add_option("--attention", a->attention,
                 "Attention core: fused (flash/cuDNN) or unfused (the S x S scores through HBM)");
  sub.add_option("--dispatcher", a->dispatcher,
                 "MoE token dispatcher: alltoall (NCCL all-to-all) or deepep (DeepEP/HybridEP: a "
                 "token sent once per remote NVLink domain)");
  sub.add_option("--token-drop", a->token_drop,
                 "MoE token drop to a static capacity: on (no device-to-host sync in the "
                 "dispatcher) or off (dropless)");
  sub.add_option("--a2a-overlap", a->a2a_overlap,
                 "MoE all-to-all overlapped with another micro-batch's computation (Megatron's "
                 "combined 1F1B, moe_a2a_overlap): on or off");
  sub.add_option("--measured", a->measured,
                 "A run document whose gemm.gpu and coll.* measurements replace the reference "
                 "rates (repeatable)");
  sub.add_option("--set", a->sets,
                 "Override a rate: coll.all_gather.busbw=28GB/s, nvlink.alltoall.busbw=300GB/s, "
                 "gemm.fp8.tflops=1200, hbm.bandwidth=3TB/s (repeatable)");
  sub.add_flag("--published", a->published,
               "Predict every published row of baselines/ and print the error table");
  sub.add_flag("--fit", a->fit, "With --published: re-fit the constants on the rows in the fit");
  sub.add_flag("--cv", a->cv,
               "With --published: leave-one-model-out cross-validation (fit without each model "
               "family, predict it)");
  AddServeOptions(sub, &a->serve, &a->served);
  AddServeFitOptions(sub, &a->serve_fit);
  sub.add_flag("--json", a->json, "Print one JSON document (top-level step_time_s)");
  sub.add_option("--data", a->data, "Directory holding models/, specs/, baselines/, calibration/");
  return [a]() -> Result<int> {
    YS_RETURN_IF_ERROR(CheckFlags(*a));
    if (a->serve) return Served(*a);
    if (a->serve_fit.fit) return RunServeFit(a->data, a->serve_fit.write);
    YS_RETURN_IF_ERROR(ResolveModelAndChip(*a));
    Result<int> code = Run(*a);
    if (!code.ok()) return Prefixed("predict", code.status());
    return code;
  };
}

}  // namespace

YS_REGISTER(
    CommandOf<Setup>,
    {.id = "predict",
     .summary = "The step time a recipe will reach at a GPU count, with its breakdown, from "
                "the reference rates or this cluster's measurements; the error table over "
                "the published rows"})

}  // namespace ys::cli::cmd_predict
