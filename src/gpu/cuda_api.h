// The CUDA driver API (libcuda.so.1) opened at run time, for the GPU benchmark backends:
// contexts, device and pinned host memory, streams, events, copies, and kernels loaded from PTX
// text (so the build needs no nvcc and the binary no CUDA runtime).
//
// Types and signatures come from the toolkit's cuda.h (headers only; nothing is linked). Each
// function is looked up by the symbols written out in YS_CUDA_FUNCTIONS, newest first, so that a
// binary built with the CUDA 13 headers runs on every driver branch from R535 on.
//
// CudaApi::Get() opens the library and calls cuInit(0) once per process; the table is then
// read-only and usable from any thread. The RAII classes below own one handle each and are
// move-only; a CUDA error becomes a Status carrying the call and cuGetErrorString's text.
#ifndef YARDSTICK_GPU_CUDA_API_H_
#define YARDSTICK_GPU_CUDA_API_H_

#include <cuda.h>

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "core/status.h"
#include "gpu/dynamic_library.h"

namespace ys::gpu {

// X(name, symbols...): every driver function the benchmarks use, and the symbols libcuda exports
// it under, tried in order. `name` is cuda.h's name for the function, which cuda.h may map to a
// versioned one (cuMemAlloc -> cuMemAlloc_v2): the member is then so named, and has that
// version's signature. The symbols are written out rather than taken from that mapping, because
// the mapping is the newest header's choice, not what the installed driver exports: the CUDA 13
// headers map cuEventElapsedTime to cuEventElapsedTime_v2, which only drivers for CUDA 12.8 and
// later (R570+) export (cudaTypedefs.h: PFN_cuEventElapsedTime_v12080), so the plain name (same
// signature, PFN_cuEventElapsedTime_v2000) is the fallback for R535 and R550. Every other symbol
// here dates from CUDA 7.0 or earlier (cudaTypedefs.h gives each its PFN_<name>_v<version>), so
// every driver branch yardstick supports exports it. docs/driver-branches.md lists them.
// Add new ones here, with the symbol of the oldest driver that has them last.
// clang-format off
#define YS_CUDA_FUNCTIONS(X)                                                                       \
  X(cuInit, "cuInit")                                                                              \
  X(cuGetErrorString, "cuGetErrorString")                                                          \
  X(cuDriverGetVersion, "cuDriverGetVersion")                                                      \
  X(cuDeviceGetCount, "cuDeviceGetCount")                                                          \
  X(cuDeviceGet, "cuDeviceGet")                                                                    \
  X(cuDeviceGetName, "cuDeviceGetName")                                                            \
  X(cuDeviceGetAttribute, "cuDeviceGetAttribute")                                                  \
  X(cuDeviceTotalMem, "cuDeviceTotalMem_v2")                                                       \
  X(cuDeviceGetPCIBusId, "cuDeviceGetPCIBusId")                                                    \
  X(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain")                                          \
  X(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2")                                     \
  X(cuCtxSetCurrent, "cuCtxSetCurrent")                                                            \
  X(cuCtxGetCurrent, "cuCtxGetCurrent")                                                            \
  X(cuCtxSynchronize, "cuCtxSynchronize")                                                          \
  X(cuDeviceCanAccessPeer, "cuDeviceCanAccessPeer")                                                \
  X(cuCtxEnablePeerAccess, "cuCtxEnablePeerAccess")                                                \
  X(cuMemAlloc, "cuMemAlloc_v2")                                                                   \
  X(cuMemFree, "cuMemFree_v2")                                                                     \
  X(cuMemAllocHost, "cuMemAllocHost_v2")                                                           \
  X(cuMemFreeHost, "cuMemFreeHost")                                                                \
  X(cuMemHostAlloc, "cuMemHostAlloc")                                                              \
  X(cuMemHostRegister, "cuMemHostRegister_v2")                                                     \
  X(cuMemHostUnregister, "cuMemHostUnregister")                                                    \
  X(cuMemGetInfo, "cuMemGetInfo_v2")                                                               \
  X(cuMemcpyHtoD, "cuMemcpyHtoD_v2")                                                               \
  X(cuMemcpyDtoH, "cuMemcpyDtoH_v2")                                                               \
  X(cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2")                                                     \
  X(cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2")                                                     \
  X(cuMemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2")                                                     \
  X(cuMemcpyPeerAsync, "cuMemcpyPeerAsync")                                                        \
  X(cuMemcpyAsync, "cuMemcpyAsync")                                                                \
  X(cuMemsetD8Async, "cuMemsetD8Async")                                                            \
  X(cuMemsetD32Async, "cuMemsetD32Async")                                                          \
  X(cuStreamCreate, "cuStreamCreate")                                                              \
  X(cuStreamDestroy, "cuStreamDestroy_v2")                                                         \
  X(cuStreamSynchronize, "cuStreamSynchronize")                                                    \
  X(cuEventCreate, "cuEventCreate")                                                                \
  X(cuEventDestroy, "cuEventDestroy_v2")                                                           \
  X(cuEventRecord, "cuEventRecord")                                                                \
  X(cuEventSynchronize, "cuEventSynchronize")                                                      \
  X(cuEventElapsedTime, "cuEventElapsedTime_v2", "cuEventElapsedTime")                             \
  X(cuModuleLoadData, "cuModuleLoadData")                                                          \
  X(cuModuleLoadDataEx, "cuModuleLoadDataEx")                                                      \
  X(cuModuleUnload, "cuModuleUnload")                                                              \
  X(cuModuleGetFunction, "cuModuleGetFunction")                                                    \
  X(cuLaunchKernel, "cuLaunchKernel")                                                              \
  X(cuFuncGetAttribute, "cuFuncGetAttribute")                                                      \
  X(cuOccupancyMaxPotentialBlockSize, "cuOccupancyMaxPotentialBlockSize")                          \
  X(cuMemHostGetDevicePointer, "cuMemHostGetDevicePointer_v2")
// clang-format on

#define YS_CUDA_DECLARE_(name, ...) decltype(&::name) name = nullptr;

struct CudaApi {
  YS_CUDA_FUNCTIONS(YS_CUDA_DECLARE_)

  // The process-wide table: opens libcuda.so.1 (or $YARDSTICK_LIBCUDA) and runs cuInit(0) on
  // first use. NotFound("CUDA driver not found: <dlerror>") on a node without the driver;
  // Unsupported naming the first missing symbol; Io when cuInit fails (no device, driver/library
  // mismatch), with the CUDA error text.
  static Result<const CudaApi*> Get();

  // Loads every function of the table from `lib` (the first of its symbols that `lib` exports).
  // Unsupported("<library> does not export <symbols> (<driver>: too old)") naming the first that
  // cannot be found. Tests call it with the fake driver of each branch.
  static Result<CudaApi> Load(const DynamicLibrary& lib);

  // "cuEventElapsedTime_v2 -> cuEventElapsedTime" for each function loaded by a fallback symbol
  // (an older driver), in table order; empty when every first choice was there.
  const std::vector<std::string>& fallbacks() const { return fallbacks_; }

  // OK, or Io("<what>: CUDA_ERROR_... (<text>)").
  Status Check(CUresult rc, const char* what) const;

 private:
  DynamicLibrary* library_ = nullptr;  // owned by Get()'s static storage
  std::vector<std::string> fallbacks_;
};

#undef YS_CUDA_DECLARE_

// Evaluates a driver call through `api` and returns its Status on failure.
#define YS_CU_RETURN(api, call) YS_RETURN_IF_ERROR((api).Check((api).call, #call))

// The primary context of one device, retained while the object lives and made current by
// MakeCurrent() (on the calling thread).
class CudaDevice {
 public:
  static Result<CudaDevice> Open(int ordinal);
  CudaDevice(CudaDevice&& o) noexcept { *this = std::move(o); }
  CudaDevice& operator=(CudaDevice&& o) noexcept;
  CudaDevice(const CudaDevice&) = delete;
  CudaDevice& operator=(const CudaDevice&) = delete;
  ~CudaDevice();

  Status MakeCurrent() const;
  int ordinal() const { return ordinal_; }
  CUdevice device() const { return device_; }
  const std::string& name() const { return name_; }
  // cuDeviceGetAttribute; 0 when the driver does not answer.
  int Attribute(CUdevice_attribute attribute) const;
  const CudaApi& api() const { return *api_; }

 private:
  CudaDevice() = default;
  const CudaApi* api_ = nullptr;
  int ordinal_ = -1;
  CUdevice device_ = 0;
  CUcontext context_ = nullptr;  // primary context, retained
  std::string name_;
};

// Device memory (cuMemAlloc) in the current context.
class DeviceBuffer {
 public:
  static Result<DeviceBuffer> Allocate(const CudaApi& api, size_t bytes);
  DeviceBuffer() = default;
  DeviceBuffer(DeviceBuffer&& o) noexcept { *this = std::move(o); }
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept;
  ~DeviceBuffer();
  CUdeviceptr get() const { return ptr_; }
  size_t bytes() const { return bytes_; }

 private:
  const CudaApi* api_ = nullptr;
  CUdeviceptr ptr_ = 0;
  size_t bytes_ = 0;
};

// Page-locked host memory (cuMemHostAlloc, portable across contexts). Allocate it from a thread
// bound to the wanted NUMA node to place it there (first touch).
class PinnedHostBuffer {
 public:
  // `flags`: CU_MEMHOSTALLOC_* (add CU_MEMHOSTALLOC_DEVICEMAP for memory kernels read directly).
  static Result<PinnedHostBuffer> Allocate(const CudaApi& api, size_t bytes,
                                           unsigned int flags = CU_MEMHOSTALLOC_PORTABLE);
  PinnedHostBuffer() = default;
  PinnedHostBuffer(PinnedHostBuffer&& o) noexcept { *this = std::move(o); }
  PinnedHostBuffer& operator=(PinnedHostBuffer&& o) noexcept;
  ~PinnedHostBuffer();
  void* get() const { return ptr_; }
  size_t bytes() const { return bytes_; }

 private:
  const CudaApi* api_ = nullptr;
  void* ptr_ = nullptr;
  size_t bytes_ = 0;
};

class CudaStream {
 public:
  static Result<CudaStream> Create(const CudaApi& api);
  CudaStream() = default;
  CudaStream(CudaStream&& o) noexcept { *this = std::move(o); }
  CudaStream& operator=(CudaStream&& o) noexcept;
  ~CudaStream();
  CUstream get() const { return stream_; }
  Status Synchronize() const;

 private:
  const CudaApi* api_ = nullptr;
  CUstream stream_ = nullptr;
};

class CudaEvent {
 public:
  static Result<CudaEvent> Create(const CudaApi& api);
  CudaEvent() = default;
  CudaEvent(CudaEvent&& o) noexcept { *this = std::move(o); }
  CudaEvent& operator=(CudaEvent&& o) noexcept;
  ~CudaEvent();
  CUevent get() const { return event_; }
  Status Record(const CudaStream& stream) const;
  // Milliseconds between two recorded events; waits for `end`.
  static Result<float> ElapsedMs(const CudaEvent& start, const CudaEvent& end);

 private:
  const CudaApi* api_ = nullptr;
  CUevent event_ = nullptr;
};

// A module loaded from PTX text (JIT-compiled by the driver for the current device).
class CudaModule {
 public:
  static Result<CudaModule> LoadPtx(const CudaApi& api, const std::string& ptx);
  CudaModule() = default;
  CudaModule(CudaModule&& o) noexcept { *this = std::move(o); }
  CudaModule& operator=(CudaModule&& o) noexcept;
  ~CudaModule();
  Result<CUfunction> Function(const char* name) const;

 private:
  const CudaApi* api_ = nullptr;
  CUmodule module_ = nullptr;
};

}  // namespace ys::gpu

#endif  // YARDSTICK_GPU_CUDA_API_H_
