// PCI devices from sysfs (/sys/bus/pci/devices/<BDF>): identity, class, NUMA locality and the
// PCIe link (reference: docs/node-checks.md §pcie).
#ifndef YARDSTICK_HOST_PCI_H_
#define YARDSTICK_HOST_PCI_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/cpu_set.h"
#include "core/status.h"
#include "host/host.h"

namespace ys::host {

inline constexpr uint16_t kVendorNvidia = 0x10de;
inline constexpr uint16_t kVendorMellanox = 0x15b3;

struct PciLink {
  std::optional<double> current_gts;  // "16.0 GT/s PCIe" -> 16.0; nullopt for "Unknown"
  std::optional<int> current_width;
  std::optional<double> max_gts;
  std::optional<int> max_width;
};

struct PciDevice {
  std::string bdf;         // "0000:1b:00.0"
  std::string sysfs_path;  // canonical, root-relative: "/sys/devices/pci0000:00/.../0000:1b:00.0"
  uint16_t vendor = 0;
  uint16_t device = 0;
  uint32_t class_code = 0;         // 0x030200
  int numa_node = -1;              // -1: firmware gave no affinity (or numa_node_unknown)
  bool numa_node_unknown = false;  // the numa_node file is empty: affinity not recorded
  CpuSet local_cpus;
  std::string driver;  // basename of the driver link, "" when unbound
  PciLink link;

  bool IsNvidiaGpu() const;  // NVIDIA 3D or VGA controller
  bool IsNvSwitch() const;   // NVIDIA class 0x068000
  bool IsNetwork() const;    // class 0x02xxxx (Ethernet, InfiniBand)
  bool IsBridge() const;     // class 0x0604xx
};

// "16.0 GT/s PCIe", "8 GT/s", "Unknown" -> GT/s or nullopt; Invalid for anything else.
Result<std::optional<double>> ParsePcieSpeed(std::string_view text);
// 2.5 -> 1, 5 -> 2, 8 -> 3, 16 -> 4, 32 -> 5, 64 -> 6; 0 when unknown.
int PcieGeneration(double gts);

// Reads one device. Missing optional attributes are left unset; a malformed one is an error
// naming the file.
Result<PciDevice> ReadPciDevice(const Host& host, const std::string& bdf);
// All devices under /sys/bus/pci/devices, sorted by BDF. Absent directory -> empty list.
Result<std::vector<PciDevice>> ListPciDevices(const Host& host);
// The bridges above a device, nearest first, read from the canonical sysfs path.
std::vector<PciDevice> UpstreamBridges(const Host& host, const PciDevice& dev);

}  // namespace ys::host

#endif  // YARDSTICK_HOST_PCI_H_
