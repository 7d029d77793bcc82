#include "predict/suite/published_predictions.h"

#include <algorithm>
#include <filesystem>

#include "predict/step_rates.h"

namespace ys::predict {

using predict::Constants;
using predict::StepPrediction;

Result<PublishedSet> PublishedSet::Load(const std::string& data_dir) {
  PublishedSet set;
  auto library = predict::ModelLibrary::Load(data_dir);
  if (!library.ok()) return library.status();
  set.library_ = std::move(*library);
  auto refs = validate::ReferenceSet::LoadDirectory(data_dir + "/baselines");
  if (!refs.ok()) return refs.status();
  for (const validate::Reference& ref : refs->all()) {
    if (ref.provenance.kind != "published") continue;
    const std::string row = ref.provenance.path + ": " + ref.workload + " at " +
                            std::to_string(ref.gpus) + " GPUs, GBS " + std::to_string(ref.gbs);
    const std::string suffix = "_" + ref.dtype;
    if (ref.workload.size() <= suffix.size() ||
        ref.workload.compare(ref.workload.size() - suffix.size(), suffix.size(), suffix) != 0) {
      return Status::Invalid(row + ": the workload id does not end in _" + ref.dtype);
    }
    const std::string name = ref.workload.substr(0, ref.workload.size() - suffix.size());
    const predict::ModelSpec* model = set.library_.Model(name);
    if (model == nullptr)
      return Status::Invalid(row + ": no model file " + data_dir + "/models/" + name + ".toml");
    const bench::DeviceSpec* spec = set.library_.Chip(ref.provenance.chip);
    if (spec == nullptr)
      return Status::Invalid(row + ": no specs/ file for chip " + ref.provenance.chip);
    auto par = predict::FindRecipe(*model, ref.provenance.chip, ref.dtype, ref.gpus,
                                   ref.provenance.release, ref.gbs);
    if (!par.ok()) return Status::Invalid(row + ": " + par.status().message());
    PublishedCase c;
    c.ref = ref;
    c.model = model;
    c.spec = spec;
    c.recipe.model = model;
    c.recipe.par = *par;
    c.recipe.layers = model->shape.layers;
    c.recipe.seq = ref.seq_len;
    c.recipe.dtype = ref.dtype;
    c.held_out = predict::HeldOut(ref.workload);
    set.cases_.push_back(std::move(c));
  }
  if (set.cases_.empty()) return Status::Invalid(data_dir + "/baselines: no published row");
  return set;
}

Result<StepPrediction> PredictCase(const PublishedCase& c, const StepCalibration& cal,
                                   const Constants& k) {
  auto rates = ReferenceRates(*c.spec, cal, k);
  if (!rates.ok()) return rates.status();
  return predict::PredictStep(c.recipe, *rates, k);
}

Result<ErrorTable> EvaluatePublished(const PublishedSet& set, const StepCalibration& cal,
                                     const Constants& k) {
  ErrorTable t;
  std::vector<double> fitted, held;
  for (const PublishedCase& c : set.cases()) {
    auto p = PredictCase(c, cal, k);
    if (!p.ok()) return Status::Invalid(c.ref.workload + ": " + p.status().message());
    ErrorRow row{&c, *p, p->step_time_s / c.ref.step_time_s - 1};
    (c.held_out ? held : fitted).push_back(row.error);
    t.rows.push_back(std::move(row));
  }
  t.fitted = predict::SummariseErrors(fitted);
  t.held_out = predict::SummariseErrors(held);
  return t;
}

namespace {

// The constants fitted on the rows `in_fit` accepts, starting from `cal`'s.
template <typename Pred>
Result<Constants> FitOn(const PublishedSet& set, const StepCalibration& cal, Pred in_fit) {
  std::vector<predict::FitRow> rows;
  for (const PublishedCase& c : set.cases()) {
    if (!in_fit(c)) continue;
    rows.push_back(
        {c.ref.workload, c.ref.step_time_s, [&c, &cal](const Constants& k) -> Result<double> {
           auto p = PredictCase(c, cal, k);
           if (!p.ok()) return p.status();
           return p->step_time_s;
         }});
  }
  return predict::FitConstants(rows, cal.constants);
}

}  // namespace

Result<Constants> FitPublished(const PublishedSet& set, const StepCalibration& cal) {
  return FitOn(set, cal, [](const PublishedCase& c) { return !c.held_out; });
}

Result<CrossValidation> LeaveOneModelOut(const PublishedSet& set, const StepCalibration& cal) {
  std::vector<std::string> families;
  for (const PublishedCase& c : set.cases()) {
    if (std::find(families.begin(), families.end(), c.ref.model) == families.end())
      families.push_back(c.ref.model);
  }
  CrossValidation cv;
  std::vector<double> all;
  for (const std::string& family : families) {
    auto k = FitOn(set, cal, [&](const PublishedCase& c) { return c.ref.model != family; });
    if (!k.ok()) return Status::Invalid("without " + family + ": " + k.status().message());
    FamilyFold fold{family, {}, {}};
    for (const PublishedCase& c : set.cases()) {
      if (c.ref.model != family) continue;
      auto p = PredictCase(c, cal, *k);
      if (!p.ok()) return Status::Invalid(c.ref.workload + ": " + p.status().message());
      fold.errors.push_back(p->step_time_s / c.ref.step_time_s - 1);
    }
    fold.stats = predict::SummariseErrors(fold.errors);
    all.insert(all.end(), fold.errors.begin(), fold.errors.end());
    cv.folds.push_back(std::move(fold));
  }
  cv.all = predict::SummariseErrors(all);
  return cv;
}

}  // namespace ys::predict
