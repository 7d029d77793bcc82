#include "predict/release_calibration.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "predict/anchor.h"

namespace ys::predict {
namespace {

constexpr int kReleaseFitIterations = 150;
constexpr int kReleaseFitRestarts = 2;

bool Fittable(const ReleaseCase& c) {
  return !c.row.anomaly && !ReleaseBefore(kNewestFittableRelease, c.row.release);
}

// One free constant of a chip fit: where it lives and its range.
struct Free {
  std::string precision;  // a GEMM share; empty for the two below
  double ChipConstants::*field = nullptr;
  double lo = 0, hi = 0;
  double* At(ChipConstants& k) const {
    return precision.empty() ? &(k.*field) : &k.gemm[precision];
  }
};

// Models among `rows` that satisfy `pred`.
template <typename Pred>
size_t ModelsWhere(const std::vector<const ReleaseCase*>& rows, Pred pred) {
  std::set<std::string> models;
  for (const ReleaseCase* c : rows) {
    if (pred(*c)) models.insert(c->model_name);
  }
  return models.size();
}

// The constants the rows can inform: each needs rows of kMinModelsPerConstant models (a constant
// fitted on one model's rows would be keyed to that model); the others keep the prior.
std::vector<Free> FreeConstants(const std::vector<const ReleaseCase*>& rows) {
  std::vector<Free> out;
  for (const char* p : kPrecisions) {
    if (ModelsWhere(rows, [&](const ReleaseCase& c) { return c.precision == p; }) >=
        kMinModelsPerConstant)
      out.push_back({p, nullptr, 0.05, 1});
  }
  if (ModelsWhere(rows, [](const ReleaseCase& c) {
        return c.recipe.par.tp * c.recipe.par.cp * c.recipe.par.pp > 1;
      }) >= kMinModelsPerConstant) {
    out.push_back({"", &ChipConstants::tp_exposed, 0.01, 1});
  }
  if (ModelsWhere(rows, [](const ReleaseCase& c) { return c.model->moe.has_value(); }) >=
      kMinModelsPerConstant) {
    out.push_back({"", &ChipConstants::moe_dispatch_passes, 1, 1000});
  }
  return out;
}

std::string FittedFrom(const std::vector<const ReleaseCase*>& rows) {
  std::string s;
  for (const char* p : kPrecisions) {
    const auto n = std::count_if(rows.begin(), rows.end(),
                                 [&](const ReleaseCase* c) { return c->precision == p; });
    if (n == 0) continue;
    const bool fitted = ModelsWhere(rows, [&](const ReleaseCase& c) { return c.precision == p; }) >=
                        kMinModelsPerConstant;
    s += (s.empty() ? "" : ", ") + std::string(p) + " " + std::to_string(n) +
         (fitted ? "" : " (one model: prior kept)");
  }
  return s;
}

// The constants of `rows` (one chip), drawn toward `prior` (kPriorRows rows per constant).
Result<ChipConstants> FitChip(const std::vector<const ReleaseCase*>& rows,
                              const ChipConstants& prior, const Constants& base) {
  if (rows.empty()) return prior;
  const std::vector<Free> free = FreeConstants(rows);
  ChipConstants start = prior;
  std::vector<double> x0, steps, centre;
  for (const Free& f : free) {
    centre.push_back(std::log(std::clamp(*f.At(start), f.lo, f.hi)));
    steps.push_back(0.1);
  }
  x0 = centre;
  auto at = [&](const std::vector<double>& x) {
    ChipConstants k = prior;
    for (size_t i = 0; i < free.size(); ++i) *free[i].At(k) = std::exp(x[i]);
    return k;
  };
  auto loss = [&](const std::vector<double>& x) {
    double sum = 0;
    for (size_t i = 0; i < free.size(); ++i) {
      const double v = std::exp(x[i]);
      if (!(v >= free[i].lo && v <= free[i].hi)) return std::numeric_limits<double>::infinity();
      const double d = x[i] - centre[i];
      sum += kPriorRows * d * d;
    }
    const ChipConstants k = at(x);
    for (const ReleaseCase* c : rows) {
      auto p = PredictReleaseCase(*c, base, k);
      if (!p.ok() || !(*p > 0)) return std::numeric_limits<double>::infinity();
      const double e = std::log(*p / c->row.step_time_s);
      sum += e * e;
    }
    return sum / rows.size();
  };
  if (!std::isfinite(loss(x0))) {
    for (const ReleaseCase* c : rows) {
      auto p = PredictReleaseCase(*c, base, start);
      if (!p.ok())
        return Status::Invalid(c->row.file + ":" + std::to_string(c->row.line) + ": " +
                               p.status().message());
    }
    return Status::Invalid("the prior constants are outside their ranges");
  }
  for (int i = 0; i < kReleaseFitRestarts; ++i)
    x0 = NelderMead(loss, x0, steps, kReleaseFitIterations);
  ChipConstants k = at(x0);
  std::set<std::string> models;
  for (const ReleaseCase* c : rows) models.insert(c->model_name);
  k.rows = static_cast<int>(rows.size());
  k.models = static_cast<int>(models.size());
  k.fitted_from = FittedFrom(rows);
  return k;
}

// The fittable rows of a chip, optionally of one release, optionally without one model,
// optionally of releases up to `up_to` only.
std::vector<const ReleaseCase*> Select(const ReleaseSet& set, std::string_view chip,
                                       std::string_view release, std::string_view without,
                                       std::string_view up_to = "") {
  std::vector<const ReleaseCase*> out;
  for (const ReleaseCase& c : set.cases()) {
    if (!Fittable(c) || c.row.chip != chip) continue;
    if (!release.empty() && c.row.release != release) continue;
    if (!up_to.empty() && ReleaseBefore(up_to, c.row.release)) continue;
    if (!without.empty() && c.model_name == without) continue;
    out.push_back(&c);
  }
  return out;
}

// The release × chip groups a calibration keeps: (release, chip) with rows of kMinModels models.
std::vector<std::pair<std::string, std::string>> CalibratedGroups(const ReleaseSet& set) {
  std::map<std::pair<std::string, std::string>, std::set<std::string>> models;
  for (const ReleaseCase& c : set.cases()) {
    if (Fittable(c)) models[{c.row.release, c.row.chip}].insert(c.model_name);
  }
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [key, m] : models) {
    if (static_cast<int>(m.size()) >= kMinModels) out.push_back(key);
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const auto& a, const auto& b) { return ReleaseBefore(a.first, b.first); });
  return out;
}

bool IsBlackwell(const ReleaseSet& set, std::string_view chip) {
  for (const ReleaseCase& c : set.cases()) {
    if (c.row.chip == chip) return c.blackwell;
  }
  return false;
}

// The chip's pooled fit (every fittable release, or those up to `up_to`), without `without` when
// given.
Result<ChipConstants> Pooled(const ReleaseSet& set, const Constants& base, const std::string& chip,
                             std::string_view without, std::string_view up_to = "") {
  return FitChip(Select(set, chip, "", without, up_to),
                 BaseChipConstants(base, chip, IsBlackwell(set, chip)), base);
}

// The relative errors of `rows` (of model `only` when given) under `k`, by precision and "all";
// with `anchored`, also those of the answers anchored on the nearest row of the same model and
// chip at or before `anchor_release` (predict/anchor.h), for the rows that have one.
Status AddErrors(const ReleaseSet& set, const std::vector<const ReleaseCase*>& rows,
                 std::string_view only, const Constants& base, const ChipConstants& k,
                 std::map<std::string, std::vector<double>>& errors,
                 const std::string& anchor_release = "",
                 std::map<std::string, std::vector<double>>* anchored = nullptr) {
  for (const ReleaseCase* c : rows) {
    if (!only.empty() && c->model_name != only) continue;
    auto p = PredictReleaseCase(*c, base, k);
    if (!p.ok()) return p.status();
    const double e = *p / c->row.step_time_s - 1;
    errors[c->precision].push_back(e);
    errors["all"].push_back(e);
    if (anchored == nullptr) continue;
    auto a = AnchorPrediction(set, anchor_release, c->precision, c->recipe, *p, base, k);
    if (!a.ok()) return a.status();
    if (!*a) continue;
    const double ae = (*a)->ErrorAgainst(c->row.step_time_s);
    (*anchored)[c->precision].push_back(ae);
    (*anchored)["all"].push_back(ae);
  }
  return Status::Ok();
}

}  // namespace

ChipConstants BaseChipConstants(const Constants& base, std::string_view chip, bool blackwell) {
  ChipConstants k;
  k.chip = std::string(chip);
  const double f = blackwell ? base.blackwell_efficiency : 1.0;
  k.gemm["bf16"] = base.gemm_efficiency_bf16 * f;
  for (const char* p : {"fp8_cs", "fp8_ds", "mxfp8"}) k.gemm[p] = base.gemm_efficiency_fp8 * f;
  k.gemm["nvfp4"] = base.gemm_efficiency_nvfp4 * f;
  k.tp_exposed = base.tp_exposed;
  k.moe_dispatch_passes = base.moe_dispatch_passes;
  return k;
}

const ChipConstants* ReleaseConstants::Chip(std::string_view chip) const {
  for (const ChipConstants& c : chips) {
    if (c.chip == chip) return &c;
  }
  return nullptr;
}

Constants ApplyRelease(const Constants& base, const ChipConstants& chip, std::string_view precision,
                       bool blackwell) {
  Constants k = base;
  const double f = blackwell ? base.blackwell_efficiency : 1.0;
  k.attention_efficiency = base.attention_efficiency * f;
  k.blackwell_efficiency = 1;
  const std::string p = CalibratedPrecision(precision);
  auto gemm = [&](const char* key, double fallback) {
    auto it = chip.gemm.find(key);
    return it != chip.gemm.end() ? it->second : fallback * f;
  };
  k.gemm_efficiency_bf16 = gemm("bf16", base.gemm_efficiency_bf16);
  k.gemm_efficiency_nvfp4 = gemm("nvfp4", base.gemm_efficiency_nvfp4);
  // An nvfp4 recipe's fp8 modules (module_precision) run MXFP8, the fp8 format of the
  // Blackwell chips that nvfp4 needs.
  const std::string fp8 = p == "fp8_ds" || p == "mxfp8" ? p : p == "nvfp4" ? "mxfp8" : "fp8_cs";
  k.gemm_efficiency_fp8 = gemm(fp8.c_str(), base.gemm_efficiency_fp8);
  k.tp_exposed = chip.tp_exposed;
  k.moe_dispatch_passes = chip.moe_dispatch_passes;
  return k;
}

Result<double> PredictReleaseCase(const ReleaseCase& c, const Constants& base,
                                  const ChipConstants& k) {
  auto p = PredictStep(c.recipe, c.work, c.rates, ApplyRelease(base, k, c.precision, c.blackwell));
  if (!p.ok()) return p.status();
  return p->step_time_s;
}

ReleaseChoice ChooseRelease(const ReleaseCalibration& cal, std::string_view release,
                            std::string_view chip, std::string_view constants_from) {
  ReleaseChoice out;
  out.asked = release.empty() ? NewestRelease(cal) : std::string(release);
  const ReleaseConstants* oldest = nullptr;
  const ReleaseConstants* used = nullptr;
  for (const ReleaseConstants& r : cal.releases) {
    if (r.Chip(chip) == nullptr) continue;
    if (oldest == nullptr) oldest = &r;
    if (!ReleaseBefore(out.asked, r.release)) used = &r;
  }
  const std::string c(chip);
  if (used == nullptr && oldest == nullptr) {
    ReleaseChoice of;
    if (!constants_from.empty()) of = ChooseRelease(cal, release, constants_from);
    if (of.chip) {
      of.from = std::string(constants_from);
      of.note = c + " takes " + of.from + "'s constants (no release is calibrated for " + c +
                "; the same die: calibration/step_model.toml constants_from)" +
                (of.note.empty() ? "" : "; " + of.note);
      return of;
    }
    out.note = "no release is calibrated for " + c + "; using the base constants";
    return out;
  }
  if (used == nullptr) {
    used = oldest;
    out.note = "release " + out.asked + " is older than every release calibrated for " + c +
               "; using the oldest, " + used->release;
  } else if (used->release != out.asked) {
    out.note = "release " + out.asked + " is not calibrated for " + c +
               "; using the nearest older one, " + used->release;
  }
  out.used = used->release;
  out.chip = *used->Chip(chip);
  return out;
}

std::string NewestRelease(const ReleaseCalibration& cal) {
  return cal.releases.empty() ? "" : cal.releases.back().release;
}

Result<ReleaseCalibration> FitReleases(const ReleaseSet& set, const StepCalibration& cal) {
  ReleaseCalibration out;
  out.tables = "baselines/published/*.tsv, releases up to " + std::string(kNewestFittableRelease) +
               ", rows marked anomaly left out";
  std::map<std::string, ChipConstants> pooled;
  for (const auto& [release, chip] : CalibratedGroups(set)) {
    if (!pooled.count(chip)) {
      auto p = Pooled(set, cal.constants, chip, "");
      if (!p.ok()) return Status::Invalid(chip + " (pooled): " + p.status().message());
      pooled[chip] = *p;
    }
    auto k = FitChip(Select(set, chip, release, ""), pooled[chip], cal.constants);
    if (!k.ok()) return Status::Invalid(release + " " + chip + ": " + k.status().message());
    k->chip = chip;
    if (out.releases.empty() || out.releases.back().release != release)
      out.releases.push_back({release, {}});
    out.releases.back().chips.push_back(*k);
  }
  return out;
}

void AttachMeasuredErrors(ReleaseCalibration& cal, const std::vector<LomoCell>& lomo,
                          const std::vector<ForwardCell>& forward) {
  for (ReleaseConstants& r : cal.releases) {
    for (ChipConstants& k : r.chips) {
      for (const LomoCell& c : lomo) {
        if (c.release == r.release && c.chip == k.chip && c.precision == "all") k.lomo = c.stats;
      }
      for (const ForwardCell& c : forward) {
        if (c.release == r.release && c.chip == k.chip && c.precision == "all") {
          k.next = c.stats;
          k.anchored = c.anchored;
        }
      }
    }
  }
}

Result<std::vector<LomoCell>> LeaveOneModelOutByRelease(const ReleaseSet& set,
                                                        const StepCalibration& cal) {
  std::map<std::pair<std::string, std::string>, ChipConstants> pooled;  // (chip, without)
  std::vector<LomoCell> cells;
  for (const auto& [release, chip] : CalibratedGroups(set)) {
    const std::vector<const ReleaseCase*> group = Select(set, chip, release, "");
    std::map<std::string, std::vector<double>> errors;  // by precision, and "all"
    std::set<std::string> models;
    for (const ReleaseCase* c : group) models.insert(c->model_name);
    for (const std::string& m : models) {
      if (!pooled.count({chip, m})) {
        auto p = Pooled(set, cal.constants, chip, m);
        if (!p.ok()) return p.status();
        pooled[{chip, m}] = *p;
      }
      auto k = FitChip(Select(set, chip, release, m), pooled[{chip, m}], cal.constants);
      if (!k.ok()) return k.status();
      YS_RETURN_IF_ERROR(AddErrors(set, group, m, cal.constants, *k, errors));
    }
    for (const auto& [precision, e] : errors)
      cells.push_back({release, chip, precision, SummariseErrors(e)});
  }
  return cells;
}

Result<std::vector<ForwardCell>> NextReleaseForward(const ReleaseSet& set,
                                                    const StepCalibration& cal) {
  std::vector<ForwardCell> cells;
  std::map<std::string, std::string> previous;  // chip -> the newest calibrated release so far
  for (const auto& [release, chip] : CalibratedGroups(set)) {
    auto prev = previous.find(chip);
    if (prev != previous.end()) {
      const std::string& older = prev->second;
      auto prior = Pooled(set, cal.constants, chip, "", older);
      if (!prior.ok()) return prior.status();
      auto k = FitChip(Select(set, chip, older, ""), *prior, cal.constants);
      if (!k.ok()) return k.status();
      std::map<std::string, std::vector<double>> errors, anchored;
      YS_RETURN_IF_ERROR(AddErrors(set, Select(set, chip, release, ""), "", cal.constants, *k,
                                   errors, older, &anchored));
      for (const auto& [precision, e] : errors)
        cells.push_back({release, older, chip, precision, SummariseErrors(e),
                         SummariseErrors(anchored[precision])});
    }
    previous[chip] = release;
  }
  return cells;
}

}  // namespace ys::predict
