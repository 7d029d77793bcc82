// Format unit: `nvidia-smi topo -m` / `-mp` (the GPU, NIC and CPU affinity matrix).
#include "core/document_file.h"
#include "formats/format_text.h"
#include "report/topo_expect.h"

namespace ys::formats {
namespace {

FormatSniff SniffTopo(std::string_view head) {
  auto header = FirstLine(head, [](std::string_view l) {
    return l.find("GPU0") != std::string_view::npos &&
           l.find("CPU Affinity") != std::string_view::npos;
  });
  if (header) return Whole(Clip(*header));
  if (FirstLine(head, [](std::string_view l) { return StartsWith(Trim(l), "Legend:"); }) ||
      FirstLine(head, [](std::string_view l) {
        return StartsWith(Trim(l), "GPU0") && l.find(" X ") != std::string_view::npos;
      })) {
    return Near(0.5, "the header row of column names up to 'CPU Affinity'");
  }
  return {};
}

Result<std::any> ReadTopo(const FormatRequest& r) {
  auto text = ReadFormatContent(r, size_t{4} << 20, "an nvidia-smi topo -m output");
  if (!text.ok()) return text.status();
  auto parsed = report::ParseSmiTopo(*text, r.path);
  if (!parsed.ok()) return parsed.status();
  return std::any(std::move(*parsed));
}

}  // namespace

YS_FORMAT(SniffTopo, ReadTopo,
          {.name = "nvidia-smi-topo",
           .produces = FormatProduct::kTopology,
           .summary = "nvidia-smi topo -m / -mp: the GPU-GPU, GPU-NIC and CPU affinity matrix",
           .example = "        GPU0    GPU1    NIC0    CPU Affinity    NUMA Affinity"})

}  // namespace ys::formats
