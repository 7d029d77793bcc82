// Format unit: `nvidia-smi -q` text (any driver from R470 on, any subset of sections) as the GPU
// state every gpu.* check reads.
#include "formats/format_text.h"
#include "formats/gpu_state_format.h"
#include "gpu/smi_dump.h"

namespace ys::formats {
namespace {

FormatSniff SniffSmiText(std::string_view head) {
  if (gpu::DetectSmiDump(head) == gpu::SmiDumpFormat::kText) return Whole("the NVSMI LOG banner");
  if (FirstLine(head, [](std::string_view l) {
        return StartsWith(Trim(l), "Attached GPUs") || StartsWith(Trim(l), "Product Name");
      })) {
    return Near(0.5, "the '==============NVSMI LOG==============' banner");
  }
  return {};
}

Result<std::any> ReadSmiText(const FormatRequest& r) {
  return ReadGpuState(r, "an nvidia-smi -q dump", gpu::ReadSmiDump);
}

}  // namespace

YS_FORMAT(
    SniffSmiText, ReadSmiText,
    {.name = "nvidia-smi-q",
     .produces = FormatProduct::kGpuState,
     .summary = "nvidia-smi -q (text, any -d sections): the GPUs' state for every gpu.* check",
     .example = "==============NVSMI LOG=============="})

}  // namespace ys::formats
