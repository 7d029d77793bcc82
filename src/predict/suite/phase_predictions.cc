#include "predict/suite/phase_predictions.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "predict/predictor.h"
#include "predict/published_table.h"
#include "predict/serve_system.h"

namespace ys::predict {
namespace {

// What the phases share: the predictor, the chip (or why there is none), the constants.
struct ServingSuiteContext {
  const validate::Suite& suite;
  const validate::ReferenceSet& refs;
  const SuitePredictionInputs& in;
  const Predictor& predictor;
  std::optional<bench::DeviceSpec> chip;
  std::string no_chip;  // why there is no chip spec
  ServeConstantsOf constants;
};

// The point a phase is predicted at, and its text.
ServeLoad PhasePoint(const validate::ServingPhase& phase, const validate::ServingReference* ref,
                     std::string& point) {
  ServeLoad load{phase.isl, phase.osl, 0, false};
  if (ref != nullptr) {
    load.concurrency = ref->mode == "offline" ? 0 : ref->concurrency;
  } else if (phase.mode != "offline" && !phase.concurrency.empty()) {
    load.concurrency = *std::max_element(phase.concurrency.begin(), phase.concurrency.end());
  }
  load.max_throughput = load.concurrency == 0;
  point = load.max_throughput ? std::string("max throughput")
                              : fmt::format("concurrency {}", load.concurrency);
  if (ref == nullptr && phase.concurrency.size() > 1 && !load.max_throughput)
    point += " (the largest of the sweep)";
  return load;
}

// The phase's GPUs as the serving model lays them out; empty with `why` set where it cannot.
std::optional<ServeLayout> PhaseLayout(const validate::ServingPhase& p, std::string& why) {
  ServeLayout l{p.gpus, p.tp, p.pp, p.ep, 0, 0};
  if (!p.disaggregated()) return l;
  if (p.prefill_tp != p.decode_tp) {
    why = fmt::format(
        "prefill workers at TP{} and decode workers at TP{}: the serving model takes one "
        "instance shape for both",
        p.prefill_tp, p.decode_tp);
    return std::nullopt;
  }
  l.tp = p.decode_tp;
  l.prefill_gpus = p.prefill_workers * p.prefill_tp;
  l.decode_gpus = p.decode_workers * p.decode_tp;
  return l;
}

// The costliest of `terms` as a reason: "largest term of TPOT: decode_weights (31%)".
std::string Costliest(const std::vector<ServeTerm>& terms, double total, const char* of) {
  if (terms.empty() || !(total > 0)) return "";
  const auto top = std::max_element(terms.begin(), terms.end(), [](const auto& a, const auto& b) {
    return a.seconds < b.seconds;
  });
  return fmt::format("largest term of {}: {} ({:.0f}%)", of, top->name, 100 * top->seconds / total);
}

// Each figure of the reference, scored on the model's ratio between here and the reference
// rates, as the serving rule scores a run.
void ScoreMetrics(const validate::ServingReference& ref, const ServePrediction& here,
                  const ServePrediction& there, double threshold, int denominator,
                  PhasePrediction& row) {
  auto add = [&](const std::string& key, std::string name, const char* unit, double reference,
                 double model, double score, bool larger_is_better) {
    row.metrics.push_back({key, std::move(name), unit, reference, model, score,
                           larger_is_better ? reference * score : reference / score,
                           score < threshold});
  };
  if (ref.output_tokens_per_s_per_gpu > 0) {
    add("output_tokens_per_s_per_gpu", "output throughput", "tok/s/GPU",
        ref.output_tokens_per_s_per_gpu, here.output_tokens_per_s / denominator,
        here.output_tokens_per_s / there.output_tokens_per_s, true);
  }
  if (ref.ttft_ms)
    add("ttft_ms", "TTFT " + ref.ttft_stat, "ms", *ref.ttft_ms, here.ttft_s * 1e3,
        there.ttft_s / here.ttft_s, false);
  if (ref.tpot_ms)
    add("tpot_ms", "TPOT " + ref.tpot_stat, "ms", *ref.tpot_ms, here.tpot_s * 1e3,
        there.tpot_s / here.tpot_s, false);
}

// The figures of a phase the model could predict, and why it lands where it does.
void FillPhase(const ServingSuiteContext& c, const validate::ServingReference* ref,
               const ServePrediction& here, const ServePrediction& there, int denominator,
               PhasePrediction& row) {
  row.output_tokens_per_s_per_gpu = here.output_tokens_per_s / denominator;
  row.output_tokens_per_s = here.output_tokens_per_s;
  row.tokens_per_s_per_user = here.tokens_per_s_per_user;
  row.ttft_s = here.ttft_s;
  row.tpot_s = here.tpot_s;
  row.batch_per_instance = here.batch_per_instance;
  row.instances = here.instances;
  if (ref != nullptr) ScoreMetrics(*ref, here, there, c.suite.threshold, denominator, row);
  const PredictedServeMetric* lowest = nullptr;
  // The first of equal scores (throughput and TPOT at a fixed concurrency move together; their
  // last digits should not choose).
  for (const PredictedServeMetric& m : row.metrics) {
    if (lowest == nullptr || m.score < lowest->score * (1 - 1e-9)) lowest = &m;
  }
  row.why = lowest != nullptr && lowest->key == "ttft_ms"
                ? Costliest(here.prefill, here.ttft_s, "TTFT")
                : Costliest(here.decode, here.tpot_s, "TPOT");
  if (lowest != nullptr) {
    row.predicted_score = lowest->score;
    row.under = lowest->under;
    row.why = fmt::format("{} {:.1f}%; {}", lowest->name, 100 * lowest->score, row.why);
  } else {
    row.why += ref == nullptr ? "; no serving reference: the model's figures alone"
                              : "; the reference gives no figure to score";
  }
}

// One phase: its model file, layout and point, predicted at this cluster's and the reference
// rates.
Result<PhasePrediction> PredictPhase(const ServingSuiteContext& c,
                                     const validate::ServingPhase& phase) {
  PhasePrediction row;
  row.id = phase.id;
  row.constants = c.constants.path;
  const validate::ServingReference* ref = c.refs.FindServing(c.suite.chip, phase);
  const ServeLoad load = PhasePoint(phase, ref, row.point);
  row.gpu_denominator = ref != nullptr ? ref->gpu_denominator : phase.gpu_denominator;
  const int denominator = row.gpu_denominator == "decode GPUs" && phase.disaggregated()
                              ? phase.decode_workers * phase.decode_tp
                              : phase.gpus;
  const std::string dtype = DtypeOfPrecision(phase.precision);
  const std::string path = c.predictor.ModelPath(phase.model);
  const auto layout = PhaseLayout(phase, row.reason);
  if (!c.no_chip.empty()) {
    row.reason = c.no_chip;
  } else if (!std::filesystem::exists(path)) {
    row.reason =
        "no model file models/" + phase.model + ".toml (nor one whose workload_names lists it)";
  } else if (dtype.empty()) {
    row.reason = "precision " + phase.precision + ": the serving model knows bf16, fp8 and nvfp4";
  }
  if (!row.reason.empty()) return row;
  auto model = c.predictor.LoadModel(path);
  if (!model.ok()) return model.status();
  ServeSystemQuery q{.chip = c.suite.chip,
                     .precision = phase.precision,
                     .layout = *layout,
                     .isl = phase.isl,
                     .rates = {.skip_unusable_documents = true, .sets = c.in.sets}};
  for (const auto& [doc_path, doc] : c.in.measured) q.rates.measured.emplace_back(doc_path, &doc);
  auto system = BuildServeSystem(c.predictor, *model, *c.chip, q);
  if (!system.ok()) return system.status();
  const ServeConstants constants = c.constants.For(c.suite.chip, dtype);
  auto here = PredictServe(*model, dtype, *layout, load, system->system, constants);
  auto there = PredictServe(*model, dtype, *layout, load, system->reference, constants);
  if (!here.ok() || !there.ok()) {
    row.reason = "cannot serve: " + (here.ok() ? there.status() : here.status()).message();
    return row;
  }
  row.expected_error = c.constants.Expected(c.suite.chip, dtype, ServeArchitecture(*model));
  FillPhase(c, ref, *here, *there, denominator, row);
  return row;
}

}  // namespace

Result<std::vector<PhasePrediction>> PredictServingSuite(const validate::Suite& suite,
                                                         const validate::ReferenceSet& refs,
                                                         const SuitePredictionInputs& in) {
  std::vector<PhasePrediction> out;
  if (suite.phases.empty()) return out;
  auto predictor = Predictor::Open(in.data_dir);
  if (!predictor.ok()) return predictor.status();
  auto constants = LoadServeConstants(in.data_dir);
  if (!constants.ok()) return constants.status();
  ServingSuiteContext c{suite, refs, in, *predictor, std::nullopt, "", std::move(*constants)};
  const std::string spec = in.data_dir + "/specs/" + suite.chip + ".toml";
  if (!std::filesystem::exists(spec)) {
    c.no_chip = "no chip spec specs/" + suite.chip + ".toml: no rates to predict with";
  } else {
    auto chip = predictor->LoadChip(suite.chip);
    if (!chip.ok()) return chip.status();
    c.chip = std::move(*chip);
  }
  for (const validate::ServingPhase& phase : suite.phases) {
    auto row = PredictPhase(c, phase);
    if (!row.ok()) return row.status();
    out.push_back(std::move(*row));
  }
  return out;
}

}  // namespace ys::predict
