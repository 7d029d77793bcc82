// Calling through the NVML table (nvml_api.h) when a member may be missing, and the text of a
// query that gave no value: shared by the snapshot reader (nvml_reader.cc) and the telemetry
// reader (nvml_telemetry_reader.cc).
#ifndef YARDSTICK_GPU_NVML_CALL_H_
#define YARDSTICK_GPU_NVML_CALL_H_

#include <string>

#include "gpu/nvml_api.h"

namespace ys::gpu::nvml {

// Not an NVML code: the table has no such function (this library does not export it).
inline constexpr nvmlReturn_t kNoSymbol = -1;

// fn(args...) when the table has fn; kNoSymbol otherwise.
template <typename Fn, typename... Args>
nvmlReturn_t Call(Fn fn, Args... args) {
  return fn == nullptr ? kNoSymbol : fn(args...);
}

// Why query `fn` has no value: "not supported" (NVML_ERROR_NOT_SUPPORTED); "not supported: this
// NVML has no <fn>" (kNoSymbol); "not supported: <fn> not implemented by this driver"
// (NVML_ERROR_FUNCTION_NOT_FOUND: the library has the entry point, the driver does not implement
// it); else "<fn>: <ErrorText>". The first three are Field::not_supported().
std::string WhyNoValue(const Api& api, nvmlReturn_t rc, const char* fn);

}  // namespace ys::gpu::nvml

#endif  // YARDSTICK_GPU_NVML_CALL_H_
