// The CUDA driver API (libcuda.so.1), opened at run time for the one question reports need: the
// CUDA version the installed driver supports (cuDriverGetVersion). No cuInit: asking the version
// needs no context and touches no GPU.
//
// Declarations from NVIDIA's cuda.h (CUDA Driver API reference, "Version Management"):
//   CUresult cuDriverGetVersion(int* driverVersion);              // 12040 = CUDA 12.4
//   CUresult cuGetErrorString(CUresult error, const char** pStr);
// CUresult is a C enum (4 bytes), CUDA_SUCCESS = 0.
#ifndef YARDSTICK_GPU_CUDA_DRIVER_H_
#define YARDSTICK_GPU_CUDA_DRIVER_H_

#include <string>

#include "core/status.h"

namespace ys::gpu {

inline constexpr const char* kCudaDriverLibrary = "libcuda.so.1";

// cuDriverGetVersion of `library`. NotFound("CUDA driver not found: <dlerror>") when the library
// cannot be opened; Unsupported when it lacks the symbol; Io with the CUresult (and
// cuGetErrorString's text) when the call fails.
Result<int> CudaDriverVersion(const std::string& library = kCudaDriverLibrary);

// 12040 -> "12.4"; 12010 -> "12.1"; 11080 -> "11.8".
std::string CudaVersionText(int version);

}  // namespace ys::gpu

#endif  // YARDSTICK_GPU_CUDA_DRIVER_H_
