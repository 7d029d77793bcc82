// The NVML reader: asks NVML every question a GPU unit needs answered and writes the answers
// into a GpuSnapshot. No unit calls NVML; they read the snapshot.
//
// Each answer becomes a Field: the value; or kNotSupported ("not supported") when NVML answers
// NVML_ERROR_NOT_SUPPORTED, and "not supported: this NVML has no <function>" when the installed
// library does not export the function; or "<function>: NVML_ERROR_X: <nvmlErrorString>" for any
// other error. Only a failure to count the GPUs fails the whole read.
#ifndef YARDSTICK_GPU_NVML_READER_H_
#define YARDSTICK_GPU_NVML_READER_H_

#include <string>

#include "core/status.h"
#include "gpu/gpu_snapshot.h"
#include "gpu/gpu_telemetry.h"
#include "gpu/nvml_api.h"
#include "gpu/nvml_telemetry_api.h"

namespace ys::gpu {

// Reads every GPU through `api`, which must belong to an initialised NVML (nvml::Session). The
// table may be one of fakes (tests). Sets everything but `source` and `captured_at`.
Result<GpuSnapshot> ReadGpuSnapshot(const nvml::Api& api);

// Utilisation, memory, HBM temperature and NVLink payload of every GPU through `api` (an
// initialised NVML) and `tel` (from the same library), the same Field conventions. Cheap enough
// to call every few seconds.
Result<GpuTelemetry> ReadGpuTelemetry(const nvml::Api& api, const nvml::TelemetryApi& tel);

// The live node: opens `library`, initialises NVML, reads, shuts NVML down. source = "nvml",
// captured_at = now (UTC). When NVML cannot say the CUDA driver version, libcuda.so.1's
// cuDriverGetVersion is asked. Errors: "NVML not found: <dlerror>" (NotFound) when there is no
// library; nvmlInit_v2's error (e.g. NVML_ERROR_DRIVER_NOT_LOADED) when it cannot start.
Result<GpuSnapshot> ReadLiveGpuSnapshot(const std::string& library = nvml::kLibraryName);

}  // namespace ys::gpu

#endif  // YARDSTICK_GPU_NVML_READER_H_
