#include "gpu/cuda_driver.h"

#include <cuda.h>

#include <cstdlib>

#include "gpu/dynamic_library.h"

namespace ys::gpu {

namespace {
// The driver's own types (cuda.h): a call through a pointer of another type (int for the CUresult
// enum) is undefined behaviour, and UBSan's function check reports it.
constexpr CUresult kCudaSuccess = CUDA_SUCCESS;
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
    std::string message = "cuDriverGetVersion: CUresult " + std::to_string(static_cast<int>(rc));
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

std::string CudaDriverLibraryName() {
  const char* name = std::getenv("YARDSTICK_LIBCUDA");
  return name != nullptr && *name != '\0' ? name : kCudaDriverLibrary;
}

std::string DriverBranchOf(int version) {
  struct Row {
    int cuda;
    const char* branch;
  };
  static constexpr Row kRows[] = {{12000, "R525"}, {12010, "R530"}, {12020, "R535"},
                                  {12030, "R545"}, {12040, "R550"}, {12050, "R555"},
                                  {12060, "R560"}, {12070, "R565"}, {12080, "R570"},
                                  {12090, "R575"}, {13000, "R580"}, {13010, "R590"}};
  for (const Row& r : kRows) {
    if (version / 10 == r.cuda / 10) return r.branch;
  }
  return "";
}

std::string DriverText(int version) {
  std::string branch = DriverBranchOf(version);
  return "CUDA " + CudaVersionText(version) + (branch.empty() ? "" : ", " + branch);
}

}  // namespace ys::gpu
