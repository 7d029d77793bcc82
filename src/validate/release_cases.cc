#include "validate/release_cases.h"

#include <map>

#include "validate/step_rates.h"

namespace ys::validate {
namespace {

namespace wp = workloads::predict;

// The step model's recompute of a table's recompute field: full for "layers=N" or "full", the
// attention core (selective) for core_attn, MLA's up-projections for mla_up_proj; the modules the
// model does not price (mlp, moe_act, layernorm: elementwise, a few percent) as none.
std::string RecomputeOf(const std::string& t) {
  if (t.find("layers=") != std::string::npos || t.find("full") != std::string::npos) return "full";
  if (t.find("core_attn") != std::string::npos) return "selective";
  if (t.find("mla_up_proj") != std::string::npos) return "mla_up_proj";
  return "none";
}

void LayRowOver(const PublishedRow& row, workloads::Parallelism& p) {
  p.chip = row.chip;
  p.dtype = DtypeOfPrecision(row.precision);
  p.gpus = row.gpus;
  p.global_batch = row.gbs;
  p.micro_batch = row.mbs;
  if (row.tp) p.tp = *row.tp;
  if (row.pp) p.pp = *row.pp;
  if (row.cp) p.cp = *row.cp;
  if (row.ep) p.ep = *row.ep;
  if (row.vp) p.vp = *row.vp;
  if (row.etp) p.etp = *row.etp;
  if (row.fsdp) p.fsdp = *row.fsdp > 0;
  // HybridEP, like DeepEP, sends a token once per remote NVLink domain that holds one of its
  // experts and runs dropless routing without a host synchronisation.
  if (!row.dispatcher.empty())
    p.moe_dispatcher = row.dispatcher == "alltoall" ? "alltoall" : "deepep";
  if (row.token_drop) p.moe_token_drop = *row.token_drop;
  if (row.a2a_overlap) p.moe_a2a_overlap = *row.a2a_overlap;
  if (!row.recompute.empty()) p.recompute = RecomputeOf(row.recompute);
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
  return ReleaseNumbers(a) < ReleaseNumbers(b);
}

wp::Recipe RecipeOfRow(const PublishedRow& row, const workloads::ModelSpec& model) {
  wp::Recipe r;
  r.model = &model;
  r.dtype = DtypeOfPrecision(row.precision);
  auto entry = workloads::FindRecipe(model, row.chip, r.dtype, row.gpus, row.release, row.gbs);
  if (entry.ok()) {
    r.par = *entry;
  } else {
    r.par.source = row.file + ":" + std::to_string(row.line);
  }
  LayRowOver(row, r.par);
  r.layers = row.layers.value_or(model.shape.layers);
  r.seq = row.seq;
  return r;
}

Result<ReleaseSet> ReleaseSet::Load(const std::string& data_dir, const StepCalibration& cal) {
  ReleaseSet set;
  auto rows = LoadPublishedTables(data_dir + "/baselines/published");
  if (!rows.ok()) return rows.status();
  auto models = workloads::LoadModelSpecs(data_dir + "/models");
  if (!models.ok()) return models.status();
  std::map<std::string, const workloads::ModelSpec*> by_name;
  for (auto& m : *models) {
    set.models_.push_back(std::move(m));
    by_name[set.models_.back().name] = &set.models_.back();
  }
  auto specs = bench::LoadDeviceSpecs(data_dir + "/specs");
  if (!specs.ok()) return specs.status();
  wp::Constants unit = cal.constants;
  unit.blackwell_efficiency = 1;
  for (PublishedRow& row : *rows) {
    const std::string where = row.file + ":" + std::to_string(row.line) + ": ";
    std::string name = row.model;
    if (name.ends_with("_proxy")) name.resize(name.size() - 6);
    auto m = by_name.find(name);
    if (m == by_name.end()) {
      set.skipped_.push_back(where + "no model file models/" + name + ".toml");
      continue;
    }
    const bench::DeviceSpec* spec = nullptr;
    for (const auto& s : *specs) {
      if (s.chip == row.chip) spec = &s;
    }
    const ChipSystem* sys = cal.Chip(row.chip);
    if (spec == nullptr || sys == nullptr) {
      set.skipped_.push_back(where + "no specs/ or calibration entry for chip " + row.chip);
      continue;
    }
    auto rates = ReferenceRates(*spec, cal, unit);
    if (!rates.ok()) return Status::Invalid(where + rates.status().message());
    ReleaseCase c;
    c.model_name = name;
    c.precision = CalibratedPrecision(row.precision);
    c.model = m->second;
    c.recipe = RecipeOfRow(row, *m->second);
    c.rates = std::move(*rates);
    c.blackwell = sys->family == "blackwell";
    auto check = wp::PredictStep(c.recipe, c.rates, unit);
    if (!check.ok()) {
      // A table's parallelism the step model cannot lay out (a parenthesised figure whose own
      // layout the table does not give): listed, never fitted.
      set.skipped_.push_back(where + check.status().message());
      continue;
    }
    c.row = std::move(row);
    set.cases_.push_back(std::move(c));
  }
  if (set.cases_.empty()) return Status::Invalid(data_dir + "/baselines/published: no row");
  return set;
}

}  // namespace ys::validate
