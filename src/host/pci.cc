#include "host/pci.h"

#include <cmath>

#include "core/text.h"

namespace ys::host {

bool PciDevice::IsNvidiaGpu() const {
  uint32_t base = class_code >> 8;
  return vendor == kVendorNvidia && (base == 0x0302 || base == 0x0300);
}
bool PciDevice::IsNvSwitch() const { return vendor == kVendorNvidia && class_code == 0x068000; }
bool PciDevice::IsNetwork() const { return (class_code >> 16) == 0x02; }
bool PciDevice::IsBridge() const { return (class_code >> 8) == 0x0604; }

Result<std::optional<double>> ParsePcieSpeed(std::string_view text) {
  std::string_view t = Trim(text);
  if (t == "Unknown" || t == "Unknown speed") return std::optional<double>();
  auto parts = SplitWhitespace(t);
  if (parts.size() >= 2 && parts[1] == "GT/s") {
    auto v = ParseDouble(parts[0]);
    if (v && *v > 0) return std::optional<double>(*v);
  }
  return Status::Invalid("expected a link speed like \"16.0 GT/s PCIe\", got \"" +
                         std::string(t.substr(0, 60)) + "\"");
}

int PcieGeneration(double gts) {
  static constexpr double kRates[] = {2.5, 5.0, 8.0, 16.0, 32.0, 64.0};
  for (int i = 0; i < 6; ++i) {
    if (std::fabs(gts - kRates[i]) < 0.01) return i + 1;
  }
  return 0;
}

namespace {

Result<std::optional<int>> ReadWidth(const Host& host, const std::string& path) {
  auto line = host.ReadLine(path);
  if (!line.ok()) {
    if (line.status().code() == StatusCode::kNotFound) return std::optional<int>();
    return line.status();
  }
  // Empty: a read the kernel refused (a device gone to D3cold mid-copy): the width is unknown.
  if (line->empty()) return std::optional<int>();
  std::string_view t = *line;
  if (StartsWith(t, "x")) t.remove_prefix(1);
  auto v = ParseInt(t);
  if (!v || *v < 0 || *v > 255) {
    return Status::Invalid(host.Resolve(path) + ": expected a link width like \"16\", got \"" +
                           line->substr(0, 40) + "\"");
  }
  // Width 0 is how some devices report "no link"; 63 (the 6-bit field of a config-space read
  // that returned all ones: a device in D3cold or surprise-removed) and 255
  // (PCIE_LNK_WIDTH_UNKNOWN) say the kernel does not know: unknown, not malformed.
  if (*v == 0 || *v == 63 || *v == 255) return std::optional<int>();
  if (*v > 32) {
    return Status::Invalid(host.Resolve(path) + ": expected a link width like \"16\", got \"" +
                           line->substr(0, 40) + "\"");
  }
  return std::optional<int>(static_cast<int>(*v));
}

Result<std::optional<double>> ReadSpeed(const Host& host, const std::string& path) {
  auto line = host.ReadLine(path);
  if (!line.ok()) {
    if (line.status().code() == StatusCode::kNotFound) return std::optional<double>();
    return line.status();
  }
  // Empty: a read the kernel refused (a device gone to D3cold mid-copy): the speed is unknown.
  if (line->empty()) return std::optional<double>();
  auto v = ParsePcieSpeed(*line);
  if (!v.ok()) return Status::Invalid(host.Resolve(path) + ": " + v.status().message());
  return *v;
}

}  // namespace

Result<PciDevice> ReadPciDevice(const Host& host, const std::string& bdf) {
  PciDevice d;
  d.bdf = bdf;
  const std::string dir = "/sys/bus/pci/devices/" + bdf;
  auto real = host.RealPath(dir);
  d.sysfs_path = real.ok() ? *real : dir;
  auto hex = [&](const char* name, uint64_t limit) -> Result<uint64_t> {
    std::string p = dir + "/" + name;
    auto line = host.ReadLine(p);
    if (!line.ok()) return line.status();
    // The kernel always prints the ID; an empty copy leaves the device unidentified.
    if (line->empty())
      return Status::NotFound(host.Resolve(p) + ": empty file, device not identified");
    auto v = ParseHex(*line);
    if (!v || *v > limit) {
      return Status::Invalid(host.Resolve(p) + ": expected a hex value like 0x10de, got \"" +
                             line->substr(0, 40) + "\"");
    }
    return *v;
  };
  auto vendor = hex("vendor", 0xffff);
  if (!vendor.ok()) return vendor.status();
  d.vendor = static_cast<uint16_t>(*vendor);
  auto device = hex("device", 0xffff);
  if (device.ok()) d.device = static_cast<uint16_t>(*device);
  auto cls = hex("class", 0xffffff);
  if (!cls.ok()) return cls.status();
  d.class_code = static_cast<uint32_t>(*cls);
  // An empty numa_node (a copy that could not read it) records no affinity either way.
  if (auto line = host.ReadLine(dir + "/numa_node"); line.ok() && line->empty()) {
    d.numa_node_unknown = true;
  } else if (host.Exists(dir + "/numa_node")) {
    auto node = host.ReadInt(dir + "/numa_node");
    if (!node.ok()) return node.status();
    d.numa_node = static_cast<int>(*node);
  }
  if (auto cpus = host.ReadLine(dir + "/local_cpulist"); cpus.ok()) {
    auto set = CpuSet::ParseList(*cpus);
    if (!set.ok())
      return Status::Invalid(host.Resolve(dir + "/local_cpulist") + ": " + set.status().message());
    d.local_cpus = *set;
  }
  if (auto drv = host.ReadLink(dir + "/driver"); drv.ok()) {
    size_t slash = drv->rfind('/');
    d.driver = slash == std::string::npos ? *drv : drv->substr(slash + 1);
  }
  auto cs = ReadSpeed(host, dir + "/current_link_speed");
  if (!cs.ok()) return cs.status();
  auto ms = ReadSpeed(host, dir + "/max_link_speed");
  if (!ms.ok()) return ms.status();
  auto cw = ReadWidth(host, dir + "/current_link_width");
  if (!cw.ok()) return cw.status();
  auto mw = ReadWidth(host, dir + "/max_link_width");
  if (!mw.ok()) return mw.status();
  d.link = PciLink{*cs, *cw, *ms, *mw};
  return d;
}

Result<std::vector<PciDevice>> ListPciDevices(const Host& host) {
  std::vector<PciDevice> out;
  if (!host.IsDirectory("/sys/bus/pci/devices")) return out;
  auto names = host.ListDir("/sys/bus/pci/devices");
  if (!names.ok()) return names.status();
  for (const auto& bdf : *names) {
    auto d = ReadPciDevice(host, bdf);
    if (!d.ok() && d.status().code() == StatusCode::kNotFound) continue;  // gone or unidentified
    if (!d.ok()) return d.status();
    out.push_back(std::move(*d));
  }
  return out;
}

std::vector<PciDevice> UpstreamBridges(const Host& host, const PciDevice& dev) {
  std::vector<PciDevice> out;
  std::string path = dev.sysfs_path;
  while (true) {
    size_t slash = path.rfind('/');
    if (slash == std::string::npos || slash == 0) break;
    path = path.substr(0, slash);
    std::string name = path.substr(path.rfind('/') + 1);
    // BDF-shaped components only ("0000:00:01.0"); stop at "pci0000:00".
    if (name.size() != 12 || name[4] != ':' || name[7] != ':' || name[10] != '.') break;
    auto d = ReadPciDevice(host, name);
    if (!d.ok()) break;
    out.push_back(std::move(*d));
  }
  return out;
}

}  // namespace ys::host
