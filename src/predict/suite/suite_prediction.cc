#include "predict/suite/suite_prediction.h"

#include <fmt/format.h>

#include <filesystem>

#include "predict/predictor.h"

namespace ys::predict {
namespace {

// The term of the breakdown that costs the most, as a reason.
std::string Dominant(const StepPrediction& p) {
  std::string name = "compute";
  double most = p.compute_s;
  for (const CommTerm& t : p.comm) {
    if (t.exposed_s > most) {
      most = t.exposed_s;
      name = t.name + " " + t.collective + " over " + t.link;
    }
  }
  if (p.host_s > most) {
    most = p.host_s;
    name = "host-bound issue";
  }
  if (p.bubble_s > most) {
    most = p.bubble_s;
    name = "pipeline bubble";
  }
  return fmt::format("largest term: {} ({:.0f}% of the step)", name, 100 * most / p.step_time_s);
}

// The suite's recipe of `w`: the model file's entry of the suite's release for the suite's chip
// (or the chip whose recipes it runs, [suite] recipes_of), weak-scaled where the file lists no
// entry for the GPU count. Where it is not the file's entry for this chip and count, `borrowed`
// gets what the row says of whose it is.
Result<Recipe> SuiteRecipe(const validate::Suite& suite, const validate::SuiteWorkload& w,
                           const predict::ModelSpec& model, const predict::Predictor& predictor,
                           std::string& borrowed) {
  predict::RecipeQuery q{.chip = suite.recipes_of.empty() ? suite.chip : suite.recipes_of,
                         .dtype = w.dtype,
                         .gpus = w.gpus,
                         .entry = predict::RecipeEntry::kOfRelease,
                         .release = suite.recipe_release,
                         .weak_scaling = true};
  q.overrides.global_batch = w.gbs;
  q.overrides.seq = w.seq_len;
  auto r = predictor.BuildRecipe(model, q);
  if (!r.ok()) return r.status();
  if (r->par.weak_scaled_from > 0)
    borrowed = "; recipe of the " + std::to_string(r->par.weak_scaled_from) +
               "-GPU entry, data parallelism scaled";
  if (r->par.chip != suite.chip) {
    borrowed += "; " + r->par.chip + "'s recipe ([suite] recipes_of)";
    r->par.chip = suite.chip;
  }
  return r;
}

// Without a comparable reference: the model's step anchored on the nearest published row of the
// same model and chip (the recipes' chip where the suite runs another's: its rows, predicted at
// its rates), at this cluster's rates.
Status AnchorRow(const validate::Suite& suite, const Recipe& r,
                 const predict::ReleaseConstantsChoice& chosen, double at_reference_s,
                 predict::Predictor& predictor, WorkloadPrediction& row) {
  Recipe on = r;
  if (!suite.recipes_of.empty()) on.par.chip = suite.recipes_of;
  auto anchor = predictor.AnchorOn(chosen, row.workload.dtype, on, at_reference_s);
  if (!anchor.ok()) return anchor.status();
  if (*anchor) {
    row.anchored_step_s = (*anchor)->anchored_s / *row.predicted_score;
    row.anchored_on = (*anchor)->Describe();
    row.anchored_expected_error = chosen.ExpectedLine({.anchored = true,
                                                       .anchor = &**anchor,
                                                       .precision = row.workload.dtype,
                                                       .moe = r.model->moe.has_value()});
  }
  return Status::Ok();
}

// The row of one workload: its model file, the suite's recipe of it, and the step predicted at the
// reference rates and at this cluster's.
Result<WorkloadPrediction> PredictWorkload(
    const validate::Suite& suite, const validate::ReferenceSet& refs,
    const SuitePredictionInputs& in, predict::Predictor& predictor, const bench::DeviceSpec& chip,
    const ReleaseChoice& release, const ReleaseSpread& spread, const validate::SuiteWorkload& w) {
  WorkloadPrediction row;
  row.workload = w;
  row.release = "constants of release " + (release.used.empty() ? "(base)" : release.used) +
                (release.note.empty() ? "" : " (" + release.note + ")");
  const Constants k = predictor.ConstantsOf(release, suite.chip, w.dtype);
  validate::ReferenceSet::Match match = refs.Find(suite.chip, w, suite.recipe_release);
  if (match.exact != nullptr) row.reference_step_s = match.exact->step_time_s;
  const std::string suffix = "_" + w.dtype;
  const std::string name =
      w.id.ends_with(suffix) ? w.id.substr(0, w.id.size() - suffix.size()) : w.id;
  // Resolved once: a catalogue name reads every model file to find its own.
  const std::string path = predictor.ModelPath(name);
  if (!std::filesystem::exists(path)) {
    row.why = "no model file models/" + name + ".toml (nor one whose workload_names lists it)";
    return row;
  }
  auto model = predictor.LoadModel(path);
  if (!model.ok()) return model.status();
  std::string borrowed;
  auto r = SuiteRecipe(suite, w, *model, predictor, borrowed);
  if (!r.ok()) {
    row.why = "no recipe: " + r.status().message();
    return row;
  }
  predict::RateInputs rates_in{.skip_unusable_documents = true, .sets = in.sets};
  for (const auto& [doc_path, doc] : in.measured) rates_in.measured.emplace_back(doc_path, &doc);
  auto rates = predictor.Rates(*r, chip, k, rates_in);
  if (!rates.ok()) return rates.status();
  auto at_reference = PredictStep(*r, rates->reference, k);
  auto here = predictor.PredictAt(*r, std::move(*rates), k);
  if (!at_reference.ok() || !here.ok()) {
    row.why =
        "cannot predict: " + (at_reference.ok() ? here.status() : at_reference.status()).message() +
        borrowed;
    return row;
  }
  row.model_step_s = here->step.step_time_s;
  row.predicted_score = at_reference->step_time_s / here->step.step_time_s;
  if (row.reference_step_s) {
    row.predicted_step_s = *row.reference_step_s / *row.predicted_score;
  } else {
    YS_RETURN_IF_ERROR(AnchorRow(suite, *r, predict::ReleaseConstantsChoice{release, k, spread},
                                 at_reference->step_time_s, predictor, row));
  }
  row.under = *row.predicted_score < suite.threshold;
  if (!here->what_if.empty() && here->what_if.front().recovery_s > 0) {
    const auto& top = here->what_if.front();
    row.why = fmt::format("{} costs {:.1f}% of the step (put back to the reference: {:.3f} s)",
                          top.key, 100 * top.recovery_share, top.restored_s);
  } else {
    row.why = Dominant(here->step);
  }
  if (!row.reference_step_s) {
    row.why += "; no comparable reference";
    if (row.anchored_step_s)
      row.why += fmt::format("; anchored {:.3f} s on {}; {}", *row.anchored_step_s, row.anchored_on,
                             row.anchored_expected_error);
  }
  row.why += borrowed;
  return row;
}

}  // namespace

Result<std::vector<WorkloadPrediction>> PredictSuite(const validate::Suite& suite,
                                                     const validate::ReferenceSet& refs,
                                                     const SuitePredictionInputs& in) {
  auto predictor = predict::Predictor::Open(in.data_dir);
  if (!predictor.ok()) return predictor.status();
  auto chip = predictor->LoadChip(suite.chip);
  if (!chip.ok()) return chip.status();
  auto release = predictor->ChooseRelease(suite.recipe_release, suite.chip);
  if (!release.ok()) return release.status();
  if (!release->chip && !suite.recipes_of.empty()) {
    // A chip no release calibrates, running another chip's recipes (and so its software), takes
    // that chip's constants.
    auto of = predictor->ChooseRelease(suite.recipe_release, suite.recipes_of);
    if (!of.ok()) return of.status();
    if (of->chip) {
      of->note = suite.chip + " takes " + suite.recipes_of + "'s constants ([suite] recipes_of)" +
                 (of->note.empty() ? "" : "; " + of->note);
      of->from = suite.recipes_of;
      release = std::move(of);
    }
  }
  auto spread = predictor->Spread();
  if (!spread.ok()) return spread.status();
  std::vector<WorkloadPrediction> out;
  for (const validate::SuiteWorkload& w : suite.workloads) {
    // The reference rates do not depend on the constants: a chip the calibration lacks is an
    // error of the suite, whichever workload meets it first.
    YS_RETURN_IF_ERROR(
        predictor->ReferenceRates(*chip, predictor->calibration().constants).status());
    auto row = PredictWorkload(suite, refs, in, *predictor, *chip, *release, *spread, w);
    if (!row.ok()) return row.status();
    out.push_back(std::move(*row));
  }
  return out;
}

}  // namespace ys::predict
