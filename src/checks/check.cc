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

// STAND-IN until the nvml helper's gpu/gpu_source.{h,cc} (LoadGpuSnapshotFor) and live NVML
// reader are merged; the lead keeps theirs. Same order of sources; the live host only says
// whether NVML can be opened, so GPU units skip there with dlopen's own words.
Result<gpu::GpuSnapshot> LoadGpuSnapshotFor(const host::Host& host, const std::string& path) {
  if (!path.empty()) return gpu::LoadGpuSnapshot(path);
  if (!host.live()) {
    std::string file = host.Resolve(gpu::kRecordedNvmlPath);
    if (!host.Exists(gpu::kRecordedNvmlPath)) {
      return Status::NotFound("no recorded NVML state: " + file +
                              " is absent (`yardstick capture` writes it on a node with GPUs; "
                              "or give --nvml-state FILE)");
    }
    return gpu::LoadGpuSnapshot(file);
  }
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
    gpu_ = std::make_unique<Result<gpu::GpuSnapshot>>(LoadGpuSnapshotFor(host_, nvml_state_path_));
  });
  return *gpu_;
}

void CheckContext::set_gpu(Result<gpu::GpuSnapshot> snapshot) {
  std::call_once(gpu_once_, [&] {
    gpu_ = std::make_unique<Result<gpu::GpuSnapshot>>(std::move(snapshot));
  });
}

}  // namespace ys::checks
