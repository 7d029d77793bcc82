// Where a run's GPU state comes from: the one rule that CheckContext::gpu() and `yardstick topo`
// share.
//   1. --nvml-state FILE, when given: that recording, or an nvidia-smi -q dump (gpu/smi_dump.h),
//      on any host, live or recorded.
//   2. A recorded host tree (--root DIR): DIR/.yardstick/nvml.json, written by `yardstick capture`
//      on a node with GPUs. Absent: NotFound saying so (a tree captured without GPUs has none).
//   3. The live host: NVML opened now ("NVML not found: ..." where there is no driver).
// Never the live GPUs for a recorded tree: a fixture replayed on a GPU node must not mix in the
// node's own GPUs.
#ifndef YARDSTICK_GPU_GPU_SOURCE_H_
#define YARDSTICK_GPU_GPU_SOURCE_H_

#include <string>

#include "core/status.h"
#include "gpu/gpu_snapshot.h"
#include "gpu/nvml_api.h"
#include "host/host.h"

namespace ys::gpu {

Result<GpuSnapshot> LoadGpuSnapshotFor(const host::Host& host, const std::string& nvml_state_path,
                                       const std::string& nvml_library = nvml::kLibraryName);

}  // namespace ys::gpu

#endif  // YARDSTICK_GPU_GPU_SOURCE_H_
