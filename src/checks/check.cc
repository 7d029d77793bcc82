#include "checks/check.h"

#include <stdexcept>

#include "gpu/gpu_source.h"

namespace ys::checks {

const Result<host::Topology>& CheckContext::topology() const {
  Shared& s = *shared_;
  std::call_once(s.topo_once, [&] {
    s.topo = std::make_unique<Result<host::Topology>>(host::LoadTopology(*host_));
  });
  return *s.topo;
}

const Result<gpu::GpuSnapshot>& CheckContext::gpu() const {
  Shared& s = *shared_;
  std::call_once(s.gpu_once, [&] {
    s.gpu = std::make_unique<Result<gpu::GpuSnapshot>>(
        gpu::LoadGpuSnapshotFor(*host_, s.nvml_state_path));
  });
  return *s.gpu;
}

const gpu::GpuSnapshot& CheckContext::gpus() const {
  const Result<gpu::GpuSnapshot>& s = gpu();
  if (!s.ok() || s->devices.empty()) {
    throw std::logic_error("a unit read the GPUs without declaring Need::kGpu");
  }
  return *s;
}

const gpu::GpuSnapshot& CheckContext::gpu_state() const {
  const Result<gpu::GpuSnapshot>& s = gpu();
  if (!s.ok())
    throw std::logic_error("a unit read the GPU state without declaring Need::kGpuState");
  return *s;
}

void CheckContext::set_gpu(Result<gpu::GpuSnapshot> snapshot) {
  Shared& s = *shared_;
  std::call_once(s.gpu_once,
                 [&] { s.gpu = std::make_unique<Result<gpu::GpuSnapshot>>(std::move(snapshot)); });
}

CheckContext CheckContext::ForUnit(const UnitInfo& unit) const {
  CheckContext c = *this;
  c.params_ = UnitParamSource(unit.id, unit.params, expect_->params);
  return c;
}

}  // namespace ys::checks
