#include "host/guest.h"

#include "core/text.h"
#include "host/procfs.h"

namespace ys::host {

bool IsHypervisorDmiName(std::string_view sys_vendor, std::string_view product_name) {
  std::string vendor = ToLower(Trim(sys_vendor));
  std::string product = ToLower(Trim(product_name));
  if (product.find("metal") != std::string::npos) return false;
  for (const char* v : {"qemu", "vmware", "innotek", "xen", "parallels", "bochs", "bhyve",
                        "amazon ec2", "google", "openstack", "cloud hypervisor"}) {
    if (vendor.find(v) != std::string::npos) return true;
  }
  for (const char* p : {"kvm", "virtual machine", "vmware", "virtualbox", "hvm domu",
                        "google compute engine", "openstack nova", "cloud hypervisor"}) {
    if (product.find(p) != std::string::npos) return true;
  }
  return false;
}

std::optional<std::string> GuestSign(const Host& host) {
  if (auto text = host.ReadFile("/proc/cpuinfo"); text.ok()) {
    if (auto entries = ParseCpuInfo(*text); entries.ok() && !entries->empty()) {
      auto it = entries->front().fields.find("flags");
      if (it != entries->front().fields.end()) {
        for (std::string_view flag : SplitWhitespace(it->second)) {
          if (flag == "hypervisor") return std::string("/proc/cpuinfo flags: hypervisor");
        }
      }
    }
  }
  auto vendor = host.ReadLine("/sys/class/dmi/id/sys_vendor");
  auto product = host.ReadLine("/sys/class/dmi/id/product_name");
  if (vendor.ok() || product.ok()) {
    std::string v = vendor.ok() ? *vendor : "", p = product.ok() ? *product : "";
    if (IsHypervisorDmiName(v, p)) {
      return "/sys/class/dmi/id: sys_vendor \"" + v + "\", product_name \"" + p + "\"";
    }
  }
  if (auto type = host.ReadLine("/sys/hypervisor/type"); type.ok() && !type->empty()) {
    return "/sys/hypervisor/type: " + *type;
  }
  return std::nullopt;
}

}  // namespace ys::host
