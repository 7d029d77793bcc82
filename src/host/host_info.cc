#include "host/host_info.h"

#include <sys/utsname.h>

#include "core/cpu_set.h"
#include "core/text.h"
#include "host/procfs.h"

namespace ys::host {
namespace {

// The Arm parts a GPU node meets, by "CPU part" (implementer 0x41, Arm Ltd).
std::string ArmPartName(const std::string& part) {
  if (part == "0xd4f") return "Neoverse-V2";
  if (part == "0xd40") return "Neoverse-V1";
  if (part == "0xd0c") return "Neoverse-N1";
  if (part == "0xd49") return "Neoverse-N2";
  if (part == "0xd84") return "Neoverse-V3";
  return "part " + part;
}

}  // namespace

HostInfo ReadHostInfo(const Host& host) {
  HostInfo info;
  info.root = host.root().empty() ? "/" : host.root();
  info.hostname = host.ReadLine("/proc/sys/kernel/hostname").value_or("unknown");
  info.kernel = host.ReadLine("/proc/sys/kernel/osrelease").value_or("unknown");
  if (auto online = host.ReadLine("/sys/devices/system/cpu/online"); online.ok()) {
    if (auto set = CpuSet::ParseList(*online); set.ok())
      info.logical_cpus = static_cast<int>(set->size());
  }
  std::string arch_guess;
  if (auto text = host.ReadFile("/proc/cpuinfo"); text.ok()) {
    if (auto cpus = ParseCpuInfo(*text); cpus.ok() && !cpus->empty()) {
      const auto& f = cpus->front().fields;
      if (f.count("model name")) {
        info.cpu_model = f.at("model name");
      } else if (f.count("CPU implementer")) {
        info.cpu_model =
            (f.at("CPU implementer") == "0x41" ? "Arm "
                                               : "implementer " + f.at("CPU implementer") + " ") +
            ArmPartName(f.count("CPU part") ? f.at("CPU part") : "?");
      }
      arch_guess = f.count("vendor_id") ? "x86_64" : f.count("CPU implementer") ? "aarch64" : "";
    }
  }
  if (host.live()) {
    struct utsname u {};
    if (::uname(&u) == 0) info.arch = u.machine;
  } else {
    info.arch = arch_guess.empty() ? "unknown" : arch_guess;
  }
  return info;
}

}  // namespace ys::host
