#include "host/virt.h"

#include <array>
#include <utility>

#include "core/text.h"

namespace ys::host {
namespace {

// systemd src/basic/virt.c, detect_vm_dmi_vendor(), less "Oracle Corporation" (see virt.h).
constexpr std::array<std::pair<std::string_view, std::string_view>, 16> kDmiVendors = {{
    {"KVM", "kvm"},
    {"OpenStack", "kvm"},
    {"KubeVirt", "kvm"},
    {"Amazon EC2", "amazon"},
    {"QEMU", "qemu"},
    {"VMware", "vmware"},
    {"VMW", "vmware"},
    {"innotek GmbH", "oracle"},
    {"VirtualBox", "oracle"},
    {"Xen", "xen"},
    {"Bochs", "bochs"},
    {"Parallels", "parallels"},
    {"BHYVE", "bhyve"},
    {"Hyper-V", "microsoft"},
    {"Apple Virtualization", "apple"},
    {"Google Compute Engine", "google"},
}};

constexpr std::array<std::string_view, 5> kDmiFiles = {"product_name", "sys_vendor", "board_vendor",
                                                       "bios_vendor", "product_version"};

}  // namespace

const char* CpuArchName(CpuArch arch) {
  switch (arch) {
    case CpuArch::kX86_64:
      return "x86_64";
    case CpuArch::kArm64:
      return "aarch64";
    case CpuArch::kUnknown:
      break;
  }
  return "unknown";
}

CpuArch CpuArchOf(const std::vector<CpuInfoEntry>& cpus) {
  for (const auto& c : cpus) {
    if (c.fields.count("vendor_id") || c.fields.count("flags")) return CpuArch::kX86_64;
    if (c.fields.count("CPU implementer")) return CpuArch::kArm64;
  }
  return CpuArch::kUnknown;
}

std::optional<std::string> HypervisorFromDmi(std::string_view value) {
  value = Trim(value);
  for (const auto& [prefix, id] : kDmiVendors) {
    if (StartsWith(value, prefix)) return std::string(id);
  }
  return std::nullopt;
}

VirtDetection DetectVirtualization(const Host& host, const std::vector<CpuInfoEntry>& cpuinfo) {
  VirtDetection d;
  auto add = [&d](std::string source, std::string value, std::string hypervisor) {
    if (!d.vm) d.hypervisor = hypervisor;
    d.vm = true;
    d.signals.push_back({std::move(source), std::move(value), std::move(hypervisor)});
  };

  // DMI. Read every file first: the Amazon and Azure rules need two of them.
  std::string product_name, sys_vendor;
  for (std::string_view name : kDmiFiles) {
    std::string path = "/sys/class/dmi/id/" + std::string(name);
    auto v = host.ReadLine(path);
    if (!v.ok()) continue;  // absent (no SMBIOS, e.g. Firecracker) or root-only
    d.dmi.emplace_back(path, *v);
    if (name == "product_name") product_name = *v;
    if (name == "sys_vendor") sys_vendor = *v;
  }
  for (const auto& [path, value] : d.dmi) {
    auto hv = HypervisorFromDmi(value);
    if (!hv) continue;
    // EC2 bare-metal instances keep the "Amazon EC2" vendor; their product name says ".metal".
    if (*hv == "amazon" && product_name.find(".metal") != std::string::npos) continue;
    add(path, value, *hv);
  }
  // Hyper-V guests (Azure) say "Microsoft Corporation" / "Virtual Machine"; systemd finds them
  // through CPUID, which a recorded tree cannot replay.
  if (StartsWith(sys_vendor, "Microsoft Corporation") && product_name == "Virtual Machine") {
    add("/sys/class/dmi/id/product_name", product_name, "microsoft");
  }

  // x86: CPUID leaf 1 ECX bit 31, shown as the "hypervisor" flag.
  if (!cpuinfo.empty()) {
    auto it = cpuinfo.front().fields.find("flags");
    if (it != cpuinfo.front().fields.end()) {
      for (std::string_view flag : SplitWhitespace(it->second)) {
        if (flag == "hypervisor") {
          add("/proc/cpuinfo flags", "hypervisor", "unknown");
          break;
        }
      }
    }
  }

  // Xen (and a few others) publish the hypervisor type here.
  if (auto t = host.ReadLine("/sys/hypervisor/type"); t.ok() && !t->empty()) {
    add("/sys/hypervisor/type", *t, *t);
  }

  // arm64 and ppc guests booted with a device tree: "linux,kvm", "xen,xen-4.16\0xen,xen".
  if (auto c = host.ReadFile("/proc/device-tree/hypervisor/compatible"); c.ok() && !c->empty()) {
    std::string first(c->c_str());  // the first NUL-terminated string
    std::string id = "unknown";
    if (first.find("kvm") != std::string::npos) {
      id = "kvm";
    } else if (StartsWith(first, "xen")) {
      id = "xen";
    } else if (first.find("vmware") != std::string::npos) {
      id = "vmware";
    }
    add("/proc/device-tree/hypervisor/compatible", first, id);
  }
  return d;
}

std::optional<std::string> VirtualMachineSign(const Host& host) {
  std::vector<CpuInfoEntry> cpus;
  if (auto text = host.ReadFile("/proc/cpuinfo"); text.ok()) {
    if (auto parsed = ParseCpuInfo(*text); parsed.ok()) cpus = std::move(*parsed);
  }
  VirtDetection d = DetectVirtualization(host, cpus);
  if (!d.vm || d.signals.empty()) return std::nullopt;
  return d.signals.front().source + ": " + d.signals.front().value;
}

}  // namespace ys::host
