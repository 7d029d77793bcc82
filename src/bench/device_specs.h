// Device specs: the physical peaks of one GPU model (specs/<chip>.toml), read strictly, and the
// match from the name the CUDA driver reports ("NVIDIA H200") to the file that describes it.
//
// Every figure is optional except the [device] table and [peak_dense_tflops]: a figure that no
// source gives is left out of the file, and a unit measuring it then reports no % of peak
// rather than a guessed one. Each [section] carries the `source` its figures came from.
//
// Reading is strict (core/toml_reader.h): an unknown section or key, a value of the wrong type
// or out of range is Invalid naming the file, the line, the key, the value and the range
// expected. validate/ reads the same files through this reader.
//
// Bounds of physical plausibility: a figure outside them is a typo or a unit error (TFLOPS given
// in FLOPS, GB/s in TB/s), refused rather than turned into an MFU or % of peak of 0% or inf%:
// - dense tensor peaks: 1e-3 to 1e7 TFLOPS;
// - HBM bandwidth: 1e-3 to 1e3 TB/s; HBM capacity ([memory] capacity_gb, per GPU): 1 to 1e5 GB;
//   device memory ([memory] device_mib): 1024 to 1e8 MiB;
// - NVLink bandwidth: 1e-3 to 1e6 GB/s; PCIe bandwidth: 1e-3 to 1e4 GB/s.
#ifndef YARDSTICK_BENCH_DEVICE_SPECS_H_
#define YARDSTICK_BENCH_DEVICE_SPECS_H_

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace ys::bench {

inline constexpr double kMinPeakTflops = 1e-3;
inline constexpr double kMaxPeakTflops = 1e7;
inline constexpr double kMinHbmTbPerS = 1e-3;
inline constexpr double kMaxHbmTbPerS = 1e3;
inline constexpr double kMinHbmCapacityGb = 1;
inline constexpr double kMaxHbmCapacityGb = 1e5;
inline constexpr double kMinLinkGbPerS = 1e-3;
inline constexpr double kMaxNvlinkGbPerS = 1e6;
inline constexpr double kMaxPcieGbPerS = 1e4;

struct DeviceSpec {
  std::string path;                     // the file read, for peak_source
  std::string chip;                     // "h200"
  std::string name;                     // "NVIDIA H200 SXM5 141GB"
  std::vector<std::string> cuda_names;  // exact cuDeviceGetName texts of this part

  std::map<std::string, double> peak_dense_tflops;  // "bf16", "fp16", "tf32", "fp8", "nvfp4"
  std::string peak_source;

  // [memory]: either figure may be absent, not both.
  std::optional<double> hbm_tb_per_s;
  std::optional<double> hbm_capacity_gb;  // per GPU, as the datasheet gives it ("80 GB")
  std::optional<double> device_mib;       // what the driver reports in all (nvidia-smi's Total)
  std::string hbm_source;

  std::optional<double> nvlink_bidirectional_gb_per_s;
  std::optional<double> nvlink_per_direction_gb_per_s;
  std::string nvlink_source;

  std::optional<int> pcie_generation;
  std::optional<int> pcie_lanes;
  std::optional<double> pcie_per_direction_gb_per_s;
  std::string pcie_source;
};

// A peak in the unit of the measurement it is compared with, and where it came from
// ("specs/h200.toml [memory] hbm_tb_per_s"), as the Measurement params want them.
struct Peak {
  double value = 0;
  std::string source;
};

// Dense tensor-core TFLOPS for a dtype key ("bf16", "fp16", "tf32", "fp8"), if the file has it.
std::optional<Peak> PeakTflops(const DeviceSpec& spec, std::string_view dtype);
// HBM bandwidth in GB/s (decimal).
std::optional<Peak> PeakHbmGBps(const DeviceSpec& spec);
// NVLink bandwidth per GPU, one direction, GB/s.
std::optional<Peak> PeakNvlinkPerDirectionGBps(const DeviceSpec& spec);
// PCIe bandwidth per GPU, one direction, GB/s (the raw x16 rate before protocol overhead).
std::optional<Peak> PeakPciePerDirectionGBps(const DeviceSpec& spec);

// The bytes of device memory one GPU holds, what serving fits weights and KV cache in: [memory]
// device_mib × 2^20 where the file has it, else capacity_gb read as binary GB less the 0.5% the
// driver keeps (capacity_gb × 2^30 × 0.995: the driver's total is 0.9948–0.9957 of the datasheet
// figure read so on H100 SXM 80 GB, H200 141 GB and B200 180 GB, where a decimal reading is 6.9–
// 7.4% short); 0 when the file has neither.
double DeviceMemoryBytes(const DeviceSpec& spec);

// Parses one spec file's text; `path` names it in errors and in peak sources.
Result<DeviceSpec> ParseDeviceSpec(std::string_view text, const std::string& path);
Result<DeviceSpec> LoadDeviceSpec(const std::string& path);
// Every <dir>/*.toml, in file-name order. Invalid when two files claim the same CUDA name.
Result<std::vector<DeviceSpec>> LoadDeviceSpecs(const std::string& specs_dir);

// The spec whose cuda_names holds `gpu_name` exactly (surrounding blanks ignored): an H100 PCIe
// or an H200 NVL is a different board with different peaks, so prefixes do not match.
// NotFound naming the GPU and the names that are known.
Result<DeviceSpec> MatchDeviceSpec(const std::vector<DeviceSpec>& specs, std::string_view gpu_name);

// LoadDeviceSpecs(data_dir + "/specs") then MatchDeviceSpec.
Result<DeviceSpec> FindDeviceSpec(const std::string& data_dir, std::string_view gpu_name);

}  // namespace ys::bench

#endif  // YARDSTICK_BENCH_DEVICE_SPECS_H_
