#include "predict/serve_system.h"

#include <algorithm>
#include <filesystem>

#include "predict/published_table.h"

namespace ys::predict {
namespace {

// A recipe of the serving layout for the rates: the measured documents' collectives are taken at
// the message sizes of a prefill of ISL tokens (micro-batch 1, sequence ISL).
Recipe ServeRatesRecipe(const ServeSystemQuery& q, const ModelSpec& model) {
  Recipe r;
  r.model = &model;
  r.par.chip = q.chip;
  r.par.dtype = DtypeOfPrecision(q.precision);
  r.par.gpus = q.layout.gpus;
  r.par.tp = q.layout.tp;
  r.par.pp = q.layout.pp;
  r.par.ep = q.layout.ep;
  r.par.micro_batch = 1;
  r.par.global_batch = std::max(1, q.layout.gpus / (q.layout.tp * q.layout.pp));
  r.layers = model.shape.layers;
  r.seq = q.isl;
  r.dtype = r.par.dtype;
  return r;
}

}  // namespace

Result<ServeSystemOf> BuildServeSystem(const Predictor& predictor, const ModelSpec& model,
                                       const bench::DeviceSpec& chip, const ServeSystemQuery& q) {
  auto rates =
      predictor.Rates(ServeRatesRecipe(q, model), chip, predictor.calibration().constants, q.rates);
  if (!rates.ok()) return rates.status();
  const double hbm = bench::DeviceMemoryBytes(chip);
  return ServeSystemOf{ServeSystem{rates->reference, hbm}, ServeSystem{rates->rates, hbm},
                       std::move(rates->measured)};
}

ServeExpectedError ServeConstantsOf::Expected(std::string_view chip, std::string_view dtype,
                                              std::string_view architecture) const {
  return ExpectedServeError(calibration ? &*calibration : nullptr, chip, dtype, architecture);
}

ServeConstants ServeConstantsOf::For(std::string_view chip, std::string_view dtype) const {
  return ServeConstantsFor(calibration ? &*calibration : nullptr, constants, chip, dtype);
}

Result<ServeConstantsOf> LoadServeConstants(const std::string& data_dir) {
  ServeConstantsOf out;
  const std::string path = ServeCalibrationPath(data_dir);
  if (!std::filesystem::exists(path)) {
    out.path = "built-in defaults (no " + path + ")";
    return out;
  }
  auto cal = LoadServeCalibration(path);
  if (!cal.ok()) return cal.status();
  out.constants = cal->constants;
  out.path = cal->path;
  out.calibration = std::move(*cal);
  return out;
}

}  // namespace ys::predict
