// pcie.links: PCIe link width and speed of NVIDIA GPUs, NVSwitches and RDMA NICs against their
// own capability, the links of the bridges above them, AER error counters, and the GPU and NIC
// counts the site expects (reference: docs/node-checks.md §pcie).
//
// Devices checked: NVIDIA GPUs (class 0x0300/0x0302), NVSwitches (0x068000), and network-class
// functions that are Mellanox/NVIDIA networking (0x15b3) or expose an RDMA device
// (<dev>/infiniband/). Other network functions (virtio, management NICs) are not on the
// training data path and are left alone.
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "checks/check.h"
#include "core/text.h"
#include "host/infiniband.h"
#include "host/pci.h"
#include "host/pci_aer.h"
#include "host/virt.h"

namespace ys::checks {
namespace {

using host::PciDevice;

constexpr const char* kPciDevices = "/sys/bus/pci/devices";
constexpr const char* kPcieLinksReference =
    "docs/node-checks.md §pcie (sysfs current/max_link_*, LnkCap/LnkSta)";
constexpr const char* kSpeedCaveat =
    "GPUs (and some NICs) lower their link speed at idle, so speed is meaningful only under load";
// Vendors whose bridges are emulated by a hypervisor: Red Hat/QEMU, virtio, VMware, Microsoft.
constexpr uint16_t kEmulatedBridgeVendors[] = {0x1b36, 0x1af4, 0x15ad, 0x1414};

enum class Role { kGpu, kNvSwitch, kNic };

const char* RoleName(Role r) {
  switch (r) {
    case Role::kGpu:
      return "GPU";
    case Role::kNvSwitch:
      return "NVSwitch";
    case Role::kNic:
      return "NIC";
  }
  return "device";
}

std::optional<Role> RoleOf(const host::Host& h, const PciDevice& d) {
  if (d.IsNvidiaGpu()) return Role::kGpu;
  if (d.IsNvSwitch()) return Role::kNvSwitch;
  if (d.IsNetwork() && (d.vendor == host::kVendorMellanox ||
                        h.IsDirectory(std::string(kPciDevices) + "/" + d.bdf + "/infiniband"))) {
    return Role::kNic;
  }
  return std::nullopt;
}

std::string Attr(const PciDevice& d, const char* name) {
  return std::string(kPciDevices) + "/" + d.bdf + "/" + name;
}

std::string Speed(double gts) {
  char buf[48];
  int gen = host::PcieGeneration(gts);
  if (gen > 0) {
    std::snprintf(buf, sizeof buf, "%.1f GT/s (Gen%d)", gts, gen);
  } else {
    std::snprintf(buf, sizeof buf, "%.1f GT/s", gts);
  }
  return buf;
}

std::string LinkText(const host::PciLink& l) {
  auto sp = [](const std::optional<double>& v) { return v ? Speed(*v) : std::string("unknown"); };
  auto w = [](const std::optional<int>& v) {
    return v ? "x" + std::to_string(*v) : std::string("x?");
  };
  return sp(l.current_gts) + " " + w(l.current_width) + " of " + sp(l.max_gts) + " " +
         w(l.max_width);
}

bool Slower(double a, double b) { return a + 0.01 < b; }

bool IsBdf(std::string_view n) {
  return n.size() == 12 && n[4] == ':' && n[7] == ':' && n[10] == '.';
}

// BDF-shaped components of a canonical sysfs path above the device, nearest first: the bridges
// UpstreamBridges should return.
std::vector<std::string> BridgeBdfsAbove(const std::string& sysfs_path) {
  std::vector<std::string> out;
  auto parts = Split(sysfs_path, '/');
  if (parts.size() < 2) return out;
  for (size_t i = parts.size() - 1; i-- > 0;) {
    if (!IsBdf(parts[i])) break;
    out.emplace_back(parts[i]);
  }
  return out;
}

// `role` is the device's when `bdf` is the device itself, nullopt for a bridge.
std::string FixFor(std::optional<Role> role, const std::string& bdf, bool speed) {
  std::string fix = "Confirm with `lspci -vv -s " + bdf + "` (LnkCap vs LnkSta";
  fix += speed ? ", read while the device is busy)" : ", \"(downgraded)\")";
  if (role == Role::kGpu) {
    fix += " and `nvidia-smi -q -i " + bdf + "` (GPU Link Info: current vs max link gen/width)";
  }
  if (role == Role::kNic) fix += " and `mlxlink -d " + bdf + "`";
  if (speed) {
    fix +=
        "; if it stays low under load: set the slot's link speed to Auto/Gen5 in the BIOS, "
        "update retimer firmware, check the riser/retimer and the slot";
  } else {
    fix +=
        "; reseat the device, check its riser/retimer and cabling, and the BIOS bifurcation "
        "setting of the slot (x16, not x8x8); if it persists, open a hardware ticket";
  }
  return fix;
}

struct Target {
  PciDevice dev;
  Role role;
};

class PcieLinksCheck : public Check {
 public:
  CheckResult Run(const CheckContext& ctx) const override {
    const host::Host& h = ctx.host();
    const auto& want = ctx.expect().devices;
    if (!h.IsDirectory(kPciDevices)) {
      return CheckResult::Skip(h.Resolve(kPciDevices) + " is absent: no PCI sysfs to read");
    }
    CheckResult r;
    int unidentified = 0;
    auto all = ReadAllFunctions(h, r, unidentified);
    if (!all.ok()) return CheckResult::Error(all.status());

    std::vector<Target> targets;
    for (const auto& d : *all) {
      if (auto role = RoleOf(h, d)) targets.push_back({d, *role});
    }
    int gpus = 0, nvswitches = 0, pci_nics = 0;
    for (const auto& t : targets) {
      gpus += t.role == Role::kGpu;
      nvswitches += t.role == Role::kNvSwitch;
      pci_nics += t.role == Role::kNic;
    }
    int rdma = 0;
    for (const auto& ib : host::ListIbDevices(h)) rdma += !host::IsIbVirtualFunction(h, ib);

    if (unidentified == 0) {
      CheckCounts(want, gpus, rdma, pci_nics, r);
    } else {
      r.Note("device counts", "not judged: " + std::to_string(unidentified) +
                                  " PCI functions with an empty vendor or class file");
    }
    if (targets.empty() && r.findings.empty()) {
      return CheckResult::Skip("no NVIDIA GPU, NVSwitch or RDMA NIC among the " +
                               std::to_string(all->size()) + " PCI functions (" +
                               (all->empty() ? "none" : "e.g. virtio or emulated devices only") +
                               ")");
    }
    r.Note("devices", std::to_string(gpus) + " GPUs, " + std::to_string(nvswitches) +
                          " NVSwitches, " + std::to_string(pci_nics) + " NIC functions, " +
                          std::to_string(rdma) + " RDMA devices");

    std::optional<std::string> vm = host::VirtualMachineSign(h);
    if (vm) r.Note("bridges", "not compared: virtual machine (" + *vm + "), bridges are emulated");

    std::set<std::string> aer_read;
    std::map<std::string, size_t> bridge_finding;  // "<bdf> width|speed" -> index in findings
    for (const auto& t : targets) {
      r.Note(t.dev.bdf, std::string(RoleName(t.role)) + " " + LinkText(t.dev.link));
      std::vector<PciDevice> bridges = host::UpstreamBridges(h, t.dev);
      std::vector<std::string> expected = BridgeBdfsAbove(t.dev.sysfs_path);
      if (bridges.size() < expected.size()) {
        // UpstreamBridges stops at the first bridge it cannot read: report why.
        auto bad = host::ReadPciDevice(h, expected[bridges.size()]);
        if (!bad.ok()) {
          if (bad.status().code() != StatusCode::kNotFound) return CheckResult::Error(bad.status());
          r.Note("bridges above " + t.dev.bdf, "walk stopped: " + bad.status().message());
        }
      }
      CheckDeviceLink(t, bridges, r);
      if (!vm) CheckBridges(t, bridges, r, bridge_finding);
      Status st = CheckAer(h, t.dev, RoleName(t.role), aer_read, r);
      for (const auto& b : bridges) {
        if (!st.ok()) break;
        st = CheckAer(h, b, "bridge", aer_read, r);
      }
      if (!st.ok()) return CheckResult::Error(st);
    }
    if (r.findings.empty()) {
      r.summary = std::to_string(targets.size()) +
                  " GPU/NVSwitch/NIC links at their maximum width and speed, no AER errors";
    }
    return r;
  }

 private:
  // Every PCI function. One that cannot be read is noted and left out when its identity shows it
  // is neither a device checked here nor a bridge (odd sysfs of an unrelated device must not hide
  // the GPUs); otherwise the error, naming the file, is the result.
  // A function whose vendor or class file is empty cannot be identified: it is noted, counted in
  // `unidentified` and left out.
  static Result<std::vector<PciDevice>> ReadAllFunctions(const host::Host& h, CheckResult& r,
                                                         int& unidentified) {
    auto names = h.ListDir(kPciDevices);
    if (!names.ok()) return names.status();
    std::vector<PciDevice> out;
    for (const auto& bdf : *names) {
      auto d = host::ReadPciDevice(h, bdf);
      if (d.ok()) {
        out.push_back(std::move(*d));
        continue;
      }
      if (d.status().code() == StatusCode::kNotFound) {
        ++unidentified;
        r.Note("unidentified " + bdf, d.status().message());
        continue;
      }
      PciDevice id;
      id.bdf = bdf;
      auto vendor = h.ReadLine(std::string(kPciDevices) + "/" + bdf + "/vendor");
      auto cls = h.ReadLine(std::string(kPciDevices) + "/" + bdf + "/class");
      std::optional<uint64_t> v, c;
      if (vendor.ok()) v = ParseHex(*vendor);
      if (cls.ok()) c = ParseHex(*cls);
      if (!v || !c || *v > 0xffff || *c > 0xffffff) return d.status();
      id.vendor = static_cast<uint16_t>(*v);
      id.class_code = static_cast<uint32_t>(*c);
      if (id.IsBridge() || RoleOf(h, id)) return d.status();
      r.Note("unreadable " + bdf, d.status().message());
    }
    return out;
  }

  static void CheckCounts(const SiteExpectations::Devices& want, int gpus, int rdma, int pci_nics,
                          CheckResult& r) {
    if (want.gpus && *want.gpus != gpus) {
      Finding f =
          MakeFinding("YS-PCI-004", "node",
                      std::to_string(gpus) + " NVIDIA GPUs on the PCI bus, the site expects " +
                          std::to_string(*want.gpus));
      f.evidence = {{"NVIDIA GPU functions (class 0x0300/0x0302) in /sys/bus/pci/devices",
                     std::to_string(gpus)},
                    {"site.devices.gpus", std::to_string(*want.gpus)}};
      f.fix =
          "A GPU that fell off the bus needs a node reboot and, if it stays missing, a hardware "
          "ticket: check `lspci -d 10de:`, `nvidia-smi -L` and `dmesg | grep -i -e NVRM -e Xid`; "
          "or correct devices.gpus in the site file";
      f.reference = kPcieLinksReference;
      r.Add(std::move(f));
    }
    if (want.nics && *want.nics != rdma) {
      Finding f = MakeFinding("YS-PCI-005", "node",
                              std::to_string(rdma) +
                                  " RDMA NICs (devices in /sys/class/infiniband, "
                                  "SR-IOV VFs excluded), the site expects " +
                                  std::to_string(*want.nics));
      f.evidence = {
          {"/sys/class/infiniband devices (physical functions)", std::to_string(rdma)},
          {"NIC PCI functions (Mellanox or with an RDMA device)", std::to_string(pci_nics)},
          {"site.devices.nics", std::to_string(*want.nics)}};
      f.fix =
          "Check `ibdev2netdev` / `ibv_devices` and `lspci -d 15b3:`; a NIC on the bus without "
          "an RDMA device needs its driver (modprobe mlx5_ib, MLNX_OFED/DOCA installed); a NIC "
          "missing from the bus needs a reseat or hardware ticket; or correct devices.nics";
      f.reference = "docs/node-checks.md §rdma";
      r.Add(std::move(f));
    }
  }

  // `up`: the bridges above the device, nearest first. The nearest port's capability is the
  // slot's; it tells a downtrained link from a narrow slot.
  static void CheckDeviceLink(const Target& t, const std::vector<PciDevice>& up, CheckResult& r) {
    const auto& l = t.dev.link;
    auto slot = [&](Finding& f, bool speed) {
      if (up.empty()) return;
      const auto& pl = up.front().link;
      if (!speed && pl.max_width) {
        f.evidence.emplace_back(Attr(up.front(), "max_link_width") + " (upstream port)",
                                std::to_string(*pl.max_width));
      }
      if (speed && pl.max_gts) {
        f.evidence.emplace_back(Attr(up.front(), "max_link_speed") + " (upstream port)",
                                Speed(*pl.max_gts));
      }
    };
    if (l.current_width && l.max_width && *l.current_width < *l.max_width) {
      Finding f = MakeFinding("YS-PCI-001", t.dev.bdf,
                              std::string(RoleName(t.role)) + " link trained at x" +
                                  std::to_string(*l.current_width) + ", the device supports x" +
                                  std::to_string(*l.max_width) + ": " +
                                  std::to_string(100 - 100 * *l.current_width / *l.max_width) +
                                  "% of its host bandwidth is lost");
      f.evidence = {{Attr(t.dev, "current_link_width"), std::to_string(*l.current_width)},
                    {Attr(t.dev, "max_link_width"), std::to_string(*l.max_width)}};
      slot(f, false);
      f.fix = FixFor(t.role, t.dev.bdf, false);
      f.reference = kPcieLinksReference;
      r.Add(std::move(f));
    }
    // An idle NVIDIA GPU drops its link to Gen1 (2.5 GT/s) with its performance state; that is
    // power management, not a fault, and on an idle node it would put a warning on every GPU.
    // A link held at an intermediate generation is not an idle state and stays a finding.
    bool idle_gen1 =
        t.role == Role::kGpu && l.current_gts && host::PcieGeneration(*l.current_gts) == 1;
    if (idle_gen1 && l.max_gts && Slower(*l.current_gts, *l.max_gts)) {
      r.Note(t.dev.bdf + " link speed", Speed(*l.current_gts) + " of " + Speed(*l.max_gts) +
                                            " (GPU idle power state; judged only under load)");
    } else if (l.current_gts && l.max_gts && Slower(*l.current_gts, *l.max_gts)) {
      Finding f =
          MakeFinding("YS-PCI-002", t.dev.bdf,
                      std::string(RoleName(t.role)) + " link at " + Speed(*l.current_gts) +
                          ", the device supports " + Speed(*l.max_gts) + "; " + kSpeedCaveat);
      f.evidence = {{Attr(t.dev, "current_link_speed"), Speed(*l.current_gts)},
                    {Attr(t.dev, "max_link_speed"), Speed(*l.max_gts)}};
      slot(f, true);
      f.fix = FixFor(t.role, t.dev.bdf, true);
      f.reference = kPcieLinksReference;
      r.Add(std::move(f));
    }
  }

  // The first bridge above the device whose link is narrower (slower) than the device's own
  // capability caps the device's bandwidth. The nearest port shares the device's link, so it is
  // compared only when the device reports no link itself. Emulated bridges are skipped.
  static void CheckBridges(const Target& t, const std::vector<PciDevice>& bridges, CheckResult& r,
                           std::map<std::string, size_t>& seen) {
    const auto& dl = t.dev.link;
    size_t start = (dl.current_width || dl.current_gts) ? 1 : 0;
    bool width_done = !dl.max_width, speed_done = !dl.max_gts;
    for (size_t i = start; i < bridges.size() && !(width_done && speed_done); ++i) {
      const PciDevice& b = bridges[i];
      bool emulated = false;
      for (uint16_t v : kEmulatedBridgeVendors) emulated |= b.vendor == v;
      if (emulated) return;
      const auto& bl = b.link;
      if (!width_done && bl.current_width && *bl.current_width < *dl.max_width) {
        width_done = true;
        AddBridgeFinding(t, b, /*speed=*/false, r, seen);
      }
      if (!speed_done && bl.current_gts && Slower(*bl.current_gts, *dl.max_gts)) {
        speed_done = true;
        AddBridgeFinding(t, b, /*speed=*/true, r, seen);
      }
    }
  }

  static void AddBridgeFinding(const Target& t, const PciDevice& b, bool speed, CheckResult& r,
                               std::map<std::string, size_t>& seen) {
    std::string key = b.bdf + (speed ? " speed" : " width");
    if (auto it = seen.find(key); it != seen.end()) {
      r.findings[it->second].evidence.emplace_back("also below this bridge", t.dev.bdf);
      return;
    }
    const auto& bl = b.link;
    const auto& dl = t.dev.link;
    std::string have = speed ? Speed(*bl.current_gts) : "x" + std::to_string(*bl.current_width);
    std::string need = speed ? Speed(*dl.max_gts) : "x" + std::to_string(*dl.max_width);
    auto cap = speed
                   ? (bl.max_gts ? Speed(*bl.max_gts) : std::string("unknown"))
                   : (bl.max_width ? "x" + std::to_string(*bl.max_width) : std::string("unknown"));
    bool bridge_limited = speed ? (bl.max_gts && Slower(*bl.max_gts, *dl.max_gts))
                                : (bl.max_width && *bl.max_width < *dl.max_width);
    std::string msg = "bridge above " + std::string(RoleName(t.role)) + " " + t.dev.bdf +
                      " runs at " + have + ", below the device's " + need +
                      (bridge_limited ? " (the bridge itself supports only " + cap + ")"
                                      : " (downtrained: the bridge supports " + cap + ")");
    if (speed) msg += std::string("; ") + kSpeedCaveat;
    Finding f = MakeFinding(speed ? "YS-PCI-002" : "YS-PCI-001", b.bdf, msg);
    f.evidence = {
        {Attr(b, speed ? "current_link_speed" : "current_link_width"), have},
        {Attr(b, speed ? "max_link_speed" : "max_link_width"), cap},
        {Attr(t.dev, speed ? "max_link_speed" : "max_link_width") + " (device below)", need}};
    f.fix =
        bridge_limited
            ? "The path is capped by the slot or switch uplink: move the device to a slot whose "
              "upstream link matches it, or accept the cap; confirm with `lspci -vv -s " +
                  b.bdf + "` LnkCap/LnkSta and `lspci -tv`"
            : FixFor(std::nullopt, b.bdf, speed);
    f.reference = kPcieLinksReference;
    seen[key] = r.findings.size();
    r.Add(std::move(f));
  }

  static Status CheckAer(const host::Host& h, const PciDevice& d, const char* what,
                         std::set<std::string>& done, CheckResult& r) {
    if (!done.insert(d.bdf).second) return {};
    auto files = host::ReadAerCounters(h, std::string(kPciDevices) + "/" + d.bdf);
    if (!files.ok()) return files.status();
    Finding f = MakeFinding("YS-PCI-003", d.bdf, "");
    std::string counts;
    for (const auto& file : *files) {
      if (file.counts.total == 0) continue;
      std::string detail = "TOTAL " + std::to_string(file.counts.total);
      for (const auto& [name, n] : file.counts.by_type) {
        if (n > 0) detail += ", " + name + " " + std::to_string(n);
      }
      f.evidence.emplace_back(file.path, detail);
      counts += (counts.empty() ? "" : ", ") + std::to_string(file.counts.total) + " " +
                host::AerKindName(file.kind);
    }
    if (counts.empty()) return {};
    f.message =
        std::string(what) + " recorded " + counts +
        " PCIe AER errors since boot (a count, not a rate: a single read cannot tell whether "
        "they are still happening)";
    f.fix =
        "Read again after load: if the counts grow, reseat the device and its riser/retimer "
        "and open a hardware ticket; `lspci -vv -s " +
        d.bdf + "` (CESta/UESta) and `dmesg | grep -i aer` show which errors";
    f.reference = kPcieLinksReference;
    r.Add(std::move(f));
    return {};
  }
};

}  // namespace

YS_REGISTER(PcieLinksCheck,
            {.id = "pcie.links",
             .summary = "PCIe width and speed of GPU, NVSwitch and RDMA NIC links and the "
                        "bridges above them, AER errors, and the GPU and NIC counts.",
             .needs = {},
             .codes = {{"YS-PCI-001", Severity::kFail, "PCIe link width below the device maximum"},
                       {"YS-PCI-002", Severity::kWarn, "PCIe link speed below the device maximum"},
                       {"YS-PCI-003", Severity::kWarn, "PCIe AER errors recorded"},
                       {"YS-PCI-004", Severity::kFail, "GPU count differs from site expectation"},
                       {"YS-PCI-005", Severity::kFail, "NIC count differs from site expectation"}}})

}  // namespace ys::checks
