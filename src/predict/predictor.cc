#include "predict/predictor.h"

#include <filesystem>
#include <set>

#include "predict/published_table.h"
#include "predict/release_cases.h"
#include "predict/step_rates.h"

namespace ys::predict {
namespace {

// The entry `q` names, or the lookup's status.
Result<predict::Parallelism> EntryOf(const predict::ModelSpec& model, const RecipeQuery& q) {
  if (q.entry == RecipeEntry::kCurrentBase) {
    // The current entries; a file without any for the chip and dtype: the newest release's (at or
    // before `release` when one is asked).
    auto pick = [&](auto&& of) {
      const predict::Parallelism* base = nullptr;
      for (const auto& p : model.parallelism) {
        if (p.chip != q.chip || p.dtype != q.dtype || !of(p)) continue;
        if (q.gpus ? p.gpus == *q.gpus : (base == nullptr || p.gpus < base->gpus)) base = &p;
      }
      return base;
    };
    const predict::Parallelism* base =
        pick([](const predict::Parallelism& p) { return p.IsCurrent(); });
    if (base == nullptr) {
      const predict::Parallelism* newest = predict::NewestEntry(
          model, q.release,
          [&](const auto& p) {
            return p.chip == q.chip && p.dtype == q.dtype && !p.release.empty();
          },
          [](const auto&) { return 0.0; });
      if (newest != nullptr)
        base = pick([&](const predict::Parallelism& p) { return p.release == newest->release; });
    }
    if (base != nullptr) return *base;
    auto found = predict::FindParallelism(model, q.chip, q.dtype, q.gpus.value_or(0));
    return Status::NotFound(found.status().message());
  }
  if (q.entry == RecipeEntry::kOfRelease) {
    auto found = predict::FindRecipe(model, q.chip, q.dtype, q.gpus.value_or(0), q.release,
                                     q.overrides.global_batch.value_or(0));
    if (found.ok()) return found;
    // The recipe the newest release at or before `release` ran at this GPU count (the asked
    // global batch first): a recipe holds until a newer release replaces it.
    if (!q.release.empty()) {
      const predict::Parallelism* best = predict::NewestEntry(
          model, q.release,
          [&](const auto& p) {
            return p.chip == q.chip && p.dtype == q.dtype && q.gpus && p.gpus == *q.gpus &&
                   !p.release.empty();
          },
          [&](const auto& p) {
            return p.global_batch == q.overrides.global_batch.value_or(0) ? 0.0 : 1.0;
          });
      if (best != nullptr) return *best;
    }
  }
  auto found = predict::FindParallelism(model, q.chip, q.dtype, q.gpus.value_or(0));
  if (found.ok() || !q.weak_scaling || !q.gpus) return found;
  auto scaled = predict::WeakScaledParallelism(model, q.chip, q.dtype, *q.gpus);
  if (!scaled.ok()) return found;
  return scaled;
}

// `rates` with the measured documents' rates and the --set overrides laid over; the lines of what
// the documents gave into `taken`.
Status LayRatesOver(const Recipe& recipe, const RateInputs& in, SystemRates& rates,
                    std::vector<std::string>& taken) {
  for (const auto& [path, doc] : in.measured) {
    auto got = predict::ApplyMeasured(rates, *doc, path, recipe);
    if (!got.ok()) {
      if (in.skip_unusable_documents && got.status().code() == StatusCode::kInvalidInput) continue;
      return got.status();
    }
    taken.insert(taken.end(), got->taken.begin(), got->taken.end());
  }
  for (const std::string& s : in.sets) YS_RETURN_IF_ERROR(predict::ApplyRateOverride(rates, s));
  return Status::Ok();
}

}  // namespace

Result<Predictor> Predictor::Open(const std::string& data_dir) {
  auto cal = predict::LoadStepCalibration(predict::StepCalibrationPath(data_dir));
  if (!cal.ok()) return cal.status();
  Predictor p;
  p.data_dir_ = data_dir;
  p.cal_ = std::move(*cal);
  return p;
}

std::string Predictor::ModelPath(const std::string& model) const {
  if (model.find('/') != std::string::npos || model.ends_with(".toml")) return model;
  const std::string path = data_dir_ + "/models/" + model + ".toml";
  if (std::filesystem::exists(path)) return path;
  // A catalogue's name of a model ([model] workload_names); with a models/ that does not load, the
  // plain path (loading the broken file by its own name says why).
  auto specs = predict::LoadModelSpecs(data_dir_ + "/models");
  if (!specs.ok()) return path;
  for (const predict::ModelSpec& spec : *specs) {
    for (const std::string& n : spec.workload_names) {
      if (n == model) return spec.path;
    }
  }
  return path;
}

Result<predict::ModelSpec> Predictor::LoadModel(const std::string& model) const {
  const std::string path = ModelPath(model);
  if (path != model && !std::filesystem::exists(path)) {
    return Status::Invalid("--model " + model + ": no " + path +
                           " (give a name from models/ or a path to a model file)");
  }
  return predict::LoadModelSpec(path);
}

Result<bench::DeviceSpec> Predictor::LoadChip(const std::string& chip) const {
  return bench::LoadDeviceSpec(data_dir_ + "/specs/" + chip + ".toml");
}

Result<predict::ReleaseChoice> Predictor::ChooseRelease(const std::string& release,
                                                        const std::string& chip) const {
  auto file = predict::LoadReleaseCalibration(data_dir_);
  if (!file.ok()) return file.status();
  const predict::ChipSystem* sys = cal_.Chip(chip);
  return predict::ChooseRelease(*file, release, chip,
                                sys != nullptr ? sys->constants_from : std::string());
}

Constants Predictor::ConstantsOf(const predict::ReleaseChoice& choice, const std::string& chip,
                                 const std::string& precision) const {
  if (!choice.chip) return cal_.constants;
  const predict::ChipSystem* sys = cal_.Chip(chip);
  return predict::ApplyRelease(cal_.constants, *choice.chip, precision,
                               sys != nullptr && sys->family == "blackwell");
}

namespace {

// The release-to-release spread of <data>/baselines/published/*.tsv, a model's kind from its
// models/ file (a model without one counts as dense).
Result<predict::ReleaseSpread> ReleaseSpreadOf(const std::string& data_dir) {
  auto rows = predict::LoadPublishedTables(data_dir + "/baselines/published");
  if (!rows.ok()) return rows.status();
  auto specs = predict::LoadModelSpecs(data_dir + "/models");
  if (!specs.ok()) return specs.status();
  std::set<std::string> moe;
  for (const predict::ModelSpec& spec : *specs) {
    if (spec.moe.has_value()) moe.insert(std::filesystem::path(spec.path).stem().string());
  }
  return predict::MeasureReleaseSpread(
      *rows, [&](const std::string& model) { return moe.contains(model); });
}

}  // namespace

Result<predict::ReleaseSpread> Predictor::Spread() const { return ReleaseSpreadOf(data_dir_); }

Result<ReleaseConstantsChoice> Predictor::Release(const std::string& release,
                                                  const std::string& chip,
                                                  const std::string& precision) const {
  if (predict::DtypeOfPrecision(precision).empty()) {
    return Status::Invalid("--dtype " + precision +
                           ": expected bf16, fp8, fp8_cs, fp8_ds, mxfp8 or nvfp4");
  }
  if (!release.empty() && predict::ReleaseNumbers(release).empty())
    return Status::Invalid("--release " + release + ": expected a release tag such as 26.04.01");
  auto choice = ChooseRelease(release, chip);
  if (!choice.ok()) return choice.status();
  ReleaseConstantsChoice out;
  out.choice = std::move(*choice);
  out.constants = ConstantsOf(out.choice, chip, precision);
  auto spread = Spread();
  if (!spread.ok()) return spread.status();
  out.spread = *spread;
  return out;
}

Result<Recipe> Predictor::BuildRecipe(const predict::ModelSpec& model, const RecipeQuery& q) const {
  Recipe r;
  r.model = &model;
  r.dtype = q.dtype;
  auto found = EntryOf(model, q);
  if (found.ok()) {
    r.par = *found;
  } else if (q.bare_without_entry && q.overrides.global_batch) {
    r.par.chip = q.chip;
    r.par.dtype = q.dtype;
    r.par.gpus = q.gpus.value_or(0);
    r.par.micro_batch = 1;
    r.par.source = "command line";
  } else {
    return Status::NotFound(found.status().message());
  }
  LayOver(q.overrides, r.par);
  r.layers = q.overrides.layers.value_or(model.shape.layers);
  r.seq = q.overrides.seq.value_or(model.shape.seq_length);
  return r;
}

Result<SystemRates> Predictor::ReferenceRates(const bench::DeviceSpec& chip,
                                              const Constants& k) const {
  return predict::ReferenceRates(chip, cal_, k);
}

Result<PredictionRates> Predictor::Rates(const Recipe& recipe, const bench::DeviceSpec& chip,
                                         const Constants& k, const RateInputs& in) const {
  PredictionRates out;
  auto reference = ReferenceRates(chip, k);
  if (!reference.ok()) return reference.status();
  out.reference = std::move(*reference);
  out.rates = out.reference;
  YS_RETURN_IF_ERROR(LayRatesOver(recipe, in, out.rates, out.measured));
  return out;
}

Result<Prediction> Predictor::PredictAt(const Recipe& recipe, PredictionRates rates,
                                        const Constants& k) const {
  auto step = PredictStep(recipe, rates.rates, k);
  if (!step.ok()) return step.status();
  Prediction out;
  static_cast<PredictionRates&>(out) = std::move(rates);
  out.step = std::move(*step);
  auto what_if = predict::RankRateShortfalls(recipe, out.rates, out.reference, k);
  if (what_if.ok()) {
    out.what_if = std::move(*what_if);
  } else {
    out.what_if_status = what_if.status();
  }
  return out;
}

Result<Prediction> Predictor::Predict(const Recipe& recipe, const bench::DeviceSpec& chip,
                                      const Constants& k, const RateInputs& in) const {
  auto rates = Rates(recipe, chip, k, in);
  if (!rates.ok()) return rates.status();
  return PredictAt(recipe, std::move(*rates), k);
}

Result<std::optional<predict::Anchor>> Predictor::AnchorOn(const ReleaseConstantsChoice& chosen,
                                                           const std::string& precision,
                                                           const Recipe& recipe,
                                                           double predicted_s) {
  if (!chosen.choice.chip) return std::optional<predict::Anchor>();
  if (release_rows_ == nullptr) {
    auto loaded = predict::ReleaseSet::Load(data_dir_, cal_);
    if (!loaded.ok()) return loaded.status();
    release_rows_ = std::make_shared<const predict::ReleaseSet>(std::move(*loaded));
  }
  return predict::AnchorPrediction(*release_rows_, chosen.choice.used, precision, recipe,
                                   predicted_s, cal_.constants, *chosen.choice.chip);
}

}  // namespace ys::predict
