// Format unit: the `dcgmi diag` table (DCGM 3.x and 4.x), whole or a fragment of its rows.
#include "formats/format_text.h"
#include "formats/gpu_tool_format.h"

namespace ys::formats {
namespace {

FormatSniff SniffDcgmDiagTable(std::string_view head) {
  if (auto line = FirstLine(head, [](std::string_view l) {
        l = Trim(l);
        return StartsWith(l, "| Diagnostic") || StartsWith(l, "|Diagnostic");
      })) {
    return Whole(Clip(*line));
  }
  // Rows without the header (a table pasted into a ticket from its middle): read as far as
  // they go.
  if (auto row = FirstLine(head, validate::IsDcgmResultRow)) {
    return Fragment(Clip(*row), "the '| Diagnostic | Result |' header");
  }
  return {};
}

Result<std::any> ReadDcgmDiagTable(const FormatRequest& r) {
  return ReadGpuTool(r, validate::GpuToolOutput::kDcgmDiagTable);
}

}  // namespace

YS_FORMAT(SniffDcgmDiagTable, ReadDcgmDiagTable,
          {.name = "dcgmi-diag",
           .produces = FormatProduct::kRunDocument,
           .summary = "dcgmi diag -r 1|2|3|4 table (DCGM 3.x and 4.x), judged as gpu.dcgm_diag; "
                      "a fragment of its rows is read as far as it goes",
           .example = "| Diagnostic                | Result                                  |"})

}  // namespace ys::formats
