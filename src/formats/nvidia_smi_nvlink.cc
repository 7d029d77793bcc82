// Format unit: `nvidia-smi nvlink -s` (link state and speed) and `-e` (error counters).
#include "formats/format_text.h"
#include "formats/gpu_tool_format.h"

namespace ys::formats {
namespace {

FormatSniff SniffNvlink(std::string_view head) {
  if (validate::DetectGpuToolOutput(head) == validate::GpuToolOutput::kNvlink) {
    auto line = FirstLine(head, [](std::string_view l) { return StartsWith(Trim(l), "Link "); });
    return Whole(line ? Clip(*line) : "a 'GPU N:' block with 'Link L:' lines");
  }
  if (FirstLine(head, [](std::string_view l) {
        return StartsWith(Trim(l), "Link ") && l.find("GB/s") != std::string_view::npos;
      })) {
    return Near(0.4, "the 'GPU N: NAME (UUID: ...)' line above the links");
  }
  return {};
}

Result<std::any> ReadNvlink(const FormatRequest& r) {
  return ReadGpuTool(r, validate::GpuToolOutput::kNvlink);
}

}  // namespace

YS_FORMAT(SniffNvlink, ReadNvlink,
          {.name = "nvidia-smi-nvlink",
           .produces = FormatProduct::kRunDocument,
           .summary = "nvidia-smi nvlink -s (state, speed) and -e (error counters), judged as "
                      "gpu.nvlink",
           .example = "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-...)  /  Link 0: 26.562 GB/s"})

}  // namespace ys::formats
