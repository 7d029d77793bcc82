#include "checks/check.h"

#include <dlfcn.h>

#include "gpu/gpu_snapshot_json.h"

namespace ys::checks {

const Result<host::Topology>& CheckContext::topology() const {
  std::call_once(topo_once_, [this] {
    topo_ = std::make_unique<Result<host::Topology>>(host::LoadTopology(host_));
  });
  return *topo_;
}

namespace {

// Live NVML. Until the nvml helper's reader is merged this only says whether the library can be
// opened: without it the GPU units skip with dlopen's own words.
Result<gpu::GpuSnapshot> LiveGpuSnapshot() {
  void* lib = ::dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    const char* why = ::dlerror();
    return Status::NotFound(std::string("NVML not found: ") +
                            (why != nullptr ? why : "libnvidia-ml.so.1 cannot be opened"));
  }
  ::dlclose(lib);
  return Status::Unsupported("NVML found, but this build has no NVML reader");
}

}  // namespace

const Result<gpu::GpuSnapshot>& CheckContext::gpu() const {
  std::call_once(gpu_once_, [this] {
    if (gpu_) return;  // set_gpu()
    Result<gpu::GpuSnapshot> s = Status::Internal("unset");
    if (!nvml_state_path_.empty()) {
      s = gpu::LoadGpuSnapshot(nvml_state_path_);
    } else if (!host_.live()) {
      std::string path = host_.Resolve(gpu::kRecordedNvmlPath);
      if (host_.Exists(gpu::kRecordedNvmlPath)) {
        s = gpu::LoadGpuSnapshot(path);
      } else {
        s = Status::NotFound("no recorded NVML state: " + path +
                             " is absent (give --nvml-state FILE)");
      }
    } else {
      s = LiveGpuSnapshot();
    }
    gpu_ = std::make_unique<Result<gpu::GpuSnapshot>>(std::move(s));
  });
  return *gpu_;
}

}  // namespace ys::checks
