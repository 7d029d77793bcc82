// Virtual-machine detection from files, after systemd-detect-virt (src/basic/virt.c; reference:
// docs/node-checks.md §iommu): DMI vendor and product strings by prefix, the x86 cpuinfo
// `hypervisor` flag, /sys/hypervisor/type and the device-tree hypervisor node. The result is
// evidence for other checks (in a VM, cpufreq, NUMA and IOMMU behaviour are the host's); being a
// VM is never a fault by itself.
#ifndef YARDSTICK_HOST_VIRT_H_
#define YARDSTICK_HOST_VIRT_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/run_document.h"
#include "core/status.h"
#include "host/host.h"
#include "host/procfs.h"

namespace ys::host {

enum class CpuArch { kUnknown, kX86_64, kArm64 };
const char* CpuArchName(CpuArch arch);  // "x86_64", "aarch64", "unknown"

// From parsed /proc/cpuinfo blocks: x86 prints "vendor_id" and "flags", arm64 prints
// "CPU implementer" and "Features".
CpuArch CpuArchOf(const std::vector<CpuInfoEntry>& cpus);

// A DMI string (sys_vendor, product_name, board_vendor, bios_vendor, product_version) matched by
// prefix against systemd's table: "QEMU" -> "qemu", "KVM" -> "kvm", "VMware" -> "vmware",
// "Amazon EC2" -> "amazon", ... nullopt for anything else. Differences from systemd, both to
// avoid calling a bare-metal server a VM: "Oracle Corporation" is not matched (Oracle also sells
// bare-metal servers with that vendor; VirtualBox is caught by "innotek GmbH" and "VirtualBox"),
// and Amazon's EC2 bare-metal instances are recognised by DetectVirtualization.
std::optional<std::string> HypervisorFromDmi(std::string_view value);

// One observation that says "virtual machine".
struct VirtSignal {
  std::string source;      // "/sys/class/dmi/id/sys_vendor", "/proc/cpuinfo flags"
  std::string value;       // "QEMU", "hypervisor"
  std::string hypervisor;  // "qemu", "kvm", "xen", "unknown"
};

struct VirtDetection {
  bool vm = false;
  std::string hypervisor;           // of the first signal; "" on bare metal
  std::vector<VirtSignal> signals;  // every signal that says VM, in the order read
  Evidence dmi;                     // DMI file -> value, for every DMI file present
};

// Reads the DMI files, /sys/hypervisor/type and /proc/device-tree/hypervisor/compatible through
// `host`; `cpuinfo` (already parsed by the caller, may be empty) gives the x86 hypervisor flag.
// Absent files are simply not signals; nothing here is malformed enough to be an error.
VirtDetection DetectVirtualization(const Host& host, const std::vector<CpuInfoEntry>& cpuinfo);

// One line saying why this host is a virtual machine ("/sys/class/dmi/id/sys_vendor: QEMU"), or
// nullopt on bare metal. For checks that only need to know whether to trust what they read.
std::optional<std::string> VirtualMachineSign(const Host& host);

}  // namespace ys::host

#endif  // YARDSTICK_HOST_VIRT_H_
