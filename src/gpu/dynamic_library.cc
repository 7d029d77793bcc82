#include "gpu/dynamic_library.h"

#include <dlfcn.h>

#include <utility>

namespace ys::gpu {

Result<DynamicLibrary> DynamicLibrary::Open(const std::string& name) {
  ::dlerror();  // clear a stale message
  // RTLD_NODELETE: the library stays mapped after dlclose. The CUDA and NCCL libraries keep
  // threads and exit handlers of their own that outlive the handle; and what they allocated
  // keeps symbolised frames, so a leak report names the library (tests/sanitizers/lsan.supp)
  // rather than "<unknown module>".
  void* handle = ::dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  if (handle == nullptr) {
    const char* why = ::dlerror();
    return Status::NotFound(why != nullptr ? std::string(why) : name + ": cannot be opened");
  }
  return DynamicLibrary(name, handle);
}

DynamicLibrary::DynamicLibrary(DynamicLibrary&& other) noexcept
    : name_(std::move(other.name_)), handle_(std::exchange(other.handle_, nullptr)) {}

DynamicLibrary& DynamicLibrary::operator=(DynamicLibrary&& other) noexcept {
  if (this != &other) {
    if (handle_ != nullptr) ::dlclose(handle_);
    name_ = std::move(other.name_);
    handle_ = std::exchange(other.handle_, nullptr);
  }
  return *this;
}

DynamicLibrary::~DynamicLibrary() {
  if (handle_ != nullptr) ::dlclose(handle_);
}

void* DynamicLibrary::Symbol(const char* symbol) const {
  if (handle_ == nullptr) return nullptr;
  return ::dlsym(handle_, symbol);
}

}  // namespace ys::gpu
