#include "checks/check.h"

#include <stdexcept>

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

const gpu::GpuSnapshot& CheckContext::gpus() const {
  const Result<gpu::GpuSnapshot>& s = gpu();
  if (!s.ok() || s->devices.empty()) {
    throw std::logic_error("a unit read the GPUs without declaring Need::kGpu");
  }
  return *s;
}

void CheckContext::set_gpu(Result<gpu::GpuSnapshot> snapshot) {
  std::call_once(gpu_once_,
                 [&] { gpu_ = std::make_unique<Result<gpu::GpuSnapshot>>(std::move(snapshot)); });
}

}  // namespace ys::checks
