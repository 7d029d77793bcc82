#include "checks/check.h"

#include "gpu/gpu_source.h"

namespace ys::checks {

const Result<host::Topology>& CheckContext::topology() const {
  std::call_once(topo_once_, [this] {
    topo_ = std::make_unique<Result<host::Topology>>(host::LoadTopology(host_));
  });
  return *topo_;
}

const Result<gpu::GpuSnapshot>& CheckContext::gpu() const {
  std::call_once(gpu_once_, [this] {
    gpu_ = std::make_unique<Result<gpu::GpuSnapshot>>(
        gpu::LoadGpuSnapshotFor(host_, nvml_state_path_));
  });
  return *gpu_;
}

void CheckContext::set_gpu(Result<gpu::GpuSnapshot> snapshot) {
  std::call_once(gpu_once_, [&] {
    gpu_ = std::make_unique<Result<gpu::GpuSnapshot>>(std::move(snapshot));
  });
}

}  // namespace ys::checks
