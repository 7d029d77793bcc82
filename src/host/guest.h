// Signs that the machine is a virtual-machine guest. Some questions (physical C-states, the
// cpufreq driver) only the hypervisor host can answer; checks use this to skip with the reason
// instead of blaming the guest. A hint, not a verdict: the virtualisation check reports VM
// detection in full.
#ifndef YARDSTICK_HOST_GUEST_H_
#define YARDSTICK_HOST_GUEST_H_

#include <optional>
#include <string>
#include <string_view>

#include "host/host.h"

namespace ys::host {

// The first sign found, as "<path>: <value>" for evidence, or nullopt. Looks at the x86
// `hypervisor` CPU flag in /proc/cpuinfo, DMI vendor and product names (/sys/class/dmi/id) and
// /sys/hypervisor/type. Unreadable or malformed files count as no sign.
std::optional<std::string> GuestSign(const Host& host);

// Whether DMI sys_vendor / product_name name a hypervisor ("QEMU", "KVM Virtual Machine",
// "VMware, Inc.", ...). Bare-metal cloud products ("c6i.metal") are not guests.
bool IsHypervisorDmiName(std::string_view sys_vendor, std::string_view product_name);

}  // namespace ys::host

#endif  // YARDSTICK_HOST_GUEST_H_
