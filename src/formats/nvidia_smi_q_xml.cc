// Format unit: `nvidia-smi -q -x` XML as the GPU state every gpu.* check reads.
#include "formats/format_text.h"
#include "formats/gpu_state_format.h"
#include "gpu/smi_dump.h"

namespace ys::formats {
namespace {

FormatSniff SniffSmiXml(std::string_view head) {
  if (gpu::DetectSmiDump(head) == gpu::SmiDumpFormat::kXml) {
    return head.find("<nvidia_smi_log") != std::string_view::npos
               ? Whole("the <nvidia_smi_log> element")
               : Near(0.3, "the <nvidia_smi_log> element");
  }
  return {};
}

Result<std::any> ReadSmiXml(const FormatRequest& r) {
  return ReadGpuState(r, "an nvidia-smi -q -x dump", gpu::ReadSmiDump);
}

}  // namespace

YS_FORMAT(SniffSmiXml, ReadSmiXml,
          {.name = "nvidia-smi-q-xml",
           .produces = FormatProduct::kGpuState,
           .summary = "nvidia-smi -q -x (XML): the GPUs' state for every gpu.* check",
           .example = "<nvidia_smi_log><driver_version>550.54.15</driver_version>..."})

}  // namespace ys::formats
