// A stand-in libnvidia-ml for tests: a shared library exporting a handful of NVML functions
// with NVML's C names, so that the real dlopen/dlsym path (gpu::nvml::Library, ReadLiveGpuSnapshot)
// runs on machines without a driver. Everything it does not export is a missing symbol, which
// the reader must answer with "not supported". Never linked into yardstick.
#include <cstdio>
#include <cstring>

#include "gpu/nvml_api.h"

using namespace ys::gpu::nvml;  // NOLINT(google-build-using-namespace)

namespace {
int sessions = 0;  // nvmlInit_v2 minus nvmlShutdown
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
__attribute__((visibility("default"))) nvmlReturn_t nvmlSystemGetDriverVersion(char* v,
                                                                               unsigned int n) {
  std::snprintf(v, n, "%s", "999.99.99");
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
  *c = 42;
  return NVML_SUCCESS;
}

}  // extern "C"
