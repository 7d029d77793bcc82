#include "predict/serve_fit.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <set>

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
    {&ServeConstants::decode_hbm_efficiency, 0.05, 1.0},
    {&ServeConstants::host_seconds_per_step, 1e-5, 0.2},
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

double MedianOf(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double ServeLoss(const std::vector<const ServeFitCase*>& cases, const ServeConstants& c) {
  std::vector<double> miss;
  miss.reserve(cases.size());
  for (const ServeFitCase* k : cases) {
    auto p = PredictServeCase(*k, c);
    const double published = k->row.TotalTokensPerS();
    miss.push_back(p.ok() && *p > 0 ? std::fabs(std::log(*p / published)) : kRefusedLogMiss);
  }
  return MedianOf(std::move(miss));
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

// Held-out errors of one model's rows under constants fitted without them.
Status HoldOut(const std::vector<ServeFitCase>& cases, const std::string& model,
               const ServeConstants& start, ServeCalibrationResult* out) {
  std::vector<const ServeFitCase*> train;
  for (const ServeFitCase& k : cases) {
    if (k.row.model != model) train.push_back(&k);
  }
  auto c = FitOn(train, start);
  if (!c.ok()) return c.status();
  for (const ServeFitCase& k : cases) {
    if (k.row.model != model) continue;
    auto p = PredictServeCase(k, *c);
    if (!p.ok()) {
      out->unpredicted.push_back(k.row.file + ":" + std::to_string(k.row.line) + ": " +
                                 p.status().message());
      continue;
    }
    out->rows.push_back({&k, *p, *p / k.row.TotalTokensPerS() - 1});
  }
  return Status::Ok();
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
  auto p = k.work ? PredictServe(*k.work, k.row.dtype, layout, load, k.system, c)
                  : PredictServe(*k.model, k.row.dtype, layout, load, k.system, c);
  if (!p.ok()) return p.status();
  return p->output_tokens_per_s;
}

Result<ServeConstants> FitServeConstants(const std::vector<ServeFitCase>& cases,
                                         const ServeConstants& start) {
  return FitOn(Pointers(cases), start);
}

Result<ServeCalibrationResult> CalibrateServe(const std::vector<ServeFitCase>& cases,
                                              const ServeConstants& start) {
  std::set<std::string> models;
  for (const ServeFitCase& k : cases) models.insert(k.row.model);
  if (models.size() < 2)
    return Status::Invalid("serving fit: rows of " + std::to_string(models.size()) +
                           " model(s) (expected two or more to hold one out)");
  ServeCalibrationResult out;
  auto all = FitServeConstants(cases, start);
  if (!all.ok()) return all.status();
  out.constants = *all;
  for (const std::string& m : models) YS_RETURN_IF_ERROR(HoldOut(cases, m, start, &out));
  std::map<std::pair<std::string, std::string>, std::vector<double>> by;
  for (const ServeRowError& e : out.rows) by[{e.k->row.chip, e.k->row.dtype}].push_back(e.error);
  for (const auto& [key, errors] : by)
    out.error.push_back({key.first, key.second, SummariseErrors(errors)});
  return out;
}

}  // namespace ys::predict
