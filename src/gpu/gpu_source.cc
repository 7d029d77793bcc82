#include "gpu/gpu_source.h"

#include "gpu/gpu_snapshot_json.h"
#include "gpu/nvml_reader.h"
#include "gpu/smi_dump.h"

namespace ys::gpu {

Result<GpuSnapshot> LoadGpuSnapshotFor(const host::Host& host, const std::string& nvml_state_path,
                                       const std::string& nvml_library) {
  if (!nvml_state_path.empty()) return LoadGpuStateFile(nvml_state_path);
  if (!host.live()) {
    if (!host.Exists(kRecordedNvmlPath)) {
      return Status::NotFound("no recorded NVML state: " + host.Resolve(kRecordedNvmlPath) +
                              " is absent (`yardstick capture` writes it on a node with GPUs; "
                              "or give --nvml-state FILE)");
    }
    // Resolved inside the tree: a link there to a file of this machine is not followed out.
    auto file = host.RegularFilePath(kRecordedNvmlPath);
    if (!file.ok()) return Status::Invalid("recorded NVML state: " + file.status().message());
    return LoadGpuSnapshot(*file);
  }
  return ReadLiveGpuSnapshot(nvml_library);
}

}  // namespace ys::gpu
