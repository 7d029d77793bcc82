// What the virt.iommu.* units read: virtual-machine detection, the IOMMU units, the kernel
// command line and the IOMMU domain of every GPU and NIC; for the Grace units also the base
// page size and the kernel configuration (reference: docs/node-checks.md §iommu). Read once per
// unit; each unit judges one concern.
//
// Policy choices:
// - A VM is evidence, never a fault.
// - YS-VIRT-001 (translated GPU/NIC domains) applies on bare metal only, under site policy
//   virt.iommu_passthrough. In a guest the IOMMU the guest sees is a virtual one the cloud
//   configured (for device assignment, nested translation or the accelerated SMMU that CMDQV
//   needs); the expensive translation is the host's stage 2, invisible and unchangeable from
//   inside. There the domain types are reported as evidence, and the costs the guest can act on
//   are flagged instead: strict invalidation (YS-VIRT-005) and, on Grace, the missing CMDQV
//   path (YS-VIRT-002) through which the guest's invalidations would otherwise trap.
// - The Grace units run only on aarch64 Grace systems; elsewhere they skip with the reason, and
//   an x86 node never gets a YS-VIRT-002/003/004 finding.
#ifndef YARDSTICK_CHECKS_VIRT_INTERNAL_IOMMU_FACTS_H_
#define YARDSTICK_CHECKS_VIRT_INTERNAL_IOMMU_FACTS_H_

#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "checks/check.h"
#include "host/iommu.h"
#include "host/kernel_config.h"
#include "host/page_size.h"
#include "host/procfs.h"
#include "host/virt.h"

namespace ys::checks::iommu {

inline constexpr const char* kReference =
    "docs/node-checks.md §iommu; Documentation/ABI/testing/sysfs-kernel-iommu_groups";

struct Device {
  std::string kind;  // "GPU", "NIC"
  host::DeviceIommu iommu;
};

struct IommuFacts {
  std::vector<host::CpuInfoEntry> cpus;
  host::CpuArch arch = host::CpuArch::kUnknown;
  host::VirtDetection virt;
  host::IommuCmdline ic;
  std::vector<std::string> units;                  // /sys/class/iommu
  std::vector<Device> devices;                     // every GPU and NIC
  std::vector<size_t> translated, strict_domains;  // indices into devices
  bool all_identity = false;
  bool nvidia_gpu = false;
  std::optional<host::PageSize> page;  // the base page size, when known
  Result<host::KernelConfig> config = Status::NotFound("not read");
  Evidence notes;
};

// The facts, or the result the units give instead: a skip on a tree that is not a Linux host,
// an error for unreadable files.
std::variant<IommuFacts, CheckResult> ReadIommu(const CheckContext& ctx);

// For the Grace units: the skip off Grace (with the reason also noted as "grace"), else nothing,
// with the Grace signals added to `notes`.
std::optional<CheckResult> GraceGate(const CheckContext& ctx, const IommuFacts& f, Evidence& notes);

CheckResult StartResult(const IommuFacts& f);
// The pass summary of every virt.iommu.* unit.
void Conclude(const IommuFacts& f, CheckResult& r);

}  // namespace ys::checks::iommu

#endif  // YARDSTICK_CHECKS_VIRT_INTERNAL_IOMMU_FACTS_H_
