// The stated error of the serving proxy's prediction on a CPU (calibration/serve_cpu.toml): how far
// the serving model's TTFT, TPOT and output tokens/s fell from the proxy's measurement on a named
// machine, over the runs of a stated method (bench/serving_proxy.sh). The unit states the figure
// beside its comparison and says whether this run's prediction lies within it.
//
//   [provenance]
//   machine = "2-CPU KVM guest, AMD EPYC (Zen), OpenBLAS Zen kernel"
//   cpu_model = "AMD EPYC 9R14 96-Core Processor"     # /proc/cpuinfo model name
//   date = "2025-12-07"
//   method = "bench/serving_proxy.sh: ..."
//   [error]          # |predicted / measured - 1|, over `runs` runs
//   runs = 18
//   ttft_median = 0.04
//   ttft_p90 = 0.09
//   tpot_median = ...  tpot_p90 = ...  output_tokens_per_s_median = ...  output_tokens_per_s_p90 =
//   ...
//
// "Within" means within the p90 figure: on the calibrating machine 9 runs in 10 are.
//
// Thread safety: values only.
#ifndef YARDSTICK_WORKLOADS_SERVING_CALIBRATION_H_
#define YARDSTICK_WORKLOADS_SERVING_CALIBRATION_H_

#include <optional>
#include <string>
#include <string_view>

#include "core/status.h"

namespace ys::workloads {

struct ServingErrorBand {
  double median = 0, p90 = 0;  // |predicted / measured - 1|
};

struct ServeCpuCalibration {
  std::string path, machine, cpu_model, date, method;
  int runs = 0;
  ServingErrorBand ttft, tpot, output_tokens_per_s;
};

// <data_dir>/calibration/serve_cpu.toml
std::string ServeCpuCalibrationPath(const std::string& data_dir);
// Strict: every key known and in range (errors name the file, line, table and key).
Result<ServeCpuCalibration> ParseServeCpuCalibration(std::string_view text,
                                                     const std::string& path);
Result<ServeCpuCalibration> LoadServeCpuCalibration(const std::string& path);

// |predicted / measured - 1|; nullopt when measured is not positive.
std::optional<double> ServingPredictionError(double predicted, double measured);

}  // namespace ys::workloads

#endif  // YARDSTICK_WORKLOADS_SERVING_CALIBRATION_H_
