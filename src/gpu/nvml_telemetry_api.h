// NVML's telemetry queries (utilisation, memory, field values), resolved apart from the main
// table (nvml_api.h) so that the many units built on that table do not depend on them.
#ifndef YARDSTICK_GPU_NVML_TELEMETRY_API_H_
#define YARDSTICK_GPU_NVML_TELEMETRY_API_H_

#include <cstddef>

#include "gpu/dynamic_library.h"
#include "gpu/nvml_api.h"

namespace ys::gpu::nvml {

// nvmlUtilization_t (nvmlDeviceGetUtilizationRates), percent over the last sample period.
struct nvmlUtilization_t {
  unsigned int gpu;
  unsigned int memory;
};
// nvmlMemory_t (nvmlDeviceGetMemoryInfo, the v1 struct), bytes.
struct nvmlMemory_t {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};
static_assert(sizeof(nvmlMemory_t) == 24);
// nvmlMemory_v2_t (nvmlDeviceGetMemoryInfo_v2): .version = nvmlMemory_v2 before the call.
struct nvmlMemory_v2_t {
  unsigned int version;
  unsigned long long total;
  unsigned long long reserved;  // for the driver and firmware; included in `used`
  unsigned long long free;
  unsigned long long used;
};
static_assert(sizeof(nvmlMemory_v2_t) == 40);
// NVML_STRUCT_VERSION(Memory, 2).
inline constexpr unsigned int nvmlMemory_v2 = sizeof(nvmlMemory_v2_t) | (2u << 24);

// nvmlFieldValue_t (nvmlDeviceGetFieldValues): the caller sets fieldId and scopeId (a link for
// per-link fields); NVML sets the rest. `value` is nvmlValue_t, a union read by valueType.
using nvmlValueType_t = int;
inline constexpr nvmlValueType_t NVML_VALUE_TYPE_DOUBLE = 0;
inline constexpr nvmlValueType_t NVML_VALUE_TYPE_UNSIGNED_INT = 1;
inline constexpr nvmlValueType_t NVML_VALUE_TYPE_UNSIGNED_LONG = 2;
inline constexpr nvmlValueType_t NVML_VALUE_TYPE_UNSIGNED_LONG_LONG = 3;
inline constexpr nvmlValueType_t NVML_VALUE_TYPE_SIGNED_LONG_LONG = 4;
inline constexpr nvmlValueType_t NVML_VALUE_TYPE_SIGNED_INT = 5;
union nvmlValue_t {
  double dVal;
  int siVal;
  unsigned int uiVal;
  unsigned long ulVal;
  unsigned long long ullVal;
  signed long long sllVal;
};
struct nvmlFieldValue_t {
  unsigned int fieldId;
  unsigned int scopeId;
  long long timestamp;  // microseconds since 1970
  long long latencyUsec;
  nvmlValueType_t valueType;
  nvmlReturn_t nvmlReturn;
  nvmlValue_t value;
};
static_assert(offsetof(nvmlFieldValue_t, value) == 32);
// Field ids (nvml.h NVML_FI_*).
inline constexpr unsigned int NVML_FI_DEV_MEMORY_TEMP = 82;
// KiB, cumulative; per link (scopeId = the link), or summed over all links with scopeId UINT_MAX.
inline constexpr unsigned int NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX = 138;
inline constexpr unsigned int NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX = 139;

// Every member may be nullptr (this NVML does not export it). Tests fill one with fakes.
struct TelemetryApi {
  nvmlReturn_t (*nvmlDeviceGetUtilizationRates)(nvmlDevice_t, nvmlUtilization_t*) = nullptr;
  nvmlReturn_t (*nvmlDeviceGetMemoryInfo)(nvmlDevice_t, nvmlMemory_t*) = nullptr;
  nvmlReturn_t (*nvmlDeviceGetMemoryInfo_v2)(nvmlDevice_t, nvmlMemory_v2_t*) = nullptr;
  nvmlReturn_t (*nvmlDeviceGetFieldValues)(nvmlDevice_t, int, nvmlFieldValue_t*) = nullptr;
};

// Looks the functions up in `lib` (absent ones stay nullptr).
inline TelemetryApi ResolveTelemetryApi(const DynamicLibrary& lib) {
  TelemetryApi t;
  t.nvmlDeviceGetUtilizationRates =
      lib.Function<decltype(t.nvmlDeviceGetUtilizationRates)>("nvmlDeviceGetUtilizationRates");
  t.nvmlDeviceGetMemoryInfo =
      lib.Function<decltype(t.nvmlDeviceGetMemoryInfo)>("nvmlDeviceGetMemoryInfo");
  t.nvmlDeviceGetMemoryInfo_v2 =
      lib.Function<decltype(t.nvmlDeviceGetMemoryInfo_v2)>("nvmlDeviceGetMemoryInfo_v2");
  t.nvmlDeviceGetFieldValues =
      lib.Function<decltype(t.nvmlDeviceGetFieldValues)>("nvmlDeviceGetFieldValues");
  return t;
}

}  // namespace ys::gpu::nvml

#endif  // YARDSTICK_GPU_NVML_TELEMETRY_API_H_
