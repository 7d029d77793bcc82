// GpuTelemetry: the fast-changing readings a monitor samples (utilisation, framebuffer memory,
// HBM temperature, NVLink payload counters), kept apart from GpuSnapshot, which holds what the
// checks judge. Same Field convention as gpu_snapshot.h: a value or why there is none.
//
// Live: ReadGpuTelemetry (nvml_reader.h) through an initialised NVML. Recorded: each device of a
// recorded NVML state file (gpu_snapshot_json.h) may carry a "telemetry" object:
//   "telemetry": {"gpu_utilization_pct": F, "memory_utilization_pct": F,
//                 "memory_total_bytes": F, "memory_used_bytes": F, "memory_free_bytes": F,
//                 "memory_temperature_c": F, "nvlink_data_tx_kib": F, "nvlink_data_rx_kib": F}
// read strictly (unknown key, wrong type: Invalid naming the JSON path); an absent key, or an
// absent "telemetry", reads as Missing("not recorded").
#ifndef YARDSTICK_GPU_GPU_TELEMETRY_H_
#define YARDSTICK_GPU_GPU_TELEMETRY_H_

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "core/status.h"
#include "gpu/gpu_snapshot.h"

namespace ys::gpu {

struct DeviceTelemetry {
  int index = 0;  // NVML index, as GpuDevice::index
  // Over NVML's last sample period (1/6 s to 1 s by product), percent: kernels running; memory
  // controller busy (nvmlDeviceGetUtilizationRates).
  Field<uint32_t> gpu_utilization_pct;
  Field<uint32_t> memory_utilization_pct;
  // Framebuffer, bytes (nvmlDeviceGetMemoryInfo).
  Field<uint64_t> memory_total_bytes;
  Field<uint64_t> memory_used_bytes;
  Field<uint64_t> memory_free_bytes;
  Field<uint32_t> memory_temperature_c;  // HBM, NVML_FI_DEV_MEMORY_TEMP
  // NVLink data payload since the driver loaded, KiB, the GPU's links together
  // (NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX/RX): a rate needs two readings.
  Field<uint64_t> nvlink_data_tx_kib;
  Field<uint64_t> nvlink_data_rx_kib;
};

// v(key, field) for every Field member; D is DeviceTelemetry or const DeviceTelemetry.
template <typename D, typename V>
void ForEachTelemetryField(D& d, V&& v) {
  v("gpu_utilization_pct", d.gpu_utilization_pct);
  v("memory_utilization_pct", d.memory_utilization_pct);
  v("memory_total_bytes", d.memory_total_bytes);
  v("memory_used_bytes", d.memory_used_bytes);
  v("memory_free_bytes", d.memory_free_bytes);
  v("memory_temperature_c", d.memory_temperature_c);
  v("nvlink_data_tx_kib", d.nvlink_data_tx_kib);
  v("nvlink_data_rx_kib", d.nvlink_data_rx_kib);
}

struct GpuTelemetry {
  std::vector<DeviceTelemetry> devices;  // in the order of the snapshot's devices
};

// The "telemetry" objects of a recorded NVML state document (layout above).
Result<GpuTelemetry> GpuTelemetryFromJson(const nlohmann::json& j);
// Reads and parses a recorded NVML state file; errors name the file.
Result<GpuTelemetry> LoadGpuTelemetry(const std::string& path);

}  // namespace ys::gpu

#endif  // YARDSTICK_GPU_GPU_TELEMETRY_H_
