// IOMMU state from sysfs and the kernel command line, and the Arm SMMUv3 / NVIDIA Tegra241 CMDQV
// facts of a Grace system (reference: docs/node-checks.md §iommu; kernel
// Documentation/ABI/testing/sysfs-kernel-iommu_groups, kernel-parameters.txt,
// drivers/iommu/arm/arm-smmu-v3/tegra241-cmdqv.c).
//
// Parse* and Scan* are pure functions on text; the readers go through Host. A file that is
// present but malformed gives Invalid naming the resolved path and what was expected.
#ifndef YARDSTICK_HOST_IOMMU_H_
#define YARDSTICK_HOST_IOMMU_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "host/host.h"
#include "host/kernel_log.h"
#include "host/procfs.h"

namespace ys::host {

// /sys/kernel/iommu_groups/<N>/type (5.11+).
enum class IommuDomainType {
  kIdentity,   // "identity": passthrough, no translation
  kDma,        // "DMA": translated, strict invalidation
  kDmaFq,      // "DMA-FQ": translated, lazy invalidation through a flush queue
  kBlocked,    // "blocked"
  kUnmanaged,  // "unmanaged": owned by VFIO/IOMMUFD (a device assigned to a VM)
};
Result<IommuDomainType> ParseIommuDomainType(std::string_view text);
const char* IommuDomainTypeName(IommuDomainType t);  // the kernel's spelling
inline bool IsTranslated(IommuDomainType t) {
  return t == IommuDomainType::kDma || t == IommuDomainType::kDmaFq;
}

// The IOMMU view of one PCI device.
struct DeviceIommu {
  std::string bdf;
  std::optional<int> group;             // nullopt: no iommu_group link, nothing translates it
  std::optional<IommuDomainType> type;  // nullopt: no type file, or an empty one
  std::string type_path;                // "/sys/kernel/iommu_groups/17/type" when a group
};
// Follows /sys/bus/pci/devices/<bdf>/iommu_group and reads the group's type.
Result<DeviceIommu> ReadDeviceIommu(const Host& host, const std::string& bdf);

// Names under /sys/class/iommu ("dmar0", "ivhd0", "smmu3.0x0000000016000000"), natural order.
std::vector<std::string> ListIommuUnits(const Host& host);

// The IOMMU tokens of the kernel command line.
struct IommuCmdline {
  std::optional<bool> passthrough;  // iommu=pt|nopt, iommu.passthrough=<bool>; nullopt: default
  std::string passthrough_token;    // the token that decided it
  bool strict = false;              // iommu.strict=1, intel_iommu=strict, amd_iommu=fullflush
  std::string strict_token;
  bool disabled = false;  // intel_iommu=off, amd_iommu=off, iommu=off
  std::string disabled_token;
  std::vector<std::string> tokens;  // every IOMMU-related token, in order, for evidence
};
IommuCmdline ParseIommuCmdline(const KernelCmdline& cmdline);

// A boolean module parameter ("Y", "N", "1", "0"). Invalid for anything else.
Result<bool> ParseModuleBool(std::string_view text);

// What the kernel log says about the SMMUv3 and its CMDQV companion.
struct SmmuLogFacts {
  std::vector<std::string> smmu_lines;        // lines from the arm-smmu-v3 driver
  std::optional<std::string> cmdqv_found;     // "found companion CMDQV device: NVDA200C:00"
  std::optional<std::string> cmdqv_fallback;  // "Falling back to standard SMMU CMDQ"
  std::optional<std::string> cmdqv_disabled;  // "Detected disable_cmdqv=true"
};
SmmuLogFacts ScanSmmuLog(const std::vector<KernelLogLine>& log);

}  // namespace ys::host

#endif  // YARDSTICK_HOST_IOMMU_H_
