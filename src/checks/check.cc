#include "checks/check.h"

#include "gpu/gpu_snapshot_json.h"

namespace ys::checks {

const Result<host::Topology>& CheckContext::topology() const {
  std::call_once(topo_once_, [this] {
    topo_ = std::make_unique<Result<host::Topology>>(host::LoadTopology(host_));
  });
  return *topo_;
}

namespace {

// NOTE (topo worktree): the nvml helper's gpu::LoadGpuSnapshotFor (gpu/gpu_source.h) replaces
// this on merge; it is the same rule, plus live NVML on the live host.
Result<gpu::GpuSnapshot> LoadGpuSnapshotFor(const host::Host& host, const std::string& state_path) {
  if (!state_path.empty()) return gpu::LoadGpuSnapshot(state_path);
  if (!host.live()) {
    std::string file = host.Resolve(gpu::kRecordedNvmlPath);
    if (!host.Exists(gpu::kRecordedNvmlPath)) {
      return Status::NotFound("no recorded NVML state: " + file +
                              " is absent (`yardstick capture` writes it on a node with GPUs; "
                              "or give --nvml-state FILE)");
    }
    return gpu::LoadGpuSnapshot(file);
  }
  return Status::Unsupported("NVML not read: this build has no live NVML reader "
                             "(give recorded state with --nvml-state FILE)");
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
