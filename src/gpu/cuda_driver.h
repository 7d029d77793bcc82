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

// The driver library the GPU code opens: $YARDSTICK_LIBCUDA when set (tests, odd installs), else
// libcuda.so.1.
std::string CudaDriverLibraryName();

// cuDriverGetVersion of `library`. NotFound("CUDA driver not found: <dlerror>") when the library
// cannot be opened; Unsupported when it lacks the symbol; Io with the CUresult (and
// cuGetErrorString's text) when the call fails.
Result<int> CudaDriverVersion(const std::string& library = kCudaDriverLibrary);

// 12040 -> "12.4"; 12010 -> "12.1"; 11080 -> "11.8".
std::string CudaVersionText(int version);

// The driver branch that first supports CUDA `version` (the version cuDriverGetVersion answers):
// 12020 -> "R535", 12040 -> "R550", 12080 -> "R570", 13000 -> "R580"; "" for a version this table
// does not know. From the minimum driver of each CUDA release (CUDA Toolkit release notes, table
// "CUDA Toolkit and Corresponding Driver Versions"): 12.0 525, 12.1 530, 12.2 535, 12.3 545,
// 12.4 550, 12.5 555, 12.6 560, 12.8 570, 12.9 575, 13.0 580, 13.1 590; 12.7 is what R565
// drivers report.
std::string DriverBranchOf(int version);

// "CUDA 12.2, R535" (the branch left out when unknown): how messages name the installed driver.
std::string DriverText(int version);

}  // namespace ys::gpu

#endif  // YARDSTICK_GPU_CUDA_DRIVER_H_
