#include "host/pci_locality.h"

#include <algorithm>
#include <cctype>

#include "core/text.h"

namespace ys::host {

namespace {

bool IsHexRun(std::string_view s, size_t min, size_t max) {
  return s.size() >= min && s.size() <= max && std::all_of(s.begin(), s.end(), [](char c) {
           return std::isxdigit(static_cast<unsigned char>(c)) != 0;
         });
}

// "0000:10:01.0" (domain of 4 or more hex digits).
bool IsPciAddress(std::string_view s) {
  auto parts = Split(s, ':');
  if (parts.size() != 3) return false;
  std::string_view devfn = parts[2];
  return IsHexRun(parts[0], 4, 8) && IsHexRun(parts[1], 2, 2) && devfn.size() == 4 &&
         IsHexRun(devfn.substr(0, 2), 2, 2) && devfn[2] == '.' && devfn[3] >= '0' &&
         devfn[3] <= '7';
}

// "pci0000:10", "pci10000:e0" (a VMD domain), or a VMBus host bridge "pci7870:00".
bool IsHostBridge(std::string_view s) {
  if (!StartsWith(s, "pci")) return false;
  auto parts = Split(s.substr(3), ':');
  return parts.size() == 2 && IsHexRun(parts[0], 4, 8) && IsHexRun(parts[1], 2, 2);
}

}  // namespace

std::string_view PciLocalityName(PciLocality level) {
  switch (level) {
    case PciLocality::kSelf:
      return "X";
    case PciLocality::kPix:
      return "PIX";
    case PciLocality::kPxb:
      return "PXB";
    case PciLocality::kPhb:
      return "PHB";
    case PciLocality::kNode:
      return "NODE";
    case PciLocality::kSys:
      return "SYS";
    case PciLocality::kUnknown:
      break;
  }
  return "?";
}

Result<PciSysfsPath> ParsePciSysfsPath(std::string_view path) {
  constexpr std::string_view kPrefix = "/sys/devices/";
  auto bad = [&](const std::string& why) {
    return Status::Invalid("sysfs path \"" + SanitizeForDisplay(path.substr(0, 200)) +
                           "\": " + why);
  };
  if (!StartsWith(path, kPrefix)) {
    return bad(
        "expected a canonical device path under /sys/devices/ (the link in "
        "/sys/bus/pci/devices did not resolve)");
  }
  PciSysfsPath out;
  bool in_chain = false;
  for (std::string_view c : Split(path.substr(kPrefix.size()), '/')) {
    if (c.empty()) continue;
    if (c == "." || c == "..")
      return bad("expected a canonical path, found \"" + std::string(c) + "\"");
    if (!in_chain) {
      if (IsHostBridge(c)) {
        out.host_bridge = std::string(c);
        in_chain = true;
      } else {
        out.platform.emplace_back(c);
      }
      continue;
    }
    if (!IsPciAddress(c) && !IsHostBridge(c)) {
      return bad("expected PCI addresses like 0000:10:01.0 below the host bridge, found \"" +
                 SanitizeForDisplay(c.substr(0, 60)) + "\"");
    }
    out.chain.emplace_back(c);
  }
  if (!in_chain) return bad("expected a host bridge component like pci0000:00");
  if (out.chain.empty()) return bad("expected a device below the host bridge " + out.host_bridge);
  if (!IsPciAddress(out.chain.back())) return bad("expected it to end with a PCI address");
  return out;
}

PciLocality PciPathLocality(const PciSysfsPath& a, const PciSysfsPath& b,
                            std::optional<bool> same_numa_node) {
  if (a.platform != b.platform || a.host_bridge != b.host_bridge) {
    if (!same_numa_node.has_value()) return PciLocality::kUnknown;
    return *same_numa_node ? PciLocality::kNode : PciLocality::kSys;
  }
  if (a.chain == b.chain) return PciLocality::kSelf;
  size_t common = 0;
  while (common < a.chain.size() && common < b.chain.size() && a.chain[common] == b.chain[common]) {
    ++common;
  }
  if (common == 0) return PciLocality::kPhb;
  // Bridges strictly between the common ancestor (chain[common - 1]) and each device.
  auto below = [common](const PciSysfsPath& p) {
    return p.chain.size() > common ? p.chain.size() - common - 1 : size_t{0};
  };
  return std::max(below(a), below(b)) <= 1 ? PciLocality::kPix : PciLocality::kPxb;
}

std::optional<bool> SameNumaNode(const PciDevice& a, const PciDevice& b, size_t host_numa_nodes) {
  if (a.numa_node >= 0 && b.numa_node >= 0) return a.numa_node == b.numa_node;
  if (host_numa_nodes <= 1) return true;
  if (!a.local_cpus.empty() && !b.local_cpus.empty()) return a.local_cpus == b.local_cpus;
  return std::nullopt;
}

Result<PciLocality> DeviceLocality(const PciDevice& a, const PciDevice& b, size_t host_numa_nodes) {
  auto pa = ParsePciSysfsPath(a.sysfs_path);
  if (!pa.ok()) return Status::Invalid(a.bdf + ": " + pa.status().message());
  auto pb = ParsePciSysfsPath(b.sysfs_path);
  if (!pb.ok()) return Status::Invalid(b.bdf + ": " + pb.status().message());
  return PciPathLocality(*pa, *pb, SameNumaNode(a, b, host_numa_nodes));
}

}  // namespace ys::host
