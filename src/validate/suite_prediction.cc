#include "validate/suite_prediction.h"

#include <fmt/format.h>

#include <filesystem>

#include "bench/device_specs.h"
#include "diagnose/rate_what_if.h"
#include "validate/release_calibration.h"
#include "validate/step_calibration.h"
#include "validate/step_rates.h"
#include "workloads/model_spec.h"
#include "workloads/predict/step_model.h"

namespace ys::validate {
namespace {

namespace wp = workloads::predict;

// The term of the breakdown that costs the most, as a reason.
std::string Dominant(const wp::StepPrediction& p) {
  std::string name = "compute";
  double most = p.compute_s;
  for (const wp::CommTerm& t : p.comm) {
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

}  // namespace

Result<std::vector<WorkloadPrediction>> PredictSuite(const Suite& suite, const ReferenceSet& refs,
                                                     const SuitePredictionInputs& in) {
  auto cal = LoadStepCalibration(StepCalibrationPath(in.data_dir));
  if (!cal.ok()) return cal.status();
  auto spec = bench::LoadDeviceSpec(in.data_dir + "/specs/" + suite.chip + ".toml");
  if (!spec.ok()) return spec.status();
  auto releases = LoadReleaseCalibration(in.data_dir);
  if (!releases.ok()) return releases.status();
  const ReleaseChoice release = ChooseRelease(*releases, suite.recipe_release, suite.chip);
  const ChipSystem* sys = cal->Chip(suite.chip);
  const bool blackwell = sys != nullptr && sys->family == "blackwell";
  std::vector<WorkloadPrediction> out;
  for (const SuiteWorkload& w : suite.workloads) {
    WorkloadPrediction row;
    row.workload = w;
    row.release = "constants of release " + (release.used.empty() ? "(base)" : release.used) +
                  (release.note.empty() ? "" : " (" + release.note + ")");
    const wp::Constants k = release.chip
                                ? ApplyRelease(cal->constants, *release.chip, w.dtype, blackwell)
                                : cal->constants;
    auto reference_rates = ReferenceRates(*spec, *cal, k);
    if (!reference_rates.ok()) return reference_rates.status();
    ReferenceSet::Match match = refs.Find(suite.chip, w, suite.recipe_release);
    if (match.exact != nullptr) row.reference_step_s = match.exact->step_time_s;
    const std::string suffix = "_" + w.dtype;
    const std::string name =
        w.id.ends_with(suffix) ? w.id.substr(0, w.id.size() - suffix.size()) : w.id;
    const std::string path = in.data_dir + "/models/" + name + ".toml";
    if (!std::filesystem::exists(path)) {
      row.why = "no model file models/" + name + ".toml";
      out.push_back(std::move(row));
      continue;
    }
    auto model = workloads::LoadModelSpec(path);
    if (!model.ok()) return model.status();
    auto par =
        workloads::FindRecipe(*model, suite.chip, w.dtype, w.gpus, suite.recipe_release, w.gbs);
    if (!par.ok()) par = workloads::FindParallelism(*model, suite.chip, w.dtype, w.gpus);
    if (!par.ok()) {
      row.why = "no recipe: " + par.status().message();
      out.push_back(std::move(row));
      continue;
    }
    wp::Recipe r;
    r.model = &*model;
    r.par = *par;
    r.par.global_batch = w.gbs;
    r.layers = model->shape.layers;
    r.seq = w.seq_len;
    r.dtype = w.dtype;
    wp::SystemRates rates = *reference_rates;
    for (const auto& [doc_path, doc] : in.measured) {
      auto taken = ApplyMeasured(rates, doc, doc_path, r);
      if (!taken.ok() && taken.status().code() != StatusCode::kInvalidInput) return taken.status();
    }
    for (const std::string& s : in.sets) YS_RETURN_IF_ERROR(ApplyRateOverride(rates, s));
    auto at_reference = wp::PredictStep(r, *reference_rates, k);
    auto here = wp::PredictStep(r, rates, k);
    if (!at_reference.ok() || !here.ok()) {
      row.why = "cannot predict: " +
                (at_reference.ok() ? here.status() : at_reference.status()).message();
      out.push_back(std::move(row));
      continue;
    }
    row.model_step_s = here->step_time_s;
    row.predicted_score = at_reference->step_time_s / here->step_time_s;
    if (row.reference_step_s) row.predicted_step_s = *row.reference_step_s / *row.predicted_score;
    row.under = *row.predicted_score < suite.threshold;
    auto ranked = diagnose::RankRateShortfalls(r, rates, *reference_rates, k);
    if (ranked.ok() && !ranked->empty() && ranked->front().recovery_s > 0) {
      const auto& top = ranked->front();
      row.why = fmt::format("{} costs {:.1f}% of the step (put back to the reference: {:.3f} s)",
                            top.key, 100 * top.recovery_share, top.restored_s);
    } else {
      row.why = Dominant(*here);
    }
    if (!row.reference_step_s) row.why += "; no comparable reference";
    out.push_back(std::move(row));
  }
  return out;
}

}  // namespace ys::validate
