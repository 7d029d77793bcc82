#include "predict/serve_fit.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <set>
#include <string_view>
#include <tuple>

#include "predict/predictor.h"
#include "predict/serve_system.h"
#include "predict/serve_work.h"

namespace ys::predict {
namespace {

constexpr int kServeFitIterations = 400;
constexpr int kServeFitRestarts = 3;
constexpr double kRefusedLogMiss = 2.0;  // |log| charged for a row PredictServe refuses

// The fitted constants as a point: logs, so that every step keeps them positive.
struct ServeBounds {
  double ServeConstants::*field;
  double lo, hi;
};
constexpr ServeBounds kServeFitted[] = {
    {&ServeConstants::prefill_efficiency, 0.02, 1.0},
    {&ServeConstants::decode_hbm_efficiency, 0.05, 0.9},
    {&ServeConstants::host_seconds_per_step, 1e-5, 5e-3},
    {&ServeConstants::allreduce_latency_s, 1e-6, 1e-3},
    {&ServeConstants::decode_seconds_per_layer, 1e-7, 1e-3},
    {&ServeConstants::decode_overlap_share, 1e-3, 1.0},
    {&ServeConstants::runtime_reserved_bytes, 1e8, 1e10},
};

std::vector<double> ServePoint(const ServeConstants& c) {
  std::vector<double> x;
  for (const ServeBounds& b : kServeFitted)
    x.push_back(std::log(std::clamp(c.*b.field, b.lo, b.hi)));
  return x;
}

// False when the point leaves a constant's range.
bool ServeAt(const std::vector<double>& x, ServeConstants* c) {
  for (size_t i = 0; i < x.size(); ++i) {
    const double v = std::exp(x[i]);
    if (!(v >= kServeFitted[i].lo && v <= kServeFitted[i].hi)) return false;
    c->*kServeFitted[i].field = v;
  }
  return true;
}

// The mean |log(predicted / published)|: continuous in the constants, where a median is flat
// between rows and stalls the simplex on a step.
double ServeLoss(const std::vector<const ServeFitCase*>& cases, const ServeConstants& c) {
  double sum = 0;
  for (const ServeFitCase* k : cases) {
    auto p = PredictServeCase(*k, c);
    const double published = k->row.TotalTokensPerS();
    sum += p.ok() && *p > 0 ? std::fabs(std::log(*p / published)) : kRefusedLogMiss;
  }
  return sum / static_cast<double>(cases.size());
}

Result<ServeConstants> FitOn(const std::vector<const ServeFitCase*>& cases,
                             const ServeConstants& start) {
  if (cases.empty()) return Status::Invalid("serving fit: no published row to fit");
  size_t predictable = 0;
  for (const ServeFitCase* k : cases) predictable += PredictServeCase(*k, start).ok() ? 1 : 0;
  if (predictable == 0)
    return Status::Invalid("serving fit: no published row can be predicted at the start");
  auto loss = [&](const std::vector<double>& x) {
    ServeConstants c = start;
    return ServeAt(x, &c) ? ServeLoss(cases, c) : std::numeric_limits<double>::infinity();
  };
  std::vector<double> x = ServePoint(start);
  for (int i = 0; i < kServeFitRestarts; ++i) {
    std::vector<double> steps(x.size(), 0.3);
    for (size_t j = 0; j < x.size(); ++j) {
      if (std::exp(x[j] + steps[j]) > kServeFitted[j].hi) steps[j] = -steps[j];
    }
    x = NelderMead(loss, x, steps, kServeFitIterations);
  }
  ServeConstants out = start;
  ServeAt(x, &out);
  return out;
}

std::vector<const ServeFitCase*> Pointers(const std::vector<ServeFitCase>& cases) {
  std::vector<const ServeFitCase*> p;
  for (const ServeFitCase& k : cases) p.push_back(&k);
  return p;
}

// Cases of one chip and dtype, or of every other chip and dtype.
using CaseSet = std::vector<const ServeFitCase*>;
using ChipKey = std::pair<std::string, std::string>;
ChipKey KeyOf(const ServeFitCase& k) { return {k.row.chip, k.row.dtype}; }

// Predicts `tested` under constants fitted on `train`: one row error each, or an unpredicted line.
Status PredictHeldOut(const CaseSet& train, const CaseSet& tested, const ServeConstants& start,
                      std::vector<ServeRowError>* rows, std::vector<std::string>* unpredicted) {
  auto c = FitOn(train, start);
  if (!c.ok()) return c.status();
  for (const ServeFitCase* k : tested) {
    auto p = PredictServeCase(*k, *c);
    if (p.ok()) {
      rows->push_back({k, *p, *p / k->row.TotalTokensPerS() - 1});
    } else if (unpredicted != nullptr) {
      unpredicted->push_back(k->row.file + ":" + std::to_string(k->row.line) + ": " +
                             p.status().message());
    }
  }
  return Status::Ok();
}

// Leave one model out within `pool`: each model's cases of `tested` predicted by constants fitted
// on the pool's other models.
Status LeaveOneModelOut(const CaseSet& pool, const CaseSet& tested, const ServeConstants& start,
                        ServeCalibrationResult* out) {
  std::set<std::string> models;
  for (const ServeFitCase* k : tested) models.insert(k->row.model);
  for (const std::string& m : models) {
    CaseSet train, held;
    for (const ServeFitCase* k : pool) {
      if (k->row.model != m) train.push_back(k);
    }
    for (const ServeFitCase* k : tested) {
      if (k->row.model == m) held.push_back(k);
    }
    YS_RETURN_IF_ERROR(PredictHeldOut(train, held, start, &out->rows, &out->unpredicted));
  }
  return Status::Ok();
}

size_t ModelCount(const CaseSet& cases) {
  std::set<std::string> models;
  for (const ServeFitCase* k : cases) models.insert(k->row.model);
  return models.size();
}

const char* ArchitectureOf(const ServeFitCase& k) {
  return k.model != nullptr ? ServeArchitecture(*k.model) : "dense";
}

std::vector<ServeHeldOutError> Summarise(const std::vector<ServeRowError>& rows) {
  std::map<std::tuple<std::string, std::string, std::string>, std::vector<double>> by;
  for (const ServeRowError& e : rows)
    by[{e.k->row.chip, e.k->row.dtype, ArchitectureOf(*e.k)}].push_back(e.error);
  std::vector<ServeHeldOutError> out;
  for (const auto& [key, errors] : by) {
    const auto& [chip, dtype, architecture] = key;
    out.push_back({chip, dtype, architecture, SummariseErrors(errors)});
  }
  return out;
}

// Each chip's reference system (BuildServeSystem's, as `predict --serve` builds it with no
// --measured or --set: the model and row it is built for do not change it), loaded once; null
// where specs/ has no file for the chip.
class ServeSystems {
 public:
  explicit ServeSystems(const Predictor& p) : p_(p) {}
  Result<const ServeSystem*> Of(const ServePublishedRow& row, const ModelSpec& model) {
    if (auto it = systems_.find(row.chip); it != systems_.end()) return &it->second;
    if (!std::filesystem::exists(p_.data_dir() + "/specs/" + row.chip + ".toml"))
      return static_cast<const ServeSystem*>(nullptr);
    auto spec = p_.LoadChip(row.chip);
    if (!spec.ok()) return spec.status();
    const ServeSystemQuery q{.chip = row.chip,
                             .precision = row.dtype,
                             .layout = {.gpus = row.gpus, .tp = row.tp, .pp = row.pp, .ep = row.ep},
                             .isl = row.isl};
    auto built = BuildServeSystem(p_, model, *spec, q);
    if (!built.ok()) return built.status();
    return &systems_.emplace(row.chip, std::move(built->reference)).first->second;
  }

 private:
  const Predictor& p_;
  std::map<std::string, ServeSystem> systems_;
};

// The row's model, loaded once into `out`; null where models/ has no file for it.
Result<const ModelSpec*> ServeFitModel(const Predictor& p, const std::string& name,
                                       std::map<std::string, const ModelSpec*>& seen,
                                       ServeFitData& out) {
  if (auto it = seen.find(name); it != seen.end()) return it->second;
  const ModelSpec* spec = nullptr;
  const std::string path = p.ModelPath(name);
  if (std::filesystem::exists(path)) {
    auto m = LoadModelSpec(path);
    if (!m.ok()) return m.status();
    out.models.push_back(std::make_unique<ModelSpec>(std::move(*m)));
    spec = out.models.back().get();
  }
  seen[name] = spec;
  return spec;
}

}  // namespace

Result<ServeFitData> LoadServeFitData(const std::string& data_dir) {
  auto predictor = Predictor::Open(data_dir);
  if (!predictor.ok()) return predictor.status();
  ServeFitData out;
  out.table_dir = data_dir + "/baselines/published/serving";
  auto rows = LoadServePublishedTables(out.table_dir);
  if (!rows.ok()) return rows.status();
  ServeSystems systems(*predictor);
  std::map<std::string, const ModelSpec*> seen;
  for (ServePublishedRow& r : *rows) {
    const std::string where = r.file + ":" + std::to_string(r.line) + ": ";
    auto model = ServeFitModel(*predictor, r.model, seen, out);
    if (!model.ok()) return model.status();
    Result<const ServeSystem*> system = static_cast<const ServeSystem*>(nullptr);
    if (*model != nullptr) system = systems.Of(r, **model);
    if (!system.ok()) return system.status();
    if (*model == nullptr || *system == nullptr) {
      out.skipped.push_back(
          where + "no " + (*model == nullptr ? "models/" + r.model : "specs/" + r.chip) + ".toml");
      continue;
    }
    if (std::find(out.releases.begin(), out.releases.end(), r.release) == out.releases.end())
      out.releases.push_back(r.release);
    ServeFitCase k{.row = std::move(r), .model = *model, .system = **system};
    if (auto w = ComputeServeWork(*k.model, k.row.dtype); w.ok()) k.work = std::move(*w);
    out.cases.push_back(std::move(k));
  }
  return out;
}

Result<double> PredictServeCase(const ServeFitCase& k, const ServeConstants& c) {
  if (k.model == nullptr) return Status::Invalid(k.row.file + ": no model for the row");
  ServeLayout layout{.gpus = k.row.gpus, .tp = k.row.tp, .pp = k.row.pp, .ep = k.row.ep};
  ServeLoad load{.isl = k.row.isl, .osl = k.row.osl, .max_throughput = true};
  auto p =
      k.work
          ? PredictServe(*k.work, k.row.dtype, layout, load, k.system, c, ServeText::kFiguresOnly)
          : PredictServe(*k.model, k.row.dtype, layout, load, k.system, c, ServeText::kFiguresOnly);
  if (!p.ok()) return p.status();
  return p->output_tokens_per_s;
}

Result<ServeConstants> FitServeConstants(const std::vector<ServeFitCase>& cases,
                                         const ServeConstants& start) {
  return FitOn(Pointers(cases), start);
}

Result<ServeCalibrationResult> CalibrateServe(const std::vector<ServeFitCase>& cases,
                                              const ServeConstants& start) {
  const CaseSet all = Pointers(cases);
  if (ModelCount(all) < 2)
    return Status::Invalid("serving fit: rows of " + std::to_string(ModelCount(all)) +
                           " model(s) (expected two or more to hold one out)");
  ServeCalibrationResult out;
  auto fitted = FitOn(all, start);
  if (!fitted.ok()) return fitted.status();
  out.constants = *fitted;
  std::map<ChipKey, CaseSet> by_chip;
  for (const ServeFitCase* k : all) by_chip[KeyOf(*k)].push_back(k);
  for (const auto& [key, chip_cases] : by_chip) {
    // A chip and dtype with two models or more gets its own constants, its error held out within
    // its rows; one with a single model is predicted by the constants over every row.
    if (ModelCount(chip_cases) >= 2) {
      auto own = FitOn(chip_cases, start);
      if (!own.ok()) return own.status();
      out.chips.push_back({key.first, key.second, *own});
      YS_RETURN_IF_ERROR(LeaveOneModelOut(chip_cases, chip_cases, start, &out));
    } else {
      YS_RETURN_IF_ERROR(LeaveOneModelOut(all, chip_cases, start, &out));
    }
    // Leave the chip and dtype out: what a chip without rows of its own meets.
    if (by_chip.size() >= 2) {
      CaseSet others;
      for (const ServeFitCase* k : all) {
        if (KeyOf(*k) != key) others.push_back(k);
      }
      YS_RETURN_IF_ERROR(PredictHeldOut(others, chip_cases, start, &out.other_chip_rows, nullptr));
    }
  }
  out.error = Summarise(out.rows);
  std::vector<double> moe;
  for (const ServeRowError& e : out.rows) {
    if (std::string_view(ArchitectureOf(*e.k)) == "moe") moe.push_back(e.error);
  }
  if (!moe.empty()) out.moe_any_chip = SummariseErrors(moe);
  if (!out.other_chip_rows.empty()) {
    std::vector<double> errors;
    for (const ServeRowError& e : out.other_chip_rows) errors.push_back(e.error);
    out.other_chip = SummariseErrors(errors);
  }
  return out;
}

}  // namespace ys::predict
