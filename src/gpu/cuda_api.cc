#include "gpu/cuda_api.h"

#include <initializer_list>
#include <memory>
#include <mutex>

#include "gpu/cuda_driver.h"

namespace ys::gpu {
namespace {

// "(driver for CUDA 12.2, R535: too old)", or "(driver too old)" when it does not say its version.
std::string TooOld(CUresult (*driver_get_version)(int*)) {
  int version = 0;
  if (driver_get_version != nullptr && driver_get_version(&version) == CUDA_SUCCESS &&
      version > 0) {
    return "(driver for " + DriverText(version) + ": too old)";
  }
  return "(driver too old)";
}

// The first of `symbols` that `lib` exports, into *out. A later one (an older driver's) is noted
// in `fallbacks`; none is Unsupported, naming them all and the driver.
template <typename Fn>
Status LoadFirst(const DynamicLibrary& lib, std::initializer_list<const char*> symbols, Fn* out,
                 CUresult (*driver_get_version)(int*), std::vector<std::string>& fallbacks) {
  std::string tried;
  for (const char* symbol : symbols) {
    *out = lib.Function<Fn>(symbol);
    if (*out != nullptr) {
      if (symbol != *symbols.begin()) fallbacks.push_back(tried + " -> " + symbol);
      return Status::Ok();
    }
    tried += (tried.empty() ? "" : " or ") + std::string(symbol);
  }
  return Status::Unsupported(lib.name() + " does not export " + tried + " " +
                             TooOld(driver_get_version));
}

}  // namespace

Result<CudaApi> CudaApi::Load(const DynamicLibrary& lib) {
  CudaApi api;
  // cuDriverGetVersion first, so that a missing symbol can name the driver.
  auto version = lib.Function<decltype(&::cuDriverGetVersion)>("cuDriverGetVersion");
#define YS_CUDA_LOAD_(fn, ...) \
  YS_RETURN_IF_ERROR(LoadFirst(lib, {__VA_ARGS__}, &api.fn, version, api.fallbacks_));
  YS_CUDA_FUNCTIONS(YS_CUDA_LOAD_)
#undef YS_CUDA_LOAD_
  return api;
}

Result<const CudaApi*> CudaApi::Get() {
  static std::once_flag once;
  static Result<const CudaApi*> result = Status::Internal("unset");
  static CudaApi api;
  static std::unique_ptr<DynamicLibrary> library;
  std::call_once(once, [] {
    std::string name = CudaDriverLibraryName();
    auto lib = DynamicLibrary::Open(name);
    if (!lib.ok()) {
      result = Status::NotFound("CUDA driver not found: " + lib.status().message());
      return;
    }
    library = std::make_unique<DynamicLibrary>(std::move(*lib));
    auto loaded = Load(*library);
    if (!loaded.ok()) {
      result = loaded.status();
      return;
    }
    api = std::move(*loaded);
    api.library_ = library.get();
    if (Status s = api.Check(api.cuInit(0), "cuInit"); !s.ok()) {
      result = s;
      return;
    }
    result = static_cast<const CudaApi*>(&api);
  });
  return result;
}

Status CudaApi::Check(CUresult rc, const char* what) const {
  if (rc == CUDA_SUCCESS) return Status::Ok();
  const char* text = nullptr;
  std::string message = std::string(what) + ": CUresult " + std::to_string(static_cast<int>(rc));
  if (cuGetErrorString != nullptr && cuGetErrorString(rc, &text) == CUDA_SUCCESS &&
      text != nullptr) {
    message += " (" + std::string(text) + ")";
  }
  return Status::Io(message);
}

Result<CudaDevice> CudaDevice::Open(int ordinal) {
  auto api = CudaApi::Get();
  if (!api.ok()) return api.status();
  const CudaApi& a = **api;
  int count = 0;
  YS_CU_RETURN(a, cuDeviceGetCount(&count));
  if (ordinal < 0 || ordinal >= count) {
    return Status::NotFound("GPU " + std::to_string(ordinal) + " not present (" +
                            std::to_string(count) + " visible)");
  }
  CudaDevice d;
  d.api_ = &a;
  d.ordinal_ = ordinal;
  YS_CU_RETURN(a, cuDeviceGet(&d.device_, ordinal));
  char name[256] = {};
  YS_CU_RETURN(a, cuDeviceGetName(name, sizeof(name) - 1, d.device_));
  d.name_ = name;
  YS_CU_RETURN(a, cuDevicePrimaryCtxRetain(&d.context_, d.device_));
  YS_RETURN_IF_ERROR(d.MakeCurrent());
  return d;
}

CudaDevice& CudaDevice::operator=(CudaDevice&& o) noexcept {
  std::swap(api_, o.api_);
  std::swap(ordinal_, o.ordinal_);
  std::swap(device_, o.device_);
  std::swap(context_, o.context_);
  std::swap(name_, o.name_);
  return *this;
}

CudaDevice::~CudaDevice() {
  if (context_ != nullptr) api_->cuDevicePrimaryCtxRelease(device_);
}

Status CudaDevice::MakeCurrent() const {
  return api_->Check(api_->cuCtxSetCurrent(context_), "cuCtxSetCurrent");
}

int CudaDevice::Attribute(CUdevice_attribute attribute) const {
  int value = 0;
  if (api_->cuDeviceGetAttribute(&value, attribute, device_) != CUDA_SUCCESS) return 0;
  return value;
}

Result<DeviceBuffer> DeviceBuffer::Allocate(const CudaApi& api, size_t bytes) {
  DeviceBuffer b;
  b.api_ = &api;
  YS_RETURN_IF_ERROR(api.Check(api.cuMemAlloc(&b.ptr_, bytes),
                               ("cuMemAlloc(" + std::to_string(bytes) + " bytes)").c_str()));
  b.bytes_ = bytes;
  return b;
}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& o) noexcept {
  std::swap(api_, o.api_);
  std::swap(ptr_, o.ptr_);
  std::swap(bytes_, o.bytes_);
  return *this;
}

DeviceBuffer::~DeviceBuffer() {
  if (ptr_ != 0) api_->cuMemFree(ptr_);
}

Result<PinnedHostBuffer> PinnedHostBuffer::Allocate(const CudaApi& api, size_t bytes,
                                                    unsigned int flags) {
  PinnedHostBuffer b;
  b.api_ = &api;
  YS_RETURN_IF_ERROR(api.Check(api.cuMemHostAlloc(&b.ptr_, bytes, flags),
                               ("cuMemHostAlloc(" + std::to_string(bytes) + " bytes)").c_str()));
  b.bytes_ = bytes;
  return b;
}

PinnedHostBuffer& PinnedHostBuffer::operator=(PinnedHostBuffer&& o) noexcept {
  std::swap(api_, o.api_);
  std::swap(ptr_, o.ptr_);
  std::swap(bytes_, o.bytes_);
  return *this;
}

PinnedHostBuffer::~PinnedHostBuffer() {
  if (ptr_ != nullptr) api_->cuMemFreeHost(ptr_);
}

Result<CudaStream> CudaStream::Create(const CudaApi& api) {
  CudaStream s;
  s.api_ = &api;
  YS_CU_RETURN(api, cuStreamCreate(&s.stream_, CU_STREAM_NON_BLOCKING));
  return s;
}

CudaStream& CudaStream::operator=(CudaStream&& o) noexcept {
  std::swap(api_, o.api_);
  std::swap(stream_, o.stream_);
  return *this;
}

CudaStream::~CudaStream() {
  if (stream_ != nullptr) api_->cuStreamDestroy(stream_);
}

Status CudaStream::Synchronize() const {
  return api_->Check(api_->cuStreamSynchronize(stream_), "cuStreamSynchronize");
}

Result<CudaEvent> CudaEvent::Create(const CudaApi& api) {
  CudaEvent e;
  e.api_ = &api;
  YS_CU_RETURN(api, cuEventCreate(&e.event_, CU_EVENT_DEFAULT));
  return e;
}

CudaEvent& CudaEvent::operator=(CudaEvent&& o) noexcept {
  std::swap(api_, o.api_);
  std::swap(event_, o.event_);
  return *this;
}

CudaEvent::~CudaEvent() {
  if (event_ != nullptr) api_->cuEventDestroy(event_);
}

Status CudaEvent::Record(const CudaStream& stream) const {
  return api_->Check(api_->cuEventRecord(event_, stream.get()), "cuEventRecord");
}

Result<float> CudaEvent::ElapsedMs(const CudaEvent& start, const CudaEvent& end) {
  const CudaApi& api = *end.api_;
  YS_CU_RETURN(api, cuEventSynchronize(end.event_));
  float ms = 0;
  YS_CU_RETURN(api, cuEventElapsedTime(&ms, start.event_, end.event_));
  return ms;
}

Result<CudaModule> CudaModule::LoadPtx(const CudaApi& api, const std::string& ptx) {
  CudaModule m;
  m.api_ = &api;
  YS_CU_RETURN(api, cuModuleLoadData(&m.module_, ptx.c_str()));
  return m;
}

CudaModule& CudaModule::operator=(CudaModule&& o) noexcept {
  std::swap(api_, o.api_);
  std::swap(module_, o.module_);
  return *this;
}

CudaModule::~CudaModule() {
  if (module_ != nullptr) api_->cuModuleUnload(module_);
}

Result<CUfunction> CudaModule::Function(const char* name) const {
  CUfunction f = nullptr;
  YS_RETURN_IF_ERROR(api_->Check(api_->cuModuleGetFunction(&f, module_, name),
                                 (std::string("cuModuleGetFunction(") + name + ")").c_str()));
  return f;
}

}  // namespace ys::gpu
