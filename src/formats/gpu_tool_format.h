// The readers of NVIDIA's GPU tools' saved outputs (dcgmi diag, nvidia-smi nvlink) as run
// documents: one reader, told which output it is given.
#ifndef YARDSTICK_FORMATS_GPU_TOOL_FORMAT_H_
#define YARDSTICK_FORMATS_GPU_TOOL_FORMAT_H_

#include <any>

#include "core/format_registry.h"
#include "validate/gpu_tool_output.h"
#include "validate/gpu_tool_run.h"

namespace ys::formats {

// The file at r.path, or the text the request carries (a bug report's nvidia-smi nvlink section).
inline Result<std::any> ReadGpuTool(const FormatRequest& r, validate::GpuToolOutput kind) {
  auto text = ReadFormatContent(r, validate::kMaxGpuToolOutputBytes,
                                "a dcgmi diag or nvidia-smi nvlink output");
  if (!text.ok()) return text.status();
  auto doc = validate::IngestGpuToolText(*text, r.path, kind);
  if (!doc.ok()) return doc.status();
  if (!doc->has_value()) return Status::Invalid(r.path + ": not a dcgmi or nvidia-smi output");
  return std::any(std::move(**doc));
}

}  // namespace ys::formats

#endif  // YARDSTICK_FORMATS_GPU_TOOL_FORMAT_H_
