#include "gpu/nvml_api.h"

#include "gpu/gpu_snapshot.h"
#include "gpu/nvml_call.h"

namespace ys::gpu::nvml {

Api ResolveApi(const DynamicLibrary& lib) {
  Api api;
#define YS_NVML_RESOLVE(name, ret, params) api.name = lib.Function<ret(*) params>(#name);
  YS_NVML_FUNCTIONS(YS_NVML_RESOLVE)
#undef YS_NVML_RESOLVE
  return api;
}

std::string ReturnName(nvmlReturn_t rc) {
#define YS_NVML_RETURN_NAME(code) \
  if (rc == code) return #code;
  YS_NVML_RETURN_NAME(NVML_SUCCESS)
  YS_NVML_RETURN_NAME(NVML_ERROR_UNINITIALIZED)
  YS_NVML_RETURN_NAME(NVML_ERROR_INVALID_ARGUMENT)
  YS_NVML_RETURN_NAME(NVML_ERROR_NOT_SUPPORTED)
  YS_NVML_RETURN_NAME(NVML_ERROR_NO_PERMISSION)
  YS_NVML_RETURN_NAME(NVML_ERROR_ALREADY_INITIALIZED)
  YS_NVML_RETURN_NAME(NVML_ERROR_NOT_FOUND)
  YS_NVML_RETURN_NAME(NVML_ERROR_INSUFFICIENT_SIZE)
  YS_NVML_RETURN_NAME(NVML_ERROR_INSUFFICIENT_POWER)
  YS_NVML_RETURN_NAME(NVML_ERROR_DRIVER_NOT_LOADED)
  YS_NVML_RETURN_NAME(NVML_ERROR_TIMEOUT)
  YS_NVML_RETURN_NAME(NVML_ERROR_IRQ_ISSUE)
  YS_NVML_RETURN_NAME(NVML_ERROR_LIBRARY_NOT_FOUND)
  YS_NVML_RETURN_NAME(NVML_ERROR_FUNCTION_NOT_FOUND)
  YS_NVML_RETURN_NAME(NVML_ERROR_CORRUPTED_INFOROM)
  YS_NVML_RETURN_NAME(NVML_ERROR_GPU_IS_LOST)
  YS_NVML_RETURN_NAME(NVML_ERROR_RESET_REQUIRED)
  YS_NVML_RETURN_NAME(NVML_ERROR_OPERATING_SYSTEM)
  YS_NVML_RETURN_NAME(NVML_ERROR_LIB_RM_VERSION_MISMATCH)
  YS_NVML_RETURN_NAME(NVML_ERROR_IN_USE)
  YS_NVML_RETURN_NAME(NVML_ERROR_MEMORY)
  YS_NVML_RETURN_NAME(NVML_ERROR_NO_DATA)
  YS_NVML_RETURN_NAME(NVML_ERROR_VGPU_ECC_NOT_SUPPORTED)
  YS_NVML_RETURN_NAME(NVML_ERROR_INSUFFICIENT_RESOURCES)
  YS_NVML_RETURN_NAME(NVML_ERROR_FREQ_NOT_SUPPORTED)
  YS_NVML_RETURN_NAME(NVML_ERROR_ARGUMENT_VERSION_MISMATCH)
  YS_NVML_RETURN_NAME(NVML_ERROR_DEPRECATED)
  YS_NVML_RETURN_NAME(NVML_ERROR_NOT_READY)
  YS_NVML_RETURN_NAME(NVML_ERROR_GPU_NOT_FOUND)
  YS_NVML_RETURN_NAME(NVML_ERROR_INVALID_STATE)
  YS_NVML_RETURN_NAME(NVML_ERROR_UNKNOWN)
#undef YS_NVML_RETURN_NAME
  return "NVML_RETURN_" + std::to_string(rc);
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
    case NVML_ERROR_FUNCTION_NOT_FOUND:
      return Status::Unsupported(std::move(message));
    case NVML_ERROR_NO_PERMISSION:
      return Status::Denied(std::move(message));
    case NVML_ERROR_DRIVER_NOT_LOADED:
    case NVML_ERROR_LIBRARY_NOT_FOUND:
    case NVML_ERROR_GPU_NOT_FOUND:
    case NVML_ERROR_NOT_FOUND:
      return Status::NotFound(std::move(message));
    case NVML_ERROR_INVALID_ARGUMENT:
      return Status::Invalid(std::move(message));
    default:
      return Status::Io(std::move(message));
  }
}

std::string WhyNoValue(const Api& api, nvmlReturn_t rc, const char* fn) {
  if (rc == kNoSymbol) return std::string(kNotSupported) + ": this NVML has no " + fn;
  if (rc == NVML_ERROR_NOT_SUPPORTED) return kNotSupported;
  if (rc == NVML_ERROR_FUNCTION_NOT_FOUND) {
    return std::string(kNotSupported) + ": " + fn + " not implemented by this driver";
  }
  return std::string(fn) + ": " + ErrorText(api, rc);
}

Result<Library> Library::Open(const std::string& name) {
  auto lib = DynamicLibrary::Open(name);
  if (!lib.ok()) return Status::NotFound("NVML not found: " + lib.status().message());
  Api api = ResolveApi(*lib);
  for (auto [symbol, present] :
       {std::pair{"nvmlInit_v2", api.nvmlInit_v2 != nullptr},
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
