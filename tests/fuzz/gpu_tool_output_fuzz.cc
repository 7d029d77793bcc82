// Fuzz target: the readers of dcgmi diag (table and -j JSON, validate/dcgm_diag.cc) and of
// nvidia-smi nvlink -s/-e (validate/gpu_tool_output.cc), and the run documents made from them
// (validate/gpu_tool_run.cc), the path `yardstick ingest` takes over such a file.
// Selector byte: 0 detected from the content, 1 read as dcgmi diag, 2 read as nvidia-smi nvlink.
#include "fuzz_target.h"
#include "fuzz_util.h"
#include "validate/gpu_tool_output.h"
#include "validate/gpu_tool_run.h"

YS_FUZZ_TARGET(gpu_tool_output) {
  using namespace ys::validate;
  std::string_view text = ys::fuzz::AsText(data, size);
  std::optional<int> which = ys::fuzz::TakeSelector(&text, 3);
  if (!which) return 0;
  static constexpr GpuToolOutput kForced[] = {GpuToolOutput::kNone, GpuToolOutput::kDcgmDiagTable,
                                              GpuToolOutput::kNvlink};
  (void)IngestGpuToolText(text, "fuzz.txt", kForced[*which]);
  return 0;
}
