#include "report/topo_matrix.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "core/text.h"
#include "gpu/nvlink_topology.h"
#include "host/pci_locality.h"

namespace ys::report {

using host::PciLocality;

size_t TopoMatrix::gpu_count() const {
  return static_cast<size_t>(std::count_if(devices.begin(), devices.end(), [](const TopoDevice& d) {
    return d.kind == TopoDevice::Kind::kGpu;
  }));
}

namespace {

// The name a NIC is known by: its RDMA device ("mlx5_0"), else its network interface, else its
// PCI address.
std::string NicName(const host::Host& host, const host::PciDevice& d, bool& rdma) {
  rdma = false;
  if (auto ib = host.ListDir(d.sysfs_path + "/infiniband"); ib.ok() && !ib->empty()) {
    rdma = true;
    return Join(*ib, ",");
  }
  if (auto net = host.ListDir(d.sysfs_path + "/net"); net.ok() && !net->empty())
    return Join(*net, ",");
  return d.bdf;
}

TopoDevice FromPci(const host::PciDevice& d, TopoDevice::Kind kind) {
  TopoDevice t;
  t.kind = kind;
  t.bdf = d.bdf;
  t.numa_node = d.numa_node;
  t.cpu_affinity = d.local_cpus.empty() ? "" : d.local_cpus.ToString();
  if (kind == TopoDevice::Kind::kGpu)
    t.name = fmt::format("NVIDIA {:04x}:{:04x}", d.vendor, d.device);
  return t;
}

// The matrix's rows: GPUs first, NICs after, each with its PCI device and (GPUs listed by NVML)
// its NVML device.
struct TopoRows {
  std::vector<const host::PciDevice*> pci_of;  // per device row
  std::vector<const gpu::GpuDevice*> nvml_of;  // per device row; nullptr for NICs and unmatched
  size_t n_gpus = 0;
  bool any_rdma = false;
};

// GPUs in NVML index order when NVML state is there, matched to the PCI bus by address; then
// the GPUs NVML does not list; then the NICs.
TopoRows CollectDevices(const host::Host& host, const host::Topology& topo,
                        const gpu::GpuSnapshot* snap, TopoMatrix& m) {
  TopoRows rows;
  std::set<std::string> matched;
  if (snap != nullptr) {
    std::vector<const gpu::GpuDevice*> by_index;
    for (const auto& d : snap->devices) by_index.push_back(&d);
    std::sort(by_index.begin(), by_index.end(),
              [](const auto* a, const auto* b) { return a->index < b->index; });
    for (const auto* d : by_index) {
      auto bdf = gpu::NormalizePciBusId(d->pci_bus_id);
      const host::PciDevice* p = bdf.ok() ? topo.FindPci(*bdf) : nullptr;
      if (p == nullptr || !p->IsNvidiaGpu()) {
        m.notes.push_back(fmt::format(
            "NVML lists GPU{} at {}, which is not an NVIDIA GPU on the PCI bus under {}: the NVML "
            "state may be from another machine",
            d->index, SanitizeForDisplay(d->pci_bus_id), m.root));
        continue;
      }
      if (matched.count(p->bdf) != 0) {
        m.notes.push_back(
            fmt::format("NVML lists GPU{} at {} too, where another GPU already is; "
                        "the matrix shows the first",
                        d->index, p->bdf));
        continue;
      }
      TopoDevice t = FromPci(*p, TopoDevice::Kind::kGpu);
      t.label = fmt::format("GPU{}", d->index);
      t.nvml_index = d->index;
      if (!d->name.empty()) t.name = SanitizeForDisplay(d->name);
      t.uuid = SanitizeForDisplay(d->uuid);
      m.devices.push_back(std::move(t));
      rows.pci_of.push_back(p);
      rows.nvml_of.push_back(d);
      matched.insert(p->bdf);
    }
  }
  int unlisted = 0;
  for (const auto* p : topo.Gpus()) {
    if (matched.count(p->bdf) != 0) continue;
    TopoDevice t = FromPci(*p, TopoDevice::Kind::kGpu);
    if (snap != nullptr) {
      t.label = fmt::format("GPU?{}", unlisted++);
      m.notes.push_back(fmt::format("{} ({}) is on the PCI bus but the NVML state does not list it",
                                    t.label, p->bdf));
    } else {
      t.label = fmt::format("GPU{}", m.devices.size());  // NVML numbers GPUs in PCI order
    }
    m.devices.push_back(std::move(t));
    rows.pci_of.push_back(p);
    rows.nvml_of.push_back(nullptr);
  }
  rows.n_gpus = m.devices.size();
  for (const auto* p : topo.NetworkDevices()) {
    TopoDevice t = FromPci(*p, TopoDevice::Kind::kNic);
    t.label = fmt::format("NIC{}", m.devices.size() - rows.n_gpus);
    t.name = SanitizeForDisplay(NicName(host, *p, t.rdma));
    rows.any_rdma = rows.any_rdma || t.rdma;
    m.devices.push_back(std::move(t));
    rows.pci_of.push_back(p);
    rows.nvml_of.push_back(nullptr);
  }
  return rows;
}

// The PCIe locality of every pair, from sysfs, and what could not be told.
struct PciLevels {
  std::vector<std::vector<PciLocality>> level;
  std::set<std::string> path_errors;
  bool numa_unknown = false;
};

PciLevels PciPaths(const host::Topology& topo, const TopoRows& rows, TopoMatrix& m) {
  PciLevels out;
  const size_t n = m.devices.size();
  out.level.assign(n, std::vector<PciLocality>(n, PciLocality::kSelf));
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = i + 1; j < n; ++j) {
      auto l = host::DeviceLocality(*rows.pci_of[i], *rows.pci_of[j], topo.nodes.size());
      if (!l.ok()) out.path_errors.insert(SanitizeForDisplay(l.status().message()));
      if (l.ok() && *l == PciLocality::kUnknown) out.numa_unknown = true;
      out.level[i][j] = out.level[j][i] = l.ok() ? *l : PciLocality::kUnknown;
    }
  }
  m.cells.assign(n, std::vector<TopoCell>(n));
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = 0; j < n; ++j) {
      TopoCell& c = m.cells[i][j];
      c.pci = std::string(host::PciLocalityName(out.level[i][j]));
      c.link = c.pci;
    }
  }
  return out;
}

// GPU pairs: NVLink first, then NVML's own PCIe level (the sysfs path stays where NVML says
// nothing); and what NVML could not tell.
void NvLinkCells(const gpu::GpuSnapshot& snap, const TopoRows& rows, TopoMatrix& m) {
  gpu::NvLinkPeers peers = gpu::CountNvLinks(snap);
  for (size_t i = 0; i < rows.n_gpus; ++i) {
    const gpu::GpuDevice* a = rows.nvml_of[i];
    if (a == nullptr) continue;
    for (size_t j = 0; j < rows.n_gpus; ++j) {
      const gpu::GpuDevice* b = rows.nvml_of[j];
      if (i == j || b == nullptr) continue;
      TopoCell& c = m.cells[i][j];
      c.nvlinks = peers.Between(a->index, b->index);
      if (c.nvlinks > 0) {
        c.link = fmt::format("NV{}", c.nvlinks);
        continue;
      }
      for (const auto& [other, nvml_level] : a->topology_to_gpus) {
        if (other != b->index) continue;
        std::string_view name = gpu::TopologyLevelName(nvml_level);
        if (name.empty()) {
          m.notes.push_back(fmt::format("NVML gives GPU{} to GPU{} the unknown topology level {}",
                                        a->index, b->index, nvml_level));
          break;
        }
        c.link = std::string(name);
        if (c.pci != "?" && c.pci != name && i < j) {
          m.notes.push_back(
              fmt::format("NVML puts GPU{} and GPU{} at {}, the sysfs PCI tree at {}; the matrix "
                          "shows NVML's",
                          a->index, b->index, name, c.pci));
        }
        break;
      }
    }
  }
  for (const auto& [index, count] : peers.unknown_links) {
    m.notes.push_back(fmt::format(
        "GPU{}: {} NVLink(s) with no recorded state or remote end; its NV counts may be low", index,
        count));
  }
  for (const auto& note : peers.notes) m.notes.push_back(note);
}

// Each GPU's nearest NIC; a GPU whose nearest one is across the CPU interconnect is flagged.
void NearestNics(const TopoRows& rows, const std::vector<std::vector<PciLocality>>& level,
                 TopoMatrix& m) {
  const size_t n = m.devices.size();
  m.nic_scope = rows.any_rdma ? "RDMA NICs (with an InfiniBand/RoCE device)" : "all NICs";
  std::vector<std::string> via_host;  // nearest NIC PHB or NODE
  for (size_t i = 0; i < rows.n_gpus; ++i) {
    TopoDevice& g = m.devices[i];
    PciLocality best = PciLocality::kUnknown;
    size_t best_j = 0;
    int unknown = 0;
    for (size_t j = rows.n_gpus; j < n; ++j) {
      if (rows.any_rdma && !m.devices[j].rdma) continue;
      if (level[i][j] == PciLocality::kUnknown) {
        ++unknown;
      } else if (best == PciLocality::kUnknown || level[i][j] < best) {
        best = level[i][j];
        best_j = j;
      }
    }
    if (best == PciLocality::kUnknown) continue;
    const TopoDevice& nic = m.devices[best_j];
    g.nearest_nic = nic.label;
    g.nearest_nic_link = std::string(host::PciLocalityName(best));
    if (best == PciLocality::kSys && unknown == 0) {
      m.flags.push_back(TopoFlag{
          g.label, g.bdf, nic.label, nic.name,
          fmt::format("{} ({}): nearest NIC is {} ({}) at SYS, across the CPU interconnect",
                      g.label, g.bdf, nic.label, nic.name),
          fmt::format("give {} a NIC on its own socket (NUMA node {}): move a NIC into a slot of "
                      "that socket, or point the GPU's ranks at one there (NCCL_IB_HCA); until "
                      "then its GPUDirect RDMA traffic crosses sockets",
                      g.label,
                      g.numa_node >= 0 ? std::to_string(g.numa_node) : std::string("unknown"))});
    } else if (best == PciLocality::kSys) {
      m.notes.push_back(
          fmt::format("{}: nearest known NIC is SYS, but the locality of {} NIC(s) "
                      "is unknown",
                      g.label, unknown));
    } else if (best == PciLocality::kPhb || best == PciLocality::kNode) {
      via_host.push_back(g.label);
    }
  }
  if (!via_host.empty()) {
    m.notes.push_back(
        "NCCL uses GPUDirect RDMA by default only with a NIC at PXB or nearer "
        "(NCCL_NET_GDR_LEVEL defaults to PXB; to P2C on C2C-attached Grace GPUs since NCCL "
        "2.27); " +
        (via_host.size() == rows.n_gpus ? std::string("every GPU reaches its")
                                        : Join(via_host) + " reach their") +
        " nearest NIC through the host bridge (PHB/NODE), so set "
        "NCCL_NET_GDR_LEVEL=PHB (or SYS) if GPUDirect RDMA is wanted there");
  }
}

}  // namespace

TopoMatrix BuildTopoMatrix(const host::Host& host, const host::Topology& topo,
                           const Result<gpu::GpuSnapshot>& gpus) {
  TopoMatrix m;
  m.root = host.root().empty() ? "/" : host.root();
  m.topology_source = topo.source;
  const gpu::GpuSnapshot* snap = gpus.ok() ? &*gpus : nullptr;
  m.nvml = snap != nullptr;
  m.nvml_source = snap != nullptr ? (snap->source.empty() ? "recorded" : snap->source)
                                  : gpus.status().message();

  TopoRows rows = CollectDevices(host, topo, snap, m);
  const size_t n_gpus = rows.n_gpus;
  const size_t n = m.devices.size();
  PciLevels levels = PciPaths(topo, rows, m);
  if (snap != nullptr) {
    NvLinkCells(*snap, rows, m);
  } else if (n_gpus > 1) {
    m.notes.push_back("NVLink unknown without NVML state: GPU-GPU cells show the PCIe path only");
  }
  for (const auto& e : levels.path_errors) m.notes.push_back("locality unknown (\"?\"): " + e);
  if (levels.numa_unknown) {
    m.notes.push_back(
        "locality unknown (\"?\"): devices under different host bridges with no "
        "NUMA node or local CPU list to tell NODE from SYS");
  }

  NearestNics(rows, levels.level, m);
  if (n_gpus == 0) {
    m.notes.push_back(
        fmt::format("no NVIDIA GPU on the PCI bus under {} ({} network device(s))", m.root, n));
  }
  if (n_gpus > 0 && n == n_gpus) {
    m.notes.push_back("no network device on the PCI bus: GPU-NIC locality not judged");
  }
  return m;
}

namespace {

constexpr std::string_view kLegend =
    "Legend:\n"
    "\n"
    "  X    = Self\n"
    "  SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA nodes "
    "(e.g., QPI/UPI)\n"
    "  NODE = Connection traversing PCIe as well as the interconnect between PCIe Host Bridges "
    "within a NUMA node\n"
    "  PHB  = Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)\n"
    "  PXB  = Connection traversing multiple PCIe bridges (without traversing the PCIe Host "
    "Bridge)\n"
    "  PIX  = Connection traversing at most a single PCIe bridge\n"
    "  NV#  = Connection traversing a bonded set of # NVLinks\n"
    "  ?    = Unknown (see the notes)\n";

std::string RightTrim(std::string s) {
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

}  // namespace

std::string TopoMatrixText(const TopoMatrix& m) {
  std::string out;
  const size_t n = m.devices.size();
  const size_t n_gpus = m.gpu_count();
  if (n_gpus == 0) {
    // Nothing to put in a GPU matrix; the notes say what was found.
    for (const auto& note : m.notes) out += note + "\n";
    return out;
  }
  {
    std::vector<std::string> header = {""};
    std::vector<std::vector<std::string>> rows;
    for (const auto& d : m.devices) header.push_back(d.label);
    header.push_back("CPU Affinity");
    header.push_back("NUMA Affinity");
    for (size_t i = 0; i < n; ++i) {
      const TopoDevice& d = m.devices[i];
      std::vector<std::string> row = {d.label};
      for (size_t j = 0; j < n; ++j) row.push_back(m.cells[i][j].link);
      row.push_back(d.cpu_affinity.empty() ? "N/A" : d.cpu_affinity);
      row.push_back(d.numa_node >= 0 ? std::to_string(d.numa_node) : "N/A");
      rows.push_back(std::move(row));
    }
    std::vector<size_t> width(header.size());
    for (size_t c = 0; c < header.size(); ++c) {
      width[c] = header[c].size();
      for (const auto& r : rows) width[c] = std::max(width[c], r[c].size());
    }
    auto line = [&](const std::vector<std::string>& cols) {
      std::string s;
      for (size_t c = 0; c < cols.size(); ++c) {
        s += cols[c];
        if (c + 1 < cols.size()) s += std::string(width[c] - cols[c].size() + 2, ' ');
      }
      out += RightTrim(std::move(s)) + "\n";
    };
    line(header);
    for (const auto& r : rows) line(r);
    out += "\n";
  }

  // The verdict on GPU-NIC locality, right under the matrix.
  if (!m.flags.empty()) {
    for (const auto& f : m.flags) out += "WARNING: " + f.message + "\n";
    out +=
        "  fix: give every GPU a NIC on its own socket (move the NICs, or point each GPU's "
        "ranks at a local one with NCCL_IB_HCA); until then their GPUDirect RDMA traffic "
        "crosses the CPU interconnect\n";
  } else if (n > n_gpus) {
    out += "GPU-NIC locality: no GPU's nearest NIC is across the CPU interconnect (SYS)\n";
  }
  out +=
      m.nvml ? "NVML state: " + m.nvml_source + "\n" : "NVML state: none (" + m.nvml_source + ")\n";
  if (!m.notes.empty()) {
    out += "\nNotes:\n";
    for (const auto& note : m.notes) out += "  - " + note + "\n";
  }
  {
    out += "\n";
    out += kLegend;
    out += "\nGPU Legend:\n\n";
    for (const auto& d : m.devices) {
      if (d.kind != TopoDevice::Kind::kGpu) continue;
      out += fmt::format("  {}: {} ({})\n", d.label, d.name, d.bdf);
    }
    if (n > n_gpus) {
      out += "\nNIC Legend:\n\n";
      for (const auto& d : m.devices) {
        if (d.kind != TopoDevice::Kind::kNic) continue;
        out += fmt::format("  {}: {} ({})\n", d.label, d.name, d.bdf);
      }
    }
  }
  return out;
}

}  // namespace ys::report
