// DynamicLibrary: a shared library opened at run time (dlopen), closed when the object goes away.
//
// The NVIDIA libraries (libnvidia-ml.so.1, libcuda.so.1, ...) are only ever reached through this
// class, so the binary has no link-time dependency on them and runs on nodes without a driver.
// A symbol that the installed library lacks is answered with nullptr: the caller treats that
// query as "not supported" by this driver, never as a failure of the whole library.
//
// Move-only. Symbol() may be called from several threads; Open and destruction may not race
// with uses of the same object.
#ifndef YARDSTICK_GPU_DYNAMIC_LIBRARY_H_
#define YARDSTICK_GPU_DYNAMIC_LIBRARY_H_

#include <string>

#include "core/status.h"

namespace ys::gpu {

class DynamicLibrary {
 public:
  // dlopen(name, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE). NotFound carries dlerror()'s text
  // ("libnvidia-ml.so.1: cannot open shared object file: No such file or directory").
  static Result<DynamicLibrary> Open(const std::string& name);

  DynamicLibrary(DynamicLibrary&& other) noexcept;
  DynamicLibrary& operator=(DynamicLibrary&& other) noexcept;
  DynamicLibrary(const DynamicLibrary&) = delete;
  DynamicLibrary& operator=(const DynamicLibrary&) = delete;
  ~DynamicLibrary();

  const std::string& name() const { return name_; }

  // The address of `symbol`, or nullptr when the library does not export it.
  void* Symbol(const char* symbol) const;

  // Symbol() cast to a function pointer type: `auto f = lib.Function<int (*)(int*)>("f");`.
  template <typename Fn>
  Fn Function(const char* symbol) const {
    return reinterpret_cast<Fn>(Symbol(symbol));
  }

 private:
  DynamicLibrary(std::string name, void* handle) : name_(std::move(name)), handle_(handle) {}

  std::string name_;
  void* handle_ = nullptr;  // owned; dlclose'd by the destructor
};

}  // namespace ys::gpu

#endif  // YARDSTICK_GPU_DYNAMIC_LIBRARY_H_
