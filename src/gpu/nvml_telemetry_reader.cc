// The telemetry a monitor samples from NVML (utilisation, memory use, HBM temperature, NVLink
// payload): ReadGpuTelemetry of nvml_reader.h.
#include <fmt/format.h>

#include <climits>
#include <type_traits>

#include "gpu/nvml_call.h"
#include "gpu/nvml_reader.h"

namespace ys::gpu {
namespace nvml {
namespace {

// nvmlFieldValue_t.scopeId for the sum over every NVLink (nvml.h: "A scopeId of UINT_MAX returns
// aggregate value summed up across all links").
constexpr unsigned int kAllNvLinks = UINT_MAX;

class TelemetryReader {
 public:
  TelemetryReader(const Api& api, const TelemetryApi& tel) : api_(api), tel_(tel) {}

  Result<GpuTelemetry> ReadAllTelemetry() const {
    unsigned int count = 0;
    nvmlReturn_t rc = Call(api_.nvmlDeviceGetCount_v2, &count);
    if (rc == kNoSymbol) return Status::Unsupported("NVML has no nvmlDeviceGetCount_v2");
    YS_RETURN_IF_ERROR(ToStatus(api_, rc, "nvmlDeviceGetCount_v2"));
    GpuTelemetry t;
    for (unsigned int i = 0; i < count; ++i) {
      DeviceTelemetry d;
      d.index = static_cast<int>(i);
      nvmlDevice_t h = nullptr;
      rc = Call(api_.nvmlDeviceGetHandleByIndex_v2, i, &h);
      if (rc != NVML_SUCCESS) {
        std::string why = Why(rc, "nvmlDeviceGetHandleByIndex_v2");
        ForEachTelemetryField(
            d, [&](const char*, auto& f) { f = std::decay_t<decltype(f)>::Missing(why); });
      } else {
        ReadTelemetry(h, d);
      }
      t.devices.push_back(std::move(d));
    }
    return t;
  }

 private:
  std::string Why(nvmlReturn_t rc, const char* fn) const { return WhyNoValue(api_, rc, fn); }

  // Utilisation, memory use, HBM temperature and NVLink payload: what a monitor samples.
  void ReadTelemetry(nvmlDevice_t h, DeviceTelemetry& d) const {
    nvmlUtilization_t util{};
    nvmlReturn_t rc = Call(tel_.nvmlDeviceGetUtilizationRates, h, &util);
    if (rc == NVML_SUCCESS) {
      d.gpu_utilization_pct = Field<uint32_t>::Of(util.gpu);
      d.memory_utilization_pct = Field<uint32_t>::Of(util.memory);
    } else {
      d.gpu_utilization_pct = d.memory_utilization_pct =
          Field<uint32_t>::Missing(Why(rc, "nvmlDeviceGetUtilizationRates"));
    }
    ReadMemory(h, d);
    // The memory temperature is GPU-wide (scopeId ignored); the NVLink throughput counters are per
    // link, and scopeId UINT_MAX asks for their sum over every link (nvml.h, "NVLink throughput
    // counters field values"): scopeId 0 would be link 0 alone.
    nvmlFieldValue_t fv[3] = {};
    fv[0].fieldId = NVML_FI_DEV_MEMORY_TEMP;
    fv[1].fieldId = NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX;
    fv[1].scopeId = kAllNvLinks;
    fv[2].fieldId = NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX;
    fv[2].scopeId = kAllNvLinks;
    rc = Call(tel_.nvmlDeviceGetFieldValues, h, 3, fv);
    auto field = [&](const nvmlFieldValue_t& v) -> Field<uint64_t> {
      if (rc != NVML_SUCCESS) return Field<uint64_t>::Missing(Why(rc, "nvmlDeviceGetFieldValues"));
      if (v.nvmlReturn != NVML_SUCCESS) {
        return Field<uint64_t>::Missing(Why(v.nvmlReturn, "nvmlDeviceGetFieldValues"));
      }
      switch (v.valueType) {
        case NVML_VALUE_TYPE_UNSIGNED_INT:
          return Field<uint64_t>::Of(v.value.uiVal);
        case NVML_VALUE_TYPE_UNSIGNED_LONG:
          return Field<uint64_t>::Of(v.value.ulVal);
        case NVML_VALUE_TYPE_UNSIGNED_LONG_LONG:
          return Field<uint64_t>::Of(v.value.ullVal);
        case NVML_VALUE_TYPE_SIGNED_LONG_LONG:
          if (v.value.sllVal >= 0) return Field<uint64_t>::Of(v.value.sllVal);
          break;
        case NVML_VALUE_TYPE_SIGNED_INT:
          if (v.value.siVal >= 0) return Field<uint64_t>::Of(v.value.siVal);
          break;
        default:
          break;
      }
      return Field<uint64_t>::Missing(fmt::format(
          "nvmlDeviceGetFieldValues: field {}: unexpected value type {}", v.fieldId, v.valueType));
    };
    Field<uint64_t> mem_temp = field(fv[0]);
    d.memory_temperature_c =
        mem_temp.has() && *mem_temp <= 1000
            ? Field<uint32_t>::Of(static_cast<uint32_t>(*mem_temp))
            : Field<uint32_t>::Missing(mem_temp.has() ? "out of range" : mem_temp.error);
    d.nvlink_data_tx_kib = field(fv[1]);
    d.nvlink_data_rx_kib = field(fv[2]);
  }

  // nvmlDeviceGetMemoryInfo_v2 (every branch from R510; its `used` includes `reserved`, as the
  // v1 call's does), else nvmlDeviceGetMemoryInfo.
  void ReadMemory(nvmlDevice_t h, DeviceTelemetry& d) const {
    nvmlReturn_t rc = kNoSymbol;
    const char* fn = "nvmlDeviceGetMemoryInfo_v2";
    if (tel_.nvmlDeviceGetMemoryInfo_v2 != nullptr) {
      nvmlMemory_v2_t m{};
      m.version = nvmlMemory_v2;
      rc = tel_.nvmlDeviceGetMemoryInfo_v2(h, &m);
      if (rc == NVML_SUCCESS) return SetMemory(d, m.total, m.used, m.free);
    }
    if (tel_.nvmlDeviceGetMemoryInfo != nullptr &&
        (rc == kNoSymbol || rc == NVML_ERROR_FUNCTION_NOT_FOUND ||
         rc == NVML_ERROR_ARGUMENT_VERSION_MISMATCH)) {
      nvmlMemory_t m{};
      fn = "nvmlDeviceGetMemoryInfo";
      rc = tel_.nvmlDeviceGetMemoryInfo(h, &m);
      if (rc == NVML_SUCCESS) return SetMemory(d, m.total, m.used, m.free);
    }
    d.memory_total_bytes = d.memory_used_bytes = d.memory_free_bytes =
        Field<uint64_t>::Missing(Why(rc, fn));
  }

  static void SetMemory(DeviceTelemetry& d, uint64_t total, uint64_t used, uint64_t free) {
    d.memory_total_bytes = Field<uint64_t>::Of(total);
    d.memory_used_bytes = Field<uint64_t>::Of(used);
    d.memory_free_bytes = Field<uint64_t>::Of(free);
  }

  const Api& api_;
  const TelemetryApi& tel_;
};

}  // namespace
}  // namespace nvml

Result<GpuTelemetry> ReadGpuTelemetry(const nvml::Api& api, const nvml::TelemetryApi& tel) {
  return nvml::TelemetryReader(api, tel).ReadAllTelemetry();
}

}  // namespace ys::gpu
