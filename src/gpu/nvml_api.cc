#include "gpu/nvml_api.h"

namespace ys::gpu::nvml {

Api ResolveApi(const DynamicLibrary& lib) {
  Api api;
#define YS_NVML_RESOLVE(name, ret, params) api.name = lib.Function<ret(*) params>(#name);
  YS_NVML_FUNCTIONS(YS_NVML_RESOLVE)
#undef YS_NVML_RESOLVE
  return api;
}

std::string ReturnName(nvmlReturn_t rc) {
  switch (rc) {
    case NVML_SUCCESS: return "NVML_SUCCESS";
    case NVML_ERROR_UNINITIALIZED: return "NVML_ERROR_UNINITIALIZED";
    case NVML_ERROR_INVALID_ARGUMENT: return "NVML_ERROR_INVALID_ARGUMENT";
    case NVML_ERROR_NOT_SUPPORTED: return "NVML_ERROR_NOT_SUPPORTED";
    case NVML_ERROR_NO_PERMISSION: return "NVML_ERROR_NO_PERMISSION";
    case NVML_ERROR_ALREADY_INITIALIZED: return "NVML_ERROR_ALREADY_INITIALIZED";
    case NVML_ERROR_NOT_FOUND: return "NVML_ERROR_NOT_FOUND";
    case NVML_ERROR_INSUFFICIENT_SIZE: return "NVML_ERROR_INSUFFICIENT_SIZE";
    case NVML_ERROR_INSUFFICIENT_POWER: return "NVML_ERROR_INSUFFICIENT_POWER";
    case NVML_ERROR_DRIVER_NOT_LOADED: return "NVML_ERROR_DRIVER_NOT_LOADED";
    case NVML_ERROR_TIMEOUT: return "NVML_ERROR_TIMEOUT";
    case NVML_ERROR_IRQ_ISSUE: return "NVML_ERROR_IRQ_ISSUE";
    case NVML_ERROR_LIBRARY_NOT_FOUND: return "NVML_ERROR_LIBRARY_NOT_FOUND";
    case NVML_ERROR_FUNCTION_NOT_FOUND: return "NVML_ERROR_FUNCTION_NOT_FOUND";
    case NVML_ERROR_CORRUPTED_INFOROM: return "NVML_ERROR_CORRUPTED_INFOROM";
    case NVML_ERROR_GPU_IS_LOST: return "NVML_ERROR_GPU_IS_LOST";
    case NVML_ERROR_RESET_REQUIRED: return "NVML_ERROR_RESET_REQUIRED";
    case NVML_ERROR_OPERATING_SYSTEM: return "NVML_ERROR_OPERATING_SYSTEM";
    case NVML_ERROR_LIB_RM_VERSION_MISMATCH: return "NVML_ERROR_LIB_RM_VERSION_MISMATCH";
    case NVML_ERROR_IN_USE: return "NVML_ERROR_IN_USE";
    case NVML_ERROR_MEMORY: return "NVML_ERROR_MEMORY";
    case NVML_ERROR_NO_DATA: return "NVML_ERROR_NO_DATA";
    case NVML_ERROR_VGPU_ECC_NOT_SUPPORTED: return "NVML_ERROR_VGPU_ECC_NOT_SUPPORTED";
    case NVML_ERROR_INSUFFICIENT_RESOURCES: return "NVML_ERROR_INSUFFICIENT_RESOURCES";
    case NVML_ERROR_FREQ_NOT_SUPPORTED: return "NVML_ERROR_FREQ_NOT_SUPPORTED";
    case NVML_ERROR_ARGUMENT_VERSION_MISMATCH: return "NVML_ERROR_ARGUMENT_VERSION_MISMATCH";
    case NVML_ERROR_DEPRECATED: return "NVML_ERROR_DEPRECATED";
    case NVML_ERROR_NOT_READY: return "NVML_ERROR_NOT_READY";
    case NVML_ERROR_GPU_NOT_FOUND: return "NVML_ERROR_GPU_NOT_FOUND";
    case NVML_ERROR_INVALID_STATE: return "NVML_ERROR_INVALID_STATE";
    case NVML_ERROR_UNKNOWN: return "NVML_ERROR_UNKNOWN";
    default: return "NVML_RETURN_" + std::to_string(rc);
  }
}

std::string ErrorText(const Api& api, nvmlReturn_t rc) {
  std::string text = ReturnName(rc);
  if (api.nvmlErrorString != nullptr) {
    const char* s = api.nvmlErrorString(rc);
    if (s != nullptr && *s != '\0') text += ": " + std::string(s);
  }
  return text;
}

Status ToStatus(const Api& api, nvmlReturn_t rc, std::string_view call) {
  if (rc == NVML_SUCCESS) return Status::Ok();
  std::string message = std::string(call) + ": " + ErrorText(api, rc);
  switch (rc) {
    case NVML_ERROR_NOT_SUPPORTED:
    case NVML_ERROR_FUNCTION_NOT_FOUND: return Status::Unsupported(std::move(message));
    case NVML_ERROR_NO_PERMISSION: return Status::Denied(std::move(message));
    case NVML_ERROR_DRIVER_NOT_LOADED:
    case NVML_ERROR_LIBRARY_NOT_FOUND:
    case NVML_ERROR_GPU_NOT_FOUND:
    case NVML_ERROR_NOT_FOUND: return Status::NotFound(std::move(message));
    case NVML_ERROR_INVALID_ARGUMENT: return Status::Invalid(std::move(message));
    default: return Status::Io(std::move(message));
  }
}

Result<Library> Library::Open(const std::string& name) {
  auto lib = DynamicLibrary::Open(name);
  if (!lib.ok()) return Status::NotFound("NVML not found: " + lib.status().message());
  Api api = ResolveApi(*lib);
  for (auto [symbol, present] : {std::pair{"nvmlInit_v2", api.nvmlInit_v2 != nullptr},
                                 std::pair{"nvmlShutdown", api.nvmlShutdown != nullptr},
                                 std::pair{"nvmlDeviceGetCount_v2", api.nvmlDeviceGetCount_v2 != nullptr}}) {
    if (!present) {
      return Status::Unsupported("NVML not usable: " + name + " does not export " + symbol);
    }
  }
  return Library(std::move(lib).value(), api);
}

Result<Session> Session::Start(const Api& api) {
  if (api.nvmlInit_v2 == nullptr) return Status::Unsupported("NVML has no nvmlInit_v2");
  nvmlReturn_t rc = api.nvmlInit_v2();
  if (rc != NVML_SUCCESS) return ToStatus(api, rc, "nvmlInit_v2");
  return Session(&api);
}

Session::~Session() {
  if (api_ != nullptr && api_->nvmlShutdown != nullptr) api_->nvmlShutdown();
}

}  // namespace ys::gpu::nvml
