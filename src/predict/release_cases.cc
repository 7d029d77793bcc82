#include "predict/release_cases.h"

#include <algorithm>
#include <cmath>

#include "core/text.h"
#include "predict/recipe_overrides.h"
#include "predict/step_rates.h"

namespace ys::predict {
namespace {

// The step model's recompute of a table's recompute field: full for "layers=N" (full recompute of
// the first N layers of each pipeline chunk, Megatron's recompute_method "block", which the
// performance scripts set with recompute_num_layers) or "full"; else the table's modules as they
// are (published_table.cc has checked them).
void RecomputeOf(const std::string& t, predict::RecipeOverrides& o) {
  const size_t at = t.find("layers=");
  if (at != std::string::npos) {
    o.recompute = "full";
    const std::string_view n = std::string_view(t).substr(at + 7);
    if (auto v = ParseInt(n.substr(0, n.find(','))); v && *v >= 1 && *v <= 100000)
      o.recompute_layers = static_cast<int>(*v);
  } else {
    o.recompute = t;
  }
}

// The row's stated recipe fields: its GPU count, batches and sequence always, the rest where
// the table states them.
predict::RecipeOverrides OverridesOfRow(const PublishedRow& row) {
  predict::RecipeOverrides o{.tp = row.tp,
                             .pp = row.pp,
                             .cp = row.cp,
                             .ep = row.ep,
                             .etp = row.etp,
                             .vp = row.vp,
                             .micro_batch = row.mbs,
                             .global_batch = row.gbs,
                             .seq = row.seq,
                             .layers = row.layers,
                             .mtp_layers = row.mtp_layers,
                             .moe_token_drop = row.token_drop,
                             .moe_a2a_overlap = row.a2a_overlap};
  if (row.fsdp) o.fsdp = *row.fsdp > 0;
  // HybridEP, like DeepEP, sends a token once per remote NVLink domain that holds one of its
  // experts and runs dropless routing without a host synchronisation.
  if (!row.dispatcher.empty())
    o.moe_dispatcher = row.dispatcher == "alltoall" ? "alltoall" : "deepep";
  if (!row.recompute.empty()) RecomputeOf(row.recompute, o);
  o.cuda_graphs = row.cuda_graphs;
  return o;
}

}  // namespace

std::vector<int> ReleaseNumbers(std::string_view release) {
  std::vector<int> out;
  int cur = -1;
  for (char ch : release) {
    if (ch >= '0' && ch <= '9') {
      cur = (cur < 0 ? 0 : cur * 10) + (ch - '0');
      if (cur > 1000000) cur = 1000000;
    } else if (cur >= 0) {
      out.push_back(cur);
      cur = -1;
    }
  }
  if (cur >= 0) out.push_back(cur);
  return out;
}

bool ReleaseBefore(std::string_view a, std::string_view b) {
  const std::vector<int> x = ReleaseNumbers(a), y = ReleaseNumbers(b);
  return x != y ? x < y : a < b;
}

const predict::Parallelism* NewestEntry(
    const predict::ModelSpec& model, std::string_view up_to,
    const std::function<bool(const predict::Parallelism&)>& keep,
    const std::function<double(const predict::Parallelism&)>& cost) {
  auto at_or_before = [&](const predict::Parallelism& p) {
    return up_to.empty() || p.release.empty() || !ReleaseBefore(up_to, p.release);
  };
  auto newer = [](const predict::Parallelism& a, const predict::Parallelism& b) {
    if (a.release.empty() != b.release.empty()) return a.release.empty();
    return ReleaseBefore(b.release, a.release);
  };
  const predict::Parallelism* best = nullptr;
  for (const predict::Parallelism& p : model.parallelism) {
    if (!keep(p) || !at_or_before(p)) continue;
    if (best == nullptr || (p.release != best->release && newer(p, *best)) ||
        (p.release == best->release && cost(p) < cost(*best))) {
      best = &p;
    }
  }
  return best;
}

const predict::Parallelism* FeatureDonor(const predict::ModelSpec& model, const PublishedRow& row,
                                         std::string_view dtype) {
  // The row's dtype before another, then the nearest GPU count and global batch.
  auto rank = [&](const predict::Parallelism& p) {
    return (p.dtype == dtype ? 0 : 100) +
           std::fabs(std::log2(static_cast<double>(row.gpus) / std::max(1, p.gpus))) +
           1e-3 * std::fabs(std::log2(static_cast<double>(row.gbs) / std::max(1, p.global_batch)));
  };
  return NewestEntry(
      model, row.release, [&](const predict::Parallelism& p) { return p.chip == row.chip; }, rank);
}

Recipe RecipeOfRow(const PublishedRow& row, const predict::ModelSpec& model) {
  Recipe r;
  r.model = &model;
  r.dtype = DtypeOfPrecision(row.precision);
  auto entry = predict::FindRecipe(model, row.chip, r.dtype, row.gpus, row.release, row.gbs);
  if (entry.ok()) {
    r.par = *entry;
  } else {
    r.par.source = row.file + ":" + std::to_string(row.line);
    if (const predict::Parallelism* d = FeatureDonor(model, row, r.dtype)) {
      // The software features the row does not state (its layout it states, or it is the
      // default) come from the nearest entry: a feature holds from the release that brought it
      // until a table says otherwise.
      predict::Parallelism& p = r.par;
      p.moe_dispatcher = d->moe_dispatcher;
      p.moe_token_drop = d->moe_token_drop;
      p.moe_a2a_overlap = d->moe_a2a_overlap;
      p.cuda_graphs = d->cuda_graphs;
      p.recompute = d->recompute;
      p.recompute_layers = d->recompute_layers;
      p.mtp_layers = d->mtp_layers;
      p.bf16_layers = d->bf16_layers;
      p.module_precision = d->module_precision;
      p.attention_backend = d->attention_backend;
      p.fsdp = d->fsdp;
      p.dp_overlap = d->dp_overlap;
      if (d->etp == 1) p.etp = 1;
      p.source += "; features unstated there: the entry of release " +
                  (d->release.empty() ? std::string("current") : d->release) + " at " +
                  std::to_string(d->gpus) + " GPUs (" + d->source + ")";
    }
  }
  r.par.chip = row.chip;
  r.par.dtype = r.dtype;
  r.par.gpus = row.gpus;
  const predict::RecipeOverrides o = OverridesOfRow(row);
  predict::LayOver(o, r.par);
  r.layers = o.layers.value_or(model.shape.layers);
  r.seq = row.seq;
  return r;
}

Result<ReleaseSet> ReleaseSet::Load(const std::string& data_dir, const StepCalibration& cal) {
  ReleaseSet set;
  auto rows = LoadPublishedTables(data_dir + "/baselines/published");
  if (!rows.ok()) return rows.status();
  auto library = predict::ModelLibrary::Load(data_dir);
  if (!library.ok()) return library.status();
  set.library_ = std::move(*library);
  Constants unit = cal.constants;
  unit.blackwell_efficiency = 1;
  for (PublishedRow& row : *rows) {
    const std::string where = row.file + ":" + std::to_string(row.line) + ": ";
    if (!row.unsupported.empty()) {
      set.skipped_.push_back({row.release, where + row.unsupported});
      continue;
    }
    std::string name = row.model;
    if (name.ends_with("_proxy")) name.resize(name.size() - 6);
    const predict::ModelSpec* model = set.library_.Model(name);
    if (model == nullptr) {
      set.skipped_.push_back({row.release, where + "no model file models/" + name + ".toml"});
      continue;
    }
    const bench::DeviceSpec* spec = set.library_.Chip(row.chip);
    const ChipSystem* sys = cal.Chip(row.chip);
    if (spec == nullptr || sys == nullptr) {
      set.skipped_.push_back(
          {row.release, where + "no specs/ or calibration entry for chip " + row.chip});
      continue;
    }
    auto rates = ReferenceRates(*spec, cal, unit);
    if (!rates.ok()) return Status::Invalid(where + rates.status().message());
    ReleaseCase c;
    c.model_name = name;
    c.precision = CalibratedPrecision(row.precision);
    c.model = model;
    c.recipe = RecipeOfRow(row, *model);
    c.rates = std::move(*rates);
    c.blackwell = sys->family == "blackwell";
    c.constants_from = sys->constants_from;
    auto work = ComputeStepWork(c.recipe);
    auto check = work.ok() ? PredictStep(c.recipe, *work, c.rates, unit)
                           : Result<StepPrediction>(work.status());
    if (!check.ok()) {
      // A table's parallelism the step model cannot lay out (a parenthesised figure whose own
      // layout the table does not give): listed, never fitted.
      set.skipped_.push_back({row.release, where + check.status().message()});
      continue;
    }
    c.work = std::move(*work);
    c.row = std::move(row);
    set.cases_.push_back(std::move(c));
  }
  if (set.cases_.empty()) return Status::Invalid(data_dir + "/baselines/published: no row");
  return set;
}

}  // namespace ys::predict
