// A stand-in libcuda.so.1 for tests: every driver function gpu::CudaApi loads, exported under the
// versioned names cuda.h maps them to, so the real dlopen/dlsym path and the NCCL backends run on
// machines without a GPU. Selected with YARDSTICK_LIBCUDA=<this file>. Never linked into
// yardstick.
//
// What it models: $YS_FAKE_GPUS devices (default 2) named "Fake GPU", each with a primary
// context; "device memory" is host memory (a CUdeviceptr is the host address), so the fake NCCL
// (fake_nccl.cc) can move data with memcpy; every asynchronous call completes before it
// returns, so streams and events only record time. Kernels cannot be loaded
// (CUDA_ERROR_NOT_SUPPORTED): a unit that needs one reports the error, it never sees a figure.
//
// Built once as is (every symbol below exported; the driver of CUDA 13.0) and once per driver
// branch (tests/fake_gpus/branches.cmake) with YS_FAKE_BRANCH=535/550/570/580: then it reports
// that branch's CUDA version and exports only that branch's symbols (branch_symbols.txt).
#include <cuda.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

#define YS_FAKE_EXPORT __attribute__((visibility("default")))

namespace {

constexpr int kMaxDevices = 64;

struct FakeContext {
  int device = 0;
};

struct FakeEvent {
  std::chrono::steady_clock::time_point at;
};

FakeContext contexts[kMaxDevices];
thread_local CUcontext current = nullptr;
int stream_tag;  // streams are distinct non-null handles; nothing is queued on them

int DeviceCount() {
  const char* v = std::getenv("YS_FAKE_GPUS");
  int n = v != nullptr ? std::atoi(v) : 2;
  return n < 0 ? 0 : (n > kMaxDevices ? kMaxDevices : n);
}

bool ValidDevice(CUdevice d) { return d >= 0 && d < DeviceCount(); }

void* HostOf(CUdeviceptr p) { return reinterpret_cast<void*>(static_cast<uintptr_t>(p)); }

}  // namespace

extern "C" {

YS_FAKE_EXPORT CUresult cuInit(unsigned int) { return CUDA_SUCCESS; }
YS_FAKE_EXPORT CUresult cuGetErrorString(CUresult error, const char** text) {
  *text = error == CUDA_ERROR_NOT_SUPPORTED ? "operation not supported (fake CUDA driver)"
                                            : "fake CUDA driver error";
  return CUDA_SUCCESS;
}
YS_FAKE_EXPORT CUresult cuDriverGetVersion(int* v) {
#if YS_FAKE_BRANCH == 535
  *v = 12020;
#elif YS_FAKE_BRANCH == 550
  *v = 12040;
#elif YS_FAKE_BRANCH == 570
  *v = 12080;
#else
  *v = 13000;
#endif
  return CUDA_SUCCESS;
}
YS_FAKE_EXPORT CUresult cuDeviceGetCount(int* count) {
  *count = DeviceCount();
  return CUDA_SUCCESS;
}
YS_FAKE_EXPORT CUresult cuDeviceGet(CUdevice* device, int ordinal) {
  if (!ValidDevice(ordinal)) return CUDA_ERROR_INVALID_DEVICE;
  *device = ordinal;
  return CUDA_SUCCESS;
}
YS_FAKE_EXPORT CUresult cuDeviceGetName(char* name, int len, CUdevice dev) {
  if (!ValidDevice(dev)) return CUDA_ERROR_INVALID_DEVICE;
  std::snprintf(name, static_cast<size_t>(len), "Fake GPU");
  return CUDA_SUCCESS;
}
YS_FAKE_EXPORT CUresult cuDeviceGetAttribute(int* value, CUdevice_attribute attribute,
                                             CUdevice dev) {
  if (!ValidDevice(dev)) return CUDA_ERROR_INVALID_DEVICE;
  *value = attribute == CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING ? 1 : 0;
  return CUDA_SUCCESS;
}
YS_FAKE_EXPORT CUresult cuDeviceTotalMem(size_t* bytes, CUdevice dev) {
  if (!ValidDevice(dev)) return CUDA_ERROR_INVALID_DEVICE;
  *bytes = size_t{1} << 30;
  return CUDA_SUCCESS;
}
YS_FAKE_EXPORT CUresult cuDeviceGetPCIBusId(char* bus, int len, CUdevice dev) {
  if (!ValidDevice(dev)) return CUDA_ERROR_INVALID_DEVICE;
  std::snprintf(bus, static_cast<size_t>(len), "0000:%02x:00.0", 0x10 + dev);
  return CUDA_SUCCESS;
}
YS_FAKE_EXPORT CUresult cuDevicePrimaryCtxRetain(CUcontext* ctx, CUdevice dev) {
  if (!ValidDevice(dev)) return CUDA_ERROR_INVALID_DEVICE;
  contexts[dev].device = dev;
  *ctx = reinterpret_cast<CUcontext>(&contexts[dev]);
  return CUDA_SUCCESS;
}
YS_FAKE_EXPORT CUresult cuDevicePrimaryCtxRelease(CUdevice dev) {
  return ValidDevice(dev) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}
YS_FAKE_EXPORT CUresult cuCtxSetCurrent(CUcontext ctx) {
  current = ctx;
  return CUDA_SUCCESS;
}
YS_FAKE_EXPORT CUresult cuCtxGetCurrent(CUcontext* ctx) {
  *ctx = current;
  return CUDA_SUCCESS;
}
YS_FAKE_EXPORT CUresult cuCtxSynchronize() { return CUDA_SUCCESS; }
YS_FAKE_EXPORT CUresult cuDeviceCanAccessPeer(int* can, CUdevice, CUdevice) {
  *can = 1;
  return CUDA_SUCCESS;
}
YS_FAKE_EXPORT CUresult cuCtxEnablePeerAccess(CUcontext, unsigned int) { return CUDA_SUCCESS; }

YS_FAKE_EXPORT CUresult cuMemAlloc(CUdeviceptr* ptr, size_t bytes) {
  if (current == nullptr) return CUDA_ERROR_INVALID_CONTEXT;
  void* p = std::calloc(1, bytes == 0 ? 1 : bytes);
  if (p == nullptr) return CUDA_ERROR_OUT_OF_MEMORY;
  *ptr = static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(p));
  return CUDA_SUCCESS;
}
YS_FAKE_EXPORT CUresult cuMemFree(CUdeviceptr ptr) {
  std::free(HostOf(ptr));
  return CUDA_SUCCESS;
}
YS_FAKE_EXPORT CUresult cuMemAllocHost(void** p, size_t bytes) {
  *p = std::calloc(1, bytes == 0 ? 1 : bytes);
  return *p != nullptr ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}
YS_FAKE_EXPORT CUresult cuMemFreeHost(void* p) {
  std::free(p);
  return CUDA_SUCCESS;
}
YS_FAKE_EXPORT CUresult cuMemHostAlloc(void** p, size_t bytes, unsigned int) {
  return cuMemAllocHost(p, bytes);
}
YS_FAKE_EXPORT CUresult cuMemHostRegister(void*, size_t, unsigned int) { return CUDA_SUCCESS; }
YS_FAKE_EXPORT CUresult cuMemHostUnregister(void*) { return CUDA_SUCCESS; }
YS_FAKE_EXPORT CUresult cuMemGetInfo(size_t* free_bytes, size_t* total) {
  *free_bytes = *total = size_t{1} << 30;
  return CUDA_SUCCESS;
}
YS_FAKE_EXPORT CUresult cuMemHostGetDevicePointer(CUdeviceptr* d, void* p, unsigned int) {
  *d = static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(p));
  return CUDA_SUCCESS;
}

YS_FAKE_EXPORT CUresult cuMemcpyHtoD(CUdeviceptr dst, const void* src, size_t n) {
  std::memcpy(HostOf(dst), src, n);
  return CUDA_SUCCESS;
}
YS_FAKE_EXPORT CUresult cuMemcpyDtoH(void* dst, CUdeviceptr src, size_t n) {
  std::memcpy(dst, HostOf(src), n);
  return CUDA_SUCCESS;
}
YS_FAKE_EXPORT CUresult cuMemcpyHtoDAsync(CUdeviceptr dst, const void* src, size_t n, CUstream) {
  return cuMemcpyHtoD(dst, src, n);
}
YS_FAKE_EXPORT CUresult cuMemcpyDtoHAsync(void* dst, CUdeviceptr src, size_t n, CUstream) {
  return cuMemcpyDtoH(dst, src, n);
}
YS_FAKE_EXPORT CUresult cuMemcpyDtoDAsync(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream) {
  std::memmove(HostOf(dst), HostOf(src), n);
  return CUDA_SUCCESS;
}
YS_FAKE_EXPORT CUresult cuMemcpyPeerAsync(CUdeviceptr dst, CUcontext, CUdeviceptr src, CUcontext,
                                          size_t n, CUstream s) {
  return cuMemcpyDtoDAsync(dst, src, n, s);
}
YS_FAKE_EXPORT CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s) {
  return cuMemcpyDtoDAsync(dst, src, n, s);
}
YS_FAKE_EXPORT CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char value, size_t n, CUstream) {
  std::memset(HostOf(dst), value, n);
  return CUDA_SUCCESS;
}
YS_FAKE_EXPORT CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned int value, size_t n, CUstream) {
  auto* p = static_cast<unsigned int*>(HostOf(dst));
  for (size_t i = 0; i < n; ++i) p[i] = value;
  return CUDA_SUCCESS;
}

YS_FAKE_EXPORT CUresult cuStreamCreate(CUstream* s, unsigned int) {
  if (current == nullptr) return CUDA_ERROR_INVALID_CONTEXT;
  *s = reinterpret_cast<CUstream>(&stream_tag);
  return CUDA_SUCCESS;
}
YS_FAKE_EXPORT CUresult cuStreamDestroy(CUstream) { return CUDA_SUCCESS; }
YS_FAKE_EXPORT CUresult cuStreamSynchronize(CUstream) { return CUDA_SUCCESS; }

YS_FAKE_EXPORT CUresult cuEventCreate(CUevent* e, unsigned int) {
  *e = reinterpret_cast<CUevent>(new (std::nothrow) FakeEvent{});
  return *e != nullptr ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}
YS_FAKE_EXPORT CUresult cuEventDestroy(CUevent e) {
  delete reinterpret_cast<FakeEvent*>(e);
  return CUDA_SUCCESS;
}
YS_FAKE_EXPORT CUresult cuEventRecord(CUevent e, CUstream) {
  reinterpret_cast<FakeEvent*>(e)->at = std::chrono::steady_clock::now();
  return CUDA_SUCCESS;
}
YS_FAKE_EXPORT CUresult cuEventSynchronize(CUevent) { return CUDA_SUCCESS; }
YS_FAKE_EXPORT CUresult cuEventElapsedTime(float* ms, CUevent start, CUevent end) {
  *ms = std::chrono::duration<float, std::milli>(reinterpret_cast<FakeEvent*>(end)->at -
                                                 reinterpret_cast<FakeEvent*>(start)->at)
            .count();
  return CUDA_SUCCESS;
}
// The symbol of drivers before CUDA 12.8 (cuda.h maps the name to _v2 from 12.8 on); same
// signature and meaning.
#undef cuEventElapsedTime
YS_FAKE_EXPORT CUresult cuEventElapsedTime(float* ms, CUevent start, CUevent end) {
  return cuEventElapsedTime_v2(ms, start, end);
}

YS_FAKE_EXPORT CUresult cuModuleLoadData(CUmodule*, const void*) {
  return CUDA_ERROR_NOT_SUPPORTED;
}
YS_FAKE_EXPORT CUresult cuModuleLoadDataEx(CUmodule*, const void*, unsigned int, CUjit_option*,
                                           void**) {
  return CUDA_ERROR_NOT_SUPPORTED;
}
YS_FAKE_EXPORT CUresult cuModuleUnload(CUmodule) { return CUDA_SUCCESS; }
YS_FAKE_EXPORT CUresult cuModuleGetFunction(CUfunction*, CUmodule, const char*) {
  return CUDA_ERROR_NOT_SUPPORTED;
}
YS_FAKE_EXPORT CUresult cuLaunchKernel(CUfunction, unsigned int, unsigned int, unsigned int,
                                       unsigned int, unsigned int, unsigned int, unsigned int,
                                       CUstream, void**, void**) {
  return CUDA_ERROR_NOT_SUPPORTED;
}
YS_FAKE_EXPORT CUresult cuFuncGetAttribute(int*, CUfunction_attribute, CUfunction) {
  return CUDA_ERROR_NOT_SUPPORTED;
}
YS_FAKE_EXPORT CUresult cuOccupancyMaxPotentialBlockSize(int*, int*, CUfunction, CUoccupancyB2DSize,
                                                         size_t, int) {
  return CUDA_ERROR_NOT_SUPPORTED;
}

}  // extern "C"
