// A stand-in libnvidia-ml for tests: a shared library exporting a handful of NVML functions
// with NVML's C names, so that the real dlopen/dlsym path (gpu::nvml::Library, ReadLiveGpuSnapshot)
// runs on machines without a driver. Everything it does not export is a missing symbol, which
// the reader must answer with "not supported". Never linked into yardstick.
//
// Built once as is, and once per driver branch with YS_FAKE_BRANCH=535/550/570/580
// (tests/fake_gpus/branches.cmake): that build also answers the queries whose names changed
// between branches (clock event reasons, temperature, fabric, memory) and the NVLink throughput
// counters, reports the branch's driver and CUDA versions, and exports only the branch's symbols
// (tests/fake_gpus/branch_symbols.txt). fake_nvml_calls() lists the queries answered, so a test
// sees which of two names the reader took.
#include <climits>
#include <cstdio>
#include <cstring>
#include <string>

#include "gpu/nvml_api.h"
#include "gpu/nvml_telemetry_api.h"

using namespace ys::gpu::nvml;  // NOLINT(google-build-using-namespace)

namespace {
int sessions = 0;   // nvmlInit_v2 minus nvmlShutdown
std::string calls;  // the functions called, in order, comma-separated
void Called(const char* fn) { calls += (calls.empty() ? "" : ",") + std::string(fn); }
}  // namespace

extern "C" {

__attribute__((visibility("default"))) int fake_nvml_open_sessions() { return sessions; }

__attribute__((visibility("default"))) nvmlReturn_t nvmlInit_v2() {
  ++sessions;
  return NVML_SUCCESS;
}
__attribute__((visibility("default"))) nvmlReturn_t nvmlShutdown() {
  --sessions;
  return NVML_SUCCESS;
}
__attribute__((visibility("default"))) const char* nvmlErrorString(nvmlReturn_t rc) {
  return rc == NVML_ERROR_NOT_SUPPORTED ? "Not Supported" : "Unknown Error";
}
__attribute__((visibility("default"))) const char* fake_nvml_calls() { return calls.c_str(); }

__attribute__((visibility("default"))) nvmlReturn_t nvmlSystemGetDriverVersion(char* v,
                                                                               unsigned int n) {
#if YS_FAKE_BRANCH == 535
  std::snprintf(v, n, "%s", "535.247.01");
#elif YS_FAKE_BRANCH == 550
  std::snprintf(v, n, "%s", "550.163.01");
#elif YS_FAKE_BRANCH == 570
  std::snprintf(v, n, "%s", "570.195.03");
#elif YS_FAKE_BRANCH == 580
  std::snprintf(v, n, "%s", "580.95.05");
#else
  std::snprintf(v, n, "%s", "999.99.99");
#endif
  return NVML_SUCCESS;
}
__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int* count) {
  if (sessions <= 0) return NVML_ERROR_UNINITIALIZED;
  *count = 1;
  return NVML_SUCCESS;
}
__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int i,
                                                                                  nvmlDevice_t* d) {
  if (i != 0) return NVML_ERROR_INVALID_ARGUMENT;
  static int device;
  *d = reinterpret_cast<nvmlDevice_t>(&device);
  return NVML_SUCCESS;
}
__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t, char* s,
                                                                      unsigned int n) {
  std::snprintf(s, n, "%s", "Fake GPU");
  return NVML_SUCCESS;
}
__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t,
                                                                            nvmlPciInfo_t* p) {
  std::memset(p, 0, sizeof *p);
  std::snprintf(p->busId, sizeof p->busId, "%s", "00000000:3B:00.0");
  p->pciDeviceId = 0x233510de;
  return NVML_SUCCESS;
}
__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t,
                                                                            unsigned int*) {
  return NVML_ERROR_NOT_SUPPORTED;
}
__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetTemperature(
    nvmlDevice_t, nvmlTemperatureSensors_t, unsigned int* c) {
  Called("nvmlDeviceGetTemperature");
  *c = 42;
  return NVML_SUCCESS;
}

}  // extern "C"

#ifdef YS_FAKE_BRANCH
#define YS_FAKE_EXPORT __attribute__((visibility("default")))

namespace {

// A GPU of an NVLink domain whose fabric registration completed, clique 7.
template <typename Info>
nvmlReturn_t FillFabric(Info* info) {
  std::memset(info->clusterUuid, 0xab, sizeof info->clusterUuid);
  info->status = NVML_SUCCESS;
  info->cliqueId = 7;
  info->state = NVML_GPU_FABRIC_STATE_COMPLETED;
  return NVML_SUCCESS;
}

constexpr unsigned long long kGiB = 1ull << 30;
// 18 NVLinks (an H100 SXM); link l has carried (l + 1) * 1000 KiB each way.
constexpr unsigned int kLinks = 18;

}  // namespace

extern "C" {

YS_FAKE_EXPORT nvmlReturn_t nvmlSystemGetNVMLVersion(char* v, unsigned int n) {
  std::snprintf(v, n, "%s", YS_FAKE_BRANCH >= 580 ? "13.580.95.05" : "12.0");
  return NVML_SUCCESS;
}
YS_FAKE_EXPORT nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int* v) {
  *v = YS_FAKE_BRANCH == 535   ? 12020
       : YS_FAKE_BRANCH == 550 ? 12040
       : YS_FAKE_BRANCH == 570 ? 12080
                               : 13000;
  return NVML_SUCCESS;
}
YS_FAKE_EXPORT nvmlReturn_t nvmlSystemGetCudaDriverVersion(int* v) {
  return nvmlSystemGetCudaDriverVersion_v2(v);
}
// Reason bit 0x1: GPU idle (nvmlClocksEventReasonGpuIdle).
YS_FAKE_EXPORT nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t,
                                                                   unsigned long long* r) {
  Called("nvmlDeviceGetCurrentClocksEventReasons");
  *r = 0x1;
  return NVML_SUCCESS;
}
YS_FAKE_EXPORT nvmlReturn_t nvmlDeviceGetCurrentClocksThrottleReasons(nvmlDevice_t,
                                                                      unsigned long long* r) {
  Called("nvmlDeviceGetCurrentClocksThrottleReasons");
  *r = 0x1;
  return NVML_SUCCESS;
}
YS_FAKE_EXPORT nvmlReturn_t nvmlDeviceGetTemperatureV(nvmlDevice_t, nvmlTemperature_t* t) {
  Called("nvmlDeviceGetTemperatureV");
  if (t->version != nvmlTemperature_v1) return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
  t->temperature = 42;
  return NVML_SUCCESS;
}

YS_FAKE_EXPORT nvmlReturn_t nvmlDeviceGetGpuFabricInfo(nvmlDevice_t, nvmlGpuFabricInfo_t* info) {
  Called("nvmlDeviceGetGpuFabricInfo");
  return FillFabric(info);
}
// The struct versions each branch's nvml.h defines: v2 from R550, v3 from R580.
YS_FAKE_EXPORT nvmlReturn_t nvmlDeviceGetGpuFabricInfoV(nvmlDevice_t, void* info) {
  unsigned int version = *static_cast<unsigned int*>(info);
  Called(version == nvmlGpuFabricInfo_v3 ? "nvmlDeviceGetGpuFabricInfoV(v3)"
                                         : "nvmlDeviceGetGpuFabricInfoV(v2)");
  if (version == nvmlGpuFabricInfo_v3 && YS_FAKE_BRANCH >= 580) {
    return FillFabric(static_cast<nvmlGpuFabricInfo_v3_t*>(info));
  }
  if (version == nvmlGpuFabricInfo_v2)
    return FillFabric(static_cast<nvmlGpuFabricInfo_v2_t*>(info));
  return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
}

YS_FAKE_EXPORT nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t, nvmlUtilization_t* u) {
  u->gpu = 97;
  u->memory = 40;
  return NVML_SUCCESS;
}
YS_FAKE_EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t, nvmlMemory_t* m) {
  Called("nvmlDeviceGetMemoryInfo");
  m->total = 80 * kGiB;
  m->used = 20 * kGiB;
  m->free = 60 * kGiB;
  return NVML_SUCCESS;
}
YS_FAKE_EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t, nvmlMemory_v2_t* m) {
  Called("nvmlDeviceGetMemoryInfo_v2");
  if (m->version != nvmlMemory_v2) return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
  m->total = 80 * kGiB;
  m->reserved = kGiB / 2;
  m->used = 20 * kGiB;
  m->free = 60 * kGiB;
  return NVML_SUCCESS;
}

// A scopeId names one link; UINT_MAX asks for the sum over all (nvml.h). The memory temperature
// ignores scopeId.
YS_FAKE_EXPORT nvmlReturn_t nvmlDeviceGetFieldValues(nvmlDevice_t, int count,
                                                     nvmlFieldValue_t* values) {
  for (int i = 0; i < count; ++i) {
    nvmlFieldValue_t& v = values[i];
    v.nvmlReturn = NVML_SUCCESS;
    v.valueType = NVML_VALUE_TYPE_UNSIGNED_LONG_LONG;
    if (v.fieldId == NVML_FI_DEV_MEMORY_TEMP) {
      v.value.ullVal = 51;
    } else if (v.fieldId == NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX ||
               v.fieldId == NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX) {
      if (v.scopeId == UINT_MAX) {
        v.value.ullVal = 1000ull * kLinks * (kLinks + 1) / 2;
      } else if (v.scopeId < kLinks) {
        v.value.ullVal = 1000ull * (v.scopeId + 1);
      } else {
        v.nvmlReturn = NVML_ERROR_INVALID_ARGUMENT;
      }
    } else {
      v.nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
    }
  }
  return NVML_SUCCESS;
}

}  // extern "C"
#endif  // YS_FAKE_BRANCH
