#include "gpu/cuda_driver.h"

#include "gpu/dynamic_library.h"

namespace ys::gpu {

namespace {
using CUresult = int;
constexpr CUresult kCudaSuccess = 0;
using DriverGetVersionFn = CUresult (*)(int* driverVersion);
using GetErrorStringFn = CUresult (*)(CUresult error, const char** pStr);
}  // namespace

Result<int> CudaDriverVersion(const std::string& library) {
  auto lib = DynamicLibrary::Open(library);
  if (!lib.ok()) return Status::NotFound("CUDA driver not found: " + lib.status().message());
  auto get_version = lib->Function<DriverGetVersionFn>("cuDriverGetVersion");
  if (get_version == nullptr) {
    return Status::Unsupported(library + " does not export cuDriverGetVersion");
  }
  int version = 0;
  CUresult rc = get_version(&version);
  if (rc != kCudaSuccess) {
    std::string message = "cuDriverGetVersion: CUresult " + std::to_string(rc);
    auto error_string = lib->Function<GetErrorStringFn>("cuGetErrorString");
    const char* text = nullptr;
    if (error_string != nullptr && error_string(rc, &text) == kCudaSuccess && text != nullptr) {
      message += " (" + std::string(text) + ")";
    }
    return Status::Io(message);
  }
  return version;
}

std::string CudaVersionText(int version) {
  return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

}  // namespace ys::gpu
