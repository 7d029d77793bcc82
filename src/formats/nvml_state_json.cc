// Format unit: yardstick's own NVML state recording (JSON, what `yardstick capture` writes), the
// GPU state of a machine replayed without it.
#include "formats/format_text.h"
#include "formats/gpu_state_format.h"
#include "gpu/gpu_snapshot_json.h"

namespace ys::formats {
namespace {

FormatSniff SniffNvmlState(std::string_view head) {
  if (FirstByte(head) != '{') return {};
  if (HasJsonKey(head, "devices")) return Whole("the key \"devices\"");
  if (HasJsonKey(head, "driver_version") || HasJsonKey(head, "nvml_version"))
    return Near(0.4, "the key \"devices\" (the GPUs' list)");
  return {};
}

Result<std::any> ReadNvmlState(const FormatRequest& r) {
  return ReadGpuState(r, "an NVML state recording (JSON)", gpu::ParseGpuSnapshot);
}

}  // namespace

YS_FORMAT(SniffNvmlState, ReadNvmlState,
          {.name = "nvml-state",
           .produces = FormatProduct::kGpuState,
           .summary = "an NVML state recording (JSON) that yardstick capture writes",
           .example = "{\"driver_version\": \"550.54.15\", \"devices\": [{\"index\": 0, ...}]}"})

}  // namespace ys::formats
