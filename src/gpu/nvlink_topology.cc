#include "gpu/nvlink_topology.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "core/text.h"

namespace ys::gpu {

namespace {

bool AllHex(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isxdigit(static_cast<unsigned char>(c)) != 0;
  });
}

}  // namespace

Result<std::string> NormalizePciBusId(std::string_view bus_id) {
  std::string_view t = Trim(bus_id);
  auto bad = [&] {
    return Status::Invalid("expected a PCI address like \"00000000:1B:00.0\", got \"" +
                           SanitizeForDisplay(t.substr(0, 40)) + "\"");
  };
  auto parts = Split(t, ':');
  std::string_view domain = "0", bus, devfn;
  if (parts.size() == 3) {
    domain = parts[0], bus = parts[1], devfn = parts[2];
  } else if (parts.size() == 2) {
    bus = parts[0], devfn = parts[1];
  } else {
    return bad();
  }
  size_t dot = devfn.find('.');
  if (dot == std::string_view::npos) return bad();
  std::string_view dev = devfn.substr(0, dot), fn = devfn.substr(dot + 1);
  if (domain.size() > 8 || !AllHex(domain) || bus.size() != 2 || !AllHex(bus) || dev.size() != 2 ||
      !AllHex(dev) || fn.size() != 1 || fn[0] < '0' || fn[0] > '7') {
    return bad();
  }
  uint64_t d = *ParseHex(domain), b = *ParseHex(bus), v = *ParseHex(dev);
  if (v > 0x1f) return bad();
  return fmt::format("{:04x}:{:02x}:{:02x}.{}", d, b, v, fn);
}

NvLinkPeers CountNvLinks(const GpuSnapshot& s) {
  NvLinkPeers out;
  std::map<std::string, int> gpu_at;  // normalised bus id -> NVML index
  for (const auto& d : s.devices) {
    if (auto id = NormalizePciBusId(d.pci_bus_id); id.ok()) gpu_at[*id] = d.index;
  }
  std::map<int, std::map<int, int>> direct;            // a -> b -> links
  std::map<int, std::map<std::string, int>> switched;  // a -> switch address -> links
  for (const auto& d : s.devices) {
    for (const auto& l : d.nvlinks) {
      if (!l.active.has()) {
        ++out.unknown_links[d.index];
        continue;
      }
      if (!*l.active) continue;
      ++out.active_links[d.index];
      if (!l.remote_pci_bus_id.has()) {
        ++out.unknown_links[d.index];
        continue;
      }
      auto remote = NormalizePciBusId(*l.remote_pci_bus_id);
      if (!remote.ok()) {
        ++out.unknown_links[d.index];
        out.notes.push_back(fmt::format("GPU{} NVLink {}: remote end {}", d.index, l.link,
                                        remote.status().message()));
        continue;
      }
      auto peer = gpu_at.find(*remote);
      if (peer != gpu_at.end() && peer->second != d.index) {
        ++direct[d.index][peer->second];
      } else if (peer == gpu_at.end()) {
        ++switched[d.index][*remote];
      }
    }
  }
  for (const auto& a : s.devices) {
    for (const auto& b : s.devices) {
      if (a.index == b.index) continue;
      int n = 0;
      int ab = direct[a.index][b.index], ba = direct[b.index][a.index];
      if (ab != ba && a.index < b.index) {
        out.notes.push_back(fmt::format(
            "GPU{} reports {} NVLinks to GPU{}, which reports {} back; the smaller count is shown",
            a.index, ab, b.index, ba));
      }
      n += std::min(ab, ba);
      int from_a = 0, from_b = 0;
      for (const auto& [sw, count] : switched[a.index]) {
        auto it = switched[b.index].find(sw);
        if (it == switched[b.index].end()) continue;
        from_a += count;
        from_b += it->second;
      }
      n += std::min(from_a, from_b);
      if (n > 0) out.links[{a.index, b.index}] = n;
    }
  }
  return out;
}

std::string_view TopologyLevelName(int level) {
  switch (level) {
    case 0:
    case 10:
      return "PIX";
    case 20:
      return "PXB";
    case 30:
      return "PHB";
    case 40:
      return "NODE";
    case 50:
      return "SYS";
    default:
      return "";
  }
}

}  // namespace ys::gpu
