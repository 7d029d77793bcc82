// The GPU-state formats (--nvml-state): one reader over the file's text, bounded as a snapshot.
#ifndef YARDSTICK_FORMATS_GPU_STATE_FORMAT_H_
#define YARDSTICK_FORMATS_GPU_STATE_FORMAT_H_

#include <any>

#include "core/document_file.h"
#include "core/format_registry.h"
#include "gpu/gpu_snapshot_json.h"

namespace ys::formats {

template <typename Parse>
Result<std::any> ReadGpuState(const FormatRequest& r, std::string_view what, Parse parse) {
  auto text = ReadFormatContent(r, gpu::kMaxSnapshotFileBytes, what);
  if (!text.ok()) return text.status();
  Result<gpu::GpuSnapshot> s = parse(*text, r.path);
  if (!s.ok()) return s.status();
  return std::any(std::move(*s));
}

}  // namespace ys::formats

#endif  // YARDSTICK_FORMATS_GPU_STATE_FORMAT_H_
