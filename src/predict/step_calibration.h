// The step-time model's data file (calibration/step_model.toml): the named constants of
// predict/step_model.h with their provenance, and the system facts per chip that
// specs/ does not hold (the NVLink domain size, the network line rate per GPU, the chip's
// architecture family, and an HBM figure where specs/ has none).
//
// Reading is strict (core/toml_reader.h): every key known, every value in its range, each
// constant within the range ConstantTable() states; a missing constant is an error.
//
// Thread safety: values only.
#ifndef YARDSTICK_PREDICT_STEP_CALIBRATION_H_
#define YARDSTICK_PREDICT_STEP_CALIBRATION_H_

#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "predict/step_model.h"

namespace ys::predict {

struct ChipSystem {
  std::string chip;
  std::string family;  // "hopper" | "blackwell"
  int nvlink_domain = 8;
  // GPUs of one node (one compute tray of an NVL72 rack: 4); the NVLink domain when absent (HGX).
  int gpus_per_node = 8;
  double network_gb_per_s = 0;  // per GPU, line rate, one direction (decimal GB/s)
  std::optional<double> hbm_tb_per_s;
  // Another [[chip]] of the same family whose release constants apply where no release is
  // calibrated for this one: the same die at the same clocks (H200: H100's GH100), so the GEMM
  // shares of the same peak, the exposed shares and the dispatch traffic in HBM passes carry over.
  std::string constants_from;
  std::string source;
};

struct StepCalibration {
  std::string path;
  std::string source;     // [provenance] source
  std::string fitted_by;  // the command that produced the fitted values
  std::string split;      // which rows the fit used
  predict::Constants constants;
  std::vector<ChipSystem> chips;

  const ChipSystem* Chip(std::string_view chip) const;
};

Result<StepCalibration> ParseStepCalibration(std::string_view text, const std::string& path);
Result<StepCalibration> LoadStepCalibration(const std::string& path);
// <data>/calibration/step_model.toml
std::string StepCalibrationPath(const std::string& data_dir);

}  // namespace ys::predict

#endif  // YARDSTICK_PREDICT_STEP_CALIBRATION_H_
