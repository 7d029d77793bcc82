// How far apart two PCI devices are, in the words of `nvidia-smi topo -m` (and NCCL's
// NCCL_P2P_LEVEL / NCCL_NET_GDR_LEVEL), decided from their canonical sysfs paths.
//
// The sysfs path of a device lists the host bridge (root complex) and every bridge above it:
//   /sys/devices/pci0000:10/0000:10:01.0/0000:11:00.0/0000:12:00.0/0000:13:00.0
//                host bridge  root port    switch up    switch down  device
// The deepest common component of two paths decides the level:
//   PIX   a common bridge, each device at most one bridge below it (the ports of one switch)
//   PXB   a common bridge, more bridges between (several switches), no host bridge crossed
//   PHB   only the host bridge in common (the same root complex, different root ports)
//   NODE  different host bridges in the same NUMA node
//   SYS   different host bridges in different NUMA nodes (across the CPU interconnect)
#ifndef YARDSTICK_HOST_PCI_LOCALITY_H_
#define YARDSTICK_HOST_PCI_LOCALITY_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "host/pci.h"

namespace ys::host {

// Ordered from nearest to farthest; kUnknown last.
enum class PciLocality { kSelf, kPix, kPxb, kPhb, kNode, kSys, kUnknown };

// "X", "PIX", "PXB", "PHB", "NODE", "SYS", "?".
std::string_view PciLocalityName(PciLocality level);

struct PciSysfsPath {
  // Components between /sys/devices and the host bridge: empty on bare metal, the ACPI and
  // VMBus nodes on some virtual machines.
  std::vector<std::string> platform;
  std::string host_bridge;         // "pci0000:10"
  std::vector<std::string> chain;  // below the host bridge, ending with the device itself
};

// "/sys/devices/pci0000:10/0000:10:01.0/0000:11:00.0" -> its components. Invalid (naming the
// path and what was expected) when it is not under /sys/devices, has no host bridge, or has a
// component below the host bridge that is neither a PCI address nor a nested host bridge.
Result<PciSysfsPath> ParsePciSysfsPath(std::string_view path);

// The level between two parsed paths. `same_numa_node` decides NODE or SYS when the host bridges
// differ; when it is unknown (nullopt) that case gives kUnknown.
PciLocality PciPathLocality(const PciSysfsPath& a, const PciSysfsPath& b,
                            std::optional<bool> same_numa_node);

// Whether two devices are in the same NUMA node: by numa_node when firmware gave both, else
// true on a host with at most one NUMA node, else by equal local CPU lists when both are known;
// nullopt when nothing tells.
std::optional<bool> SameNumaNode(const PciDevice& a, const PciDevice& b, size_t host_numa_nodes);

// Both steps for two devices read from sysfs. An error when a sysfs path does not parse (a
// device whose /sys/bus/pci/devices link did not resolve keeps a non-canonical path).
Result<PciLocality> DeviceLocality(const PciDevice& a, const PciDevice& b, size_t host_numa_nodes);

}  // namespace ys::host

#endif  // YARDSTICK_HOST_PCI_LOCALITY_H_
