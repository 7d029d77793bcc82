// Detection of the GPU tools' outputs, and nvidia-smi nvlink -s / -e (validate/gpu_tool_output.h).
#include "validate/gpu_tool_output.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "core/text.h"

namespace ys::validate {
// Named, not anonymous: the library is built in unity batches.
namespace gpu_tool_output_impl {

// "GPU 3: NVIDIA H100 80GB HBM3 (UUID: GPU-...)" -> 3, name, uuid.
bool ReadGpuLine(std::string_view line, NvlinkGpu* g) {
  if (!StartsWith(line, "GPU ")) return false;
  size_t colon = line.find(':');
  if (colon == std::string_view::npos) return false;
  auto index = ParseInt(Trim(line.substr(4, colon - 4)));
  if (!index || *index < 0 || *index > 4096) return false;
  g->index = static_cast<int>(*index);
  std::string_view rest = Trim(line.substr(colon + 1));
  size_t uuid = rest.find("(UUID:");
  g->name = std::string(Trim(rest.substr(0, uuid)));
  if (uuid != std::string_view::npos) {
    std::string_view u = Trim(rest.substr(uuid + 6));
    if (!u.empty() && u.back() == ')') u.remove_suffix(1);
    g->uuid = std::string(Trim(u));
  }
  return true;
}

NvlinkLink& LinkOf(NvlinkGpu& g, int link) {
  for (NvlinkLink& l : g.links) {
    if (l.link == link) return l;
  }
  g.links.push_back({.link = link});
  return g.links.back();
}

// "Link 3: 26.562 GB/s", "Link 3: <inactive>", "Link 3: Replay Errors: 0" (or several counters
// separated by commas).
Status ReadLinkLine(std::string_view line, NvlinkGpu& g, std::string_view name, int64_t no) {
  size_t colon = line.find(':');
  auto link =
      colon == std::string_view::npos ? std::nullopt : ParseInt(Trim(line.substr(5, colon - 5)));
  auto bad = [&](std::string_view what) {
    return Status::Invalid(
        fmt::format("{}:{}: {}: expected 'Link L: <speed> GB/s', 'Link L: "
                    "<inactive>' or 'Link L: <counter>: <count>'",
                    name, no, what));
  };
  if (!link || *link < 0 || *link > 255) return bad("a link number");
  NvlinkLink& l = LinkOf(g, static_cast<int>(*link));
  std::string_view rest = Trim(line.substr(colon + 1));
  if (rest == "<inactive>" || ToLower(rest) == "inactive") {
    l.active = false;
    return Status::Ok();
  }
  if (EndsWith(rest, "GB/s")) {
    auto v = ParseDouble(Trim(rest.substr(0, rest.size() - 4)));
    if (!v || *v < 0) return bad("a link speed");
    l.active = true;
    l.speed_gbps = *v;
    return Status::Ok();
  }
  for (std::string_view part : Split(rest, ',')) {
    size_t c = part.rfind(':');
    if (c == std::string_view::npos) return bad("a counter");
    auto v = ParseUint(Trim(part.substr(c + 1)));
    if (!v) return bad("a counter value");
    l.counters[std::string(Trim(part.substr(0, c)))] = *v;
  }
  return Status::Ok();
}

}  // namespace gpu_tool_output_impl

bool IsAllLinksInactiveLine(std::string_view line) {
  return ToLower(line).find("all links are inactive") != std::string::npos;
}

GpuToolOutput DetectGpuToolOutput(std::string_view head) {
  std::string_view t = Trim(head);
  size_t brace = t.find('{');
  if (brace != std::string_view::npos && brace < 512 &&
      (t.find("\"DCGM GPU Diagnostic\"") != std::string_view::npos ||
       t.find("\"DCGM Diagnostic\"") != std::string_view::npos)) {
    return GpuToolOutput::kDcgmDiagJson;
  }
  bool gpu_line = false;
  for (std::string_view raw : SplitLines(head)) {
    std::string_view line = Trim(raw);
    if (StartsWith(line, "| Diagnostic") || StartsWith(line, "|Diagnostic")) {
      return GpuToolOutput::kDcgmDiagTable;
    }
    NvlinkGpu g;
    if (gpu_tool_output_impl::ReadGpuLine(line, &g)) gpu_line = true;
    if (gpu_line && ((StartsWith(line, "Link ") && line.find(':') != std::string_view::npos) ||
                     IsAllLinksInactiveLine(line))) {
      return GpuToolOutput::kNvlink;
    }
  }
  return GpuToolOutput::kNone;
}

Result<std::vector<NvlinkGpu>> ParseNvlinkOutput(std::string_view text, std::string_view name) {
  std::vector<NvlinkGpu> gpus;
  int64_t no = 0;
  for (std::string_view raw : SplitLines(text)) {
    ++no;
    std::string_view line = Trim(raw);
    NvlinkGpu g;
    if (gpu_tool_output_impl::ReadGpuLine(line, &g)) {
      // -s and -e of the same GPU in one file: one entry.
      auto same = std::find_if(gpus.begin(), gpus.end(),
                               [&](const NvlinkGpu& o) { return o.index == g.index; });
      if (same == gpus.end()) {
        g.line = no;
        gpus.push_back(std::move(g));
      } else {
        std::rotate(same, same + 1, gpus.end());  // the current block is the last entry
      }
      continue;
    }
    if (!gpus.empty() && IsAllLinksInactiveLine(line)) {
      gpus.back().all_inactive = true;
      continue;
    }
    if (!StartsWith(line, "Link ") || gpus.empty()) continue;
    if (Status s = gpu_tool_output_impl::ReadLinkLine(line, gpus.back(), name, no); !s.ok()) {
      return s;
    }
  }
  if (gpus.empty()) {
    return Status::Invalid(fmt::format(
        "{}: no NVLink block: expected 'GPU N: <name> (UUID: ...)' followed by 'Link L: ...' "
        "lines (nvidia-smi nvlink -s or -e)",
        name));
  }
  std::sort(gpus.begin(), gpus.end(),
            [](const NvlinkGpu& a, const NvlinkGpu& b) { return a.index < b.index; });
  return gpus;
}

}  // namespace ys::validate
