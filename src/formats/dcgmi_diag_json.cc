// Format unit: `dcgmi diag -j` (DCGM 3.x "DCGM GPU Diagnostic", 4.x "DCGM Diagnostic").
#include "formats/format_text.h"
#include "formats/gpu_tool_format.h"

namespace ys::formats {
namespace {

FormatSniff SniffDcgmDiagJson(std::string_view head) {
  if (validate::DetectGpuToolOutput(head) == validate::GpuToolOutput::kDcgmDiagJson) {
    return Whole(HasJsonKey(head, "DCGM GPU Diagnostic") ? "the key \"DCGM GPU Diagnostic\""
                                                         : "the key \"DCGM Diagnostic\"");
  }
  if (FirstByte(head) == '{' && HasJsonKey(head, "test_categories")) {
    return Near(0.4, "the \"DCGM GPU Diagnostic\" or \"DCGM Diagnostic\" object");
  }
  return {};
}

Result<std::any> ReadDcgmDiagJson(const FormatRequest& r) {
  return ReadGpuTool(r, validate::GpuToolOutput::kDcgmDiagJson);
}

}  // namespace

YS_FORMAT(SniffDcgmDiagJson, ReadDcgmDiagJson,
          {.name = "dcgmi-diag-json",
           .produces = FormatProduct::kRunDocument,
           .summary = "dcgmi diag -j (JSON), judged as gpu.dcgm_diag",
           .example = "{\"DCGM GPU Diagnostic\": {\"test_categories\": [{\"category\": "
                      "\"Deployment\", \"tests\": [...]}]}}"})

}  // namespace ys::formats
