// gpu.count: the GPUs NVML lists against the site's expected count, and against the NVIDIA GPUs
// on the PCI bus. A GPU on the bus that NVML does not list has fallen off the bus, was excluded
// (NVreg_ExcludedGpus) or is bound to another driver: the node has fewer GPUs than it seems. When
// NVML's bus ids and the bus's share fewer than half, the GPU state and the host tree are of two
// machines: the comparison is inconclusive (an error outcome), never eight GPUs "missing".
#include <cstdio>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "checks/gpu/internal/gpu_common.h"
#include "host/runtime_context.h"

namespace ys::checks {
namespace {

constexpr const char* kBusNotCompared = "not compared with this machine's PCI bus: ";

// NVML's GPUs by canonical bus id, and "gpu0 0000:1b:00.0, ..." for the evidence.
struct NvmlBus {
  std::set<std::string> bdfs;
  std::string listed;   // every GPU with its bus id as NVML gave it
  std::string unknown;  // GPUs whose bus id is not a PCI address
};

NvmlBus NvmlBusOf(const gpu::GpuSnapshot& s) {
  NvmlBus b;
  for (const auto& d : s.devices) {
    if (auto bdf = CanonicalBdf(d.pci_bus_id)) {
      b.bdfs.insert(*bdf);
    } else {
      b.unknown += (b.unknown.empty() ? "" : ", ") + GpuEntity(d);
    }
    b.listed += (b.listed.empty() ? "" : ", ") + GpuEntity(d) + " " + d.pci_bus_id;
  }
  return b;
}

std::string BusIds(const std::set<std::string>& bdfs) {
  std::string out;
  for (const auto& b : bdfs) out += (out.empty() ? "" : ", ") + b;
  return out.empty() ? "(none)" : out;
}

// YS-GPU-002: a GPU on the PCI bus whose bus id is not among NVML's.
Finding OffTheBus(const host::PciDevice& p, const std::string& driver, const NvmlBus& nvml,
                  size_t pci_count) {
  char id[16];
  std::snprintf(id, sizeof id, "%04x:%04x", p.vendor, p.device);
  Finding f = MakeFinding("YS-GPU-002", p.bdf,
                          "GPU " + p.bdf + " (" + id + ", " + driver +
                              ") is on the PCI bus but NVML does not "
                              "list it: fallen off the bus, excluded, or bound to another driver");
  f.evidence = {{p.sysfs_path, std::string(id)},
                {p.sysfs_path + "/driver", p.driver.empty() ? "(none)" : p.driver},
                {"nvml bus ids", BusIds(nvml.bdfs) + " (" + p.bdf + " not among them)"},
                {"nvml device count", std::to_string(nvml.bdfs.size())},
                {"pci NVIDIA GPUs", std::to_string(pci_count)}};
  f.fix = p.driver.empty() || p.driver == "nvidia"
              ? "look for XID 79 (fallen off the bus) in the kernel log (dmesg | grep Xid); "
                "drain the node and reboot; check NVreg_ExcludedGpus in /etc/modprobe.d; "
                "RMA the GPU if it does not come back"
              : "bind the GPU to the nvidia driver (it is bound to " + p.driver +
                    "), or remove it from the node's expected count";
  f.reference = "NVIDIA XID catalog (XID 79); NVML nvmlDeviceGetCount_v2";
  return f;
}

// Fewer than half of NVML's GPUs on the bus of the host read: the GPU state and the host are of
// two machines (a recording paired with another node's tree). Comparing them would call every
// GPU missing, so the comparison is inconclusive instead. A GPU that fell off the bus, or a
// container given some of the GPUs, still leaves NVML's GPUs on the bus.
std::optional<CheckResult> TwoMachines(const NvmlBus& nvml,
                                       const std::vector<const host::PciDevice*>& pci_gpus,
                                       const gpu::GpuSnapshot& s, const host::Host& h) {
  std::set<std::string> pci_bdfs;
  for (const host::PciDevice* p : pci_gpus) pci_bdfs.insert(p->bdf);
  size_t matched = 0;
  for (const auto& b : nvml.bdfs) matched += pci_bdfs.count(b);
  if (nvml.bdfs.empty() || pci_bdfs.empty() || matched * 2 >= nvml.bdfs.size()) return std::nullopt;
  CheckResult e = CheckResult::Error(
      Status::Invalid(std::to_string(matched) + " of " + std::to_string(nvml.bdfs.size()) +
                      " bus ids match: the recording is from another machine (the GPU state, " +
                      s.source + ", against the PCI bus of " + h.Resolve("/sys/bus/pci") +
                      "); give the GPU state and the host tree of one machine"));
  e.Note("nvml bus ids", BusIds(nvml.bdfs));
  e.Note("pci bus ids", BusIds(pci_bdfs));
  return e;
}

// The PCI bus view. Inside a container sysfs shows every GPU of the host while NVML sees only the
// container's, so a GPU absent from NVML there is noted, not flagged.
void ComparePciBus(const CheckContext& ctx, const gpu::GpuSnapshot& s, const NvmlBus& nvml,
                   const std::vector<const host::PciDevice*>& pci_gpus, CheckResult& r) {
  const host::Host& h = ctx.host();
  bool in_container = false;
  if (auto c = host::DetectContainer(h, ctx.ProcDir(), h.env()); c.ok() && c->inside()) {
    in_container = true;
    r.Note("container", c->runtime);
  }
  if (!nvml.unknown.empty()) {
    // Which GPU of the bus is missing cannot be said when NVML's bus ids are unknown.
    r.Note("pci.compared", "no: NVML gave no PCI bus id for " + nvml.unknown);
    return;
  }
  std::set<std::string> pci_bdfs;
  for (const host::PciDevice* p : pci_gpus) {
    pci_bdfs.insert(p->bdf);
    if (nvml.bdfs.count(p->bdf) != 0) continue;
    std::string driver = p->driver.empty() ? "no driver" : "driver " + p->driver;
    if (in_container) {
      r.Note(p->bdf, "on the PCI bus, not visible to NVML in this container (" + driver + ")");
      continue;
    }
    r.Add(OffTheBus(*p, driver, nvml, pci_gpus.size()));
  }
  for (const auto& d : s.devices) {
    auto b = CanonicalBdf(d.pci_bus_id);
    if (!pci_gpus.empty() && (!b || pci_bdfs.count(*b) == 0)) {
      r.Note(GpuEntity(d), "listed by NVML at " + d.pci_bus_id + ", not found on the PCI bus");
    }
  }
}

// YS-GPU-001: NVML's count against the site's.
void CompareSiteCount(const CheckContext& ctx, const gpu::GpuSnapshot& s, CheckResult& r) {
  const auto& expected = ctx.expect().devices.gpus;
  const int n = static_cast<int>(s.devices.size());
  if (!expected || n == *expected) return;
  Finding f = MakeFinding(
      "YS-GPU-001", "node",
      "NVML lists " + std::to_string(n) + " GPUs, the site expects " + std::to_string(*expected));
  f.evidence = {{"nvml device count", std::to_string(n)},
                {"site.devices.gpus", std::to_string(*expected)},
                {"source", s.source}};
  f.fix =
      "nvidia-smi -L; compare with lspci -d 10de: and look for XID 79 in the kernel log; "
      "a missing GPU needs a reboot, then an RMA if it stays missing";
  f.reference = "dcgmi diag software plugin (device count); NVML nvmlDeviceGetCount_v2";
  r.Add(std::move(f));
}

class GpuCountCheck : public Check {
 public:
  CheckResult Run(const CheckContext& ctx) const override {
    CheckResult r;
    const gpu::GpuSnapshot& s = ctx.gpu_state();
    const int n = static_cast<int>(s.devices.size());
    const NvmlBus nvml = NvmlBusOf(s);
    r.Note("nvml.gpus", std::to_string(n) + (nvml.listed.empty() ? "" : " (" + nvml.listed + ")"));
    CompareSiteCount(ctx, s, r);
    // A recording (--nvml-state) read on the live host is of another machine, or of this one at
    // another time: its GPUs are compared with the PCI bus of the tree given with --root, never
    // with this machine's.
    const bool foreign = RecordingOfAnotherMachine(ctx, s);
    const auto& topo = ctx.topology();
    if (foreign) {
      r.Note("pci.gpus", kBusNotCompared + std::string(kNotThisMachine) + " (" + s.source + ")");
    } else if (!topo.ok()) {
      r.Note("pci.gpus", "unavailable: " + topo.status().message());
    } else {
      auto pci_gpus = topo->Gpus();
      if (auto mixed = TwoMachines(nvml, pci_gpus, s, ctx.host())) return *mixed;
      r.Note("pci.gpus", std::to_string(pci_gpus.size()));
      ComparePciBus(ctx, s, nvml, pci_gpus, r);
    }
    if (r.findings.empty()) {
      const auto& expected = ctx.expect().devices.gpus;
      std::string bus = foreign     ? std::string(", ") + kBusNotCompared + kNotThisMachine
                        : topo.ok() ? ", " + std::to_string(topo->Gpus().size()) + " on the PCI bus"
                                    : std::string();
      r.summary =
          std::to_string(n) + " GPUs in NVML" + bus + (expected ? ", as the site expects" : "");
    }
    return r;
  }
};

}  // namespace

YS_REGISTER(GpuCountCheck,
            {.id = "gpu.count",
             .summary = "GPUs NVML lists against the site's count and the NVIDIA GPUs on "
                        "the PCI bus (a GPU missing from NVML fell off the bus).",
             .needs = {Need::kGpuState},
             .codes = {{"YS-GPU-001", Severity::kFail,
                        "GPU count seen by NVML differs from site expectation"},
                       {"YS-GPU-002", Severity::kFail,
                        "GPU on the PCI bus missing from NVML (fallen off the bus or excluded)"}}})

}  // namespace ys::checks
