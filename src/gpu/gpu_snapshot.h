// GpuSnapshot: every answer about the node's GPUs that a GPU unit uses, as plain values.
//
// The gpu layer fills it from NVML opened at run time (nvml_reader), or from a recorded JSON
// file (`yardstick capture` writes one; tests ship them under tests/fixtures/nvml/). Units read
// only this struct, so every GPU check runs on recorded state exactly as on a live driver, and
// no unit calls NVML itself.
//
// Each NVML answer is a Field<T>: a value, or the reason there is none ("not supported" when the
// symbol or the query is unsupported on this GPU/driver, or NVML's own error string). A check
// that needs a field with no value skips that part and says why; it never guesses.
#ifndef YARDSTICK_GPU_GPU_SNAPSHOT_H_
#define YARDSTICK_GPU_GPU_SNAPSHOT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ys::gpu {

// Field::error of a query this GPU or driver cannot answer: NVML_ERROR_NOT_SUPPORTED, or a function
// the installed NVML does not export ("not supported: this NVML has no nvmlDeviceGetX").
inline constexpr const char* kNotSupported = "not supported";

template <typename T>
struct Field {
  std::optional<T> value;
  std::string error;  // why there is no value: "not supported", "NVML_ERROR_NO_PERMISSION: ..."

  bool has() const { return value.has_value(); }
  // No value because the GPU or driver cannot answer (see kNotSupported), not because of a fault.
  bool not_supported() const { return !has() && error.rfind(kNotSupported, 0) == 0; }
  const T& operator*() const { return *value; }
  const T* operator->() const { return &*value; }
  static Field Of(T v) { return Field{std::move(v), {}}; }
  static Field Missing(std::string why) { return Field{std::nullopt, std::move(why)}; }
};

// nvmlClocksEventReasons bits (NVML's nvmlClocksThrottleReason*).
inline constexpr uint64_t kClocksEventGpuIdle = 0x1;
inline constexpr uint64_t kClocksEventApplicationsClocksSetting = 0x2;
inline constexpr uint64_t kClocksEventSwPowerCap = 0x4;
inline constexpr uint64_t kClocksEventHwSlowdown = 0x8;
inline constexpr uint64_t kClocksEventSyncBoost = 0x10;
inline constexpr uint64_t kClocksEventSwThermalSlowdown = 0x20;
inline constexpr uint64_t kClocksEventHwThermalSlowdown = 0x40;
inline constexpr uint64_t kClocksEventHwPowerBrakeSlowdown = 0x80;
inline constexpr uint64_t kClocksEventDisplayClockSetting = 0x100;

struct NvLinkState {
  int link = 0;
  Field<bool> active;
  Field<std::string> remote_pci_bus_id;  // what the link connects to (a GPU or an NVSwitch)
  Field<uint64_t> replay_errors;         // NVML_NVLINK_ERROR_DL_REPLAY
  Field<uint64_t> recovery_errors;       // NVML_NVLINK_ERROR_DL_RECOVERY
  Field<uint64_t> crc_flit_errors;       // NVML_NVLINK_ERROR_DL_CRC_FLIT
  Field<uint64_t> crc_data_errors;       // NVML_NVLINK_ERROR_DL_CRC_DATA
};

struct FabricInfo {
  std::string state;   // "not supported", "not started", "in progress", "completed"
  std::string status;  // NVML return of the fabric probe: "success" or the error
  std::string cluster_uuid;
  uint32_t clique_id = 0;
};

struct GpuProcess {
  uint32_t pid = 0;
  uint64_t used_memory_bytes = 0;
};

struct GpuDevice {
  int index = 0;     // NVML index
  std::string uuid;  // "GPU-9221d5d1-..."
  std::string name;  // "NVIDIA H100 80GB HBM3"
  std::string serial;
  std::string pci_bus_id;      // "00000000:1B:00.0" as NVML prints it
  uint32_t pci_device_id = 0;  // 0x233010de: device << 16 | vendor
  // Read from an nvidia-smi -q dump: `index` is the dump's order, the bus id names the GPU.
  bool index_is_dump_order = false;

  Field<bool> persistence_mode;
  Field<int> performance_state;  // P0 = 0 ... P15

  // Clocks, MHz, and why they are held down.
  Field<uint32_t> sm_clock_mhz;
  Field<uint32_t> mem_clock_mhz;
  Field<uint32_t> max_sm_clock_mhz;
  Field<uint64_t> clocks_event_reasons;  // kClocksEvent* bits

  // Power, milliwatts.
  Field<uint32_t> power_usage_mw;
  Field<uint32_t> enforced_power_limit_mw;
  Field<uint32_t> default_power_limit_mw;

  // Temperatures, degrees C, with the GPU's own thresholds.
  Field<uint32_t> temperature_c;
  Field<uint32_t> slowdown_temperature_c;
  Field<uint32_t> shutdown_temperature_c;
  Field<uint32_t> max_operating_temperature_c;  // NVML_TEMPERATURE_THRESHOLD_GPU_MAX

  // ECC.
  Field<bool> ecc_enabled;
  Field<uint64_t> ecc_volatile_corrected;
  Field<uint64_t> ecc_volatile_uncorrected;
  Field<uint64_t> ecc_aggregate_corrected;
  Field<uint64_t> ecc_aggregate_uncorrected;

  // Page retirement (pre-Ampere) and row remapping (Ampere and later).
  Field<uint32_t> retired_pages_sbe;
  Field<uint32_t> retired_pages_dbe;
  Field<bool> retired_pages_pending;
  Field<uint32_t> remapped_rows_correctable;
  Field<uint32_t> remapped_rows_uncorrectable;
  Field<bool> remapped_rows_pending;
  Field<bool> remapped_rows_failure;

  std::vector<NvLinkState> nvlinks;  // every link NVML reports (empty: no NVLink)
  Field<FabricInfo> fabric;          // NVL72 / NVSwitch fabric (Hopper and later)

  // PCIe as the GPU sees it.
  Field<uint32_t> pcie_gen_current;
  Field<uint32_t> pcie_gen_max;  // of the GPU and the system (nvmlDeviceGetMaxPcieLinkGeneration)
  Field<uint32_t> pcie_width_current;
  Field<uint32_t> pcie_width_max;
  Field<uint64_t> pcie_replay_counter;

  Field<bool> mig_enabled;  // current MIG mode
  Field<std::vector<GpuProcess>> compute_processes;

  // nvmlGpuTopologyLevel_t to every other GPU, by index (0 internal, 10 single, 20 multiple,
  // 30 host bridge, 40 node, 50 system); NVLink peers are in `nvlinks`.
  std::vector<std::pair<int, int>> topology_to_gpus;
};

struct GpuSnapshot {
  std::string source;                 // "nvml" (live) or "recorded: <file>"
  Field<std::string> driver_version;  // "550.127.05"
  Field<int> cuda_driver_version;     // 12040 = CUDA 12.4 (nvmlSystemGetCudaDriverVersion)
  Field<std::string> nvml_version;
  std::vector<GpuDevice> devices;
  std::string captured_at;  // UTC, when recorded
};

}  // namespace ys::gpu

#endif  // YARDSTICK_GPU_GPU_SNAPSHOT_H_
