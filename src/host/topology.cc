#include "host/topology.h"

#include <hwloc.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <set>

#include "core/log.h"
#include "core/text.h"
#include "host/hwloc_stage.h"
#include "host/procfs.h"

namespace ys::host {

int Topology::NodeOfCpu(int cpu) const {
  for (const auto& n : nodes) {
    if (n.cpus.Contains(cpu)) return n.id;
  }
  return -1;
}

CpuSet Topology::NodesOfCpus(const CpuSet& cpus) const {
  CpuSet out;
  for (int c : cpus.ids()) {
    int n = NodeOfCpu(c);
    if (n >= 0) out.Insert(n);
  }
  return out;
}

const NumaNode* Topology::Node(int id) const {
  for (const auto& n : nodes) {
    if (n.id == id) return &n;
  }
  return nullptr;
}

const PciDevice* Topology::FindPci(std::string_view bdf) const {
  for (const auto& d : pci) {
    if (d.bdf == bdf) return &d;
  }
  return nullptr;
}

std::vector<const PciDevice*> Topology::Gpus() const {
  std::vector<const PciDevice*> out;
  for (const auto& d : pci) {
    if (d.IsNvidiaGpu()) out.push_back(&d);
  }
  return out;
}

std::vector<const PciDevice*> Topology::NetworkDevices() const {
  std::vector<const PciDevice*> out;
  for (const auto& d : pci) {
    if (d.IsNetwork()) out.push_back(&d);
  }
  return out;
}

int Topology::ThreadsPerCore() const {
  size_t most = 1;
  for (const auto& c : cores) most = std::max(most, c.threads.size());
  return static_cast<int>(most);
}

namespace {

struct HwlocCounts {
  CpuSet pus;
  std::vector<CpuCore> cores;
  int packages = 0;
  std::map<int, CpuSet> nodes;
};

// hwloc reads HWLOC_FSROOT from the environment while loading; the environment is process-wide,
// so loads are serialised.
std::mutex g_hwloc_mu;

// A recorded tree reaches hwloc only as a stage (host/hwloc_stage.h): a copy of the files hwloc
// reads, taken through the rooted reader. `stage_error` gets why there is none.
Result<HwlocCounts> LoadWithHwloc(const Host& host, Status* stage_error) {
  std::unique_ptr<HwlocStage> stage;
  if (!host.root().empty()) {
    auto made = HwlocStage::Create(host);
    if (!made.ok()) {
      *stage_error = made.status();
      return made.status();
    }
    stage = std::move(*made);
  }
  std::lock_guard<std::mutex> lock(g_hwloc_mu);
  if (stage) {
    ::setenv("HWLOC_FSROOT", stage->dir().c_str(), 1);
    ::setenv("HWLOC_COMPONENTS", "linux,stop", 1);  // never cpuid/x86 of this machine
    ::setenv("HWLOC_HIDE_ERRORS", "2", 1);  // a partial tree is reported by our own fallback
  }
  hwloc_topology_t topo;
  hwloc_topology_init(&topo);
  int rc = hwloc_topology_load(topo);
  if (stage) {
    ::unsetenv("HWLOC_FSROOT");
    ::unsetenv("HWLOC_COMPONENTS");
    ::unsetenv("HWLOC_HIDE_ERRORS");
  }
  if (rc != 0) {
    hwloc_topology_destroy(topo);
    return Status::Unsupported("hwloc_topology_load failed");
  }
  HwlocCounts out;
  int npu = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
  for (int i = 0; i < npu; ++i) {
    out.pus.Insert(static_cast<int>(hwloc_get_obj_by_type(topo, HWLOC_OBJ_PU, i)->os_index));
  }
  int ncore = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
  for (int i = 0; i < ncore; ++i) {
    hwloc_obj_t core = hwloc_get_obj_by_type(topo, HWLOC_OBJ_CORE, i);
    CpuCore c;
    c.core = static_cast<int>(core->os_index);
    hwloc_obj_t pkg = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_PACKAGE, core);
    c.package = pkg != nullptr ? static_cast<int>(pkg->os_index) : 0;
    unsigned id;
    hwloc_bitmap_foreach_begin(id, core->cpuset) { c.threads.Insert(static_cast<int>(id)); }
    hwloc_bitmap_foreach_end();
    out.cores.push_back(std::move(c));
  }
  out.packages = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE);
  int nnode = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
  for (int i = 0; i < nnode; ++i) {
    hwloc_obj_t node = hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, i);
    CpuSet cpus;
    unsigned id;
    hwloc_bitmap_foreach_begin(id, node->cpuset) { cpus.Insert(static_cast<int>(id)); }
    hwloc_bitmap_foreach_end();
    out.nodes[static_cast<int>(node->os_index)] = cpus;
  }
  hwloc_topology_destroy(topo);
  return out;
}

Result<CpuSet> ReadList(const Host& host, const std::string& path) {
  auto line = host.ReadLine(path);
  if (!line.ok()) return line.status();
  auto set = CpuSet::ParseList(*line);
  if (!set.ok()) return Status::Invalid(host.Resolve(path) + ": " + set.status().message());
  return set;
}

}  // namespace

Result<Topology> LoadTopology(const Host& host) {
  Topology t;
  auto online = ReadList(host, "/sys/devices/system/cpu/online");
  if (!online.ok()) return online.status();
  t.online_cpus = *online;

  // sysfs view of cores and packages.
  std::map<std::pair<int, int>, CpuSet> core_map;
  std::set<int> packages;
  for (int cpu : t.online_cpus.ids()) {
    std::string base = "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/topology/";
    auto pkg = host.ReadInt(base + "physical_package_id");
    auto core = host.ReadInt(base + "core_id");
    int p = pkg.ok() ? static_cast<int>(*pkg) : 0;
    int c = core.ok() ? static_cast<int>(*core) : cpu;
    core_map[{p, c}].Insert(cpu);
    packages.insert(p);
  }
  for (auto& [key, cpus] : core_map) t.cores.push_back(CpuCore{key.first, key.second, cpus});
  t.packages = static_cast<int>(packages.size());

  for (const auto& name : host.ListMatching("/sys/devices/system/node", "node[0-9]*")) {
    auto id = ParseInt(std::string_view(name).substr(4));
    if (!id) continue;
    NumaNode n;
    n.id = static_cast<int>(*id);
    std::string dir = "/sys/devices/system/node/" + name;
    auto cpus = ReadList(host, dir + "/cpulist");
    if (!cpus.ok() && cpus.status().code() != StatusCode::kNotFound) return cpus.status();
    if (cpus.ok()) n.cpus = *cpus;
    if (auto dist = host.ReadLine(dir + "/distance"); dist.ok()) {
      for (auto tok : SplitWhitespace(*dist)) {
        if (auto v = ParseInt(tok)) n.distances.push_back(static_cast<int>(*v));
      }
    }
    if (auto mi = host.ReadFile(dir + "/meminfo"); mi.ok()) {
      if (auto parsed = ParseMeminfo(*mi); parsed.ok() && parsed->count("MemTotal")) {
        n.mem_total_kb = parsed->at("MemTotal");
      }
    }
    t.nodes.push_back(std::move(n));
  }

  Status stage_error;
  auto hw = LoadWithHwloc(host, &stage_error);
  if (stage_error.code() == StatusCode::kInvalidInput) {
    // A file hwloc would read is a FIFO, a device or oversized: not a tree to trust.
    return Status(stage_error.code(), "topology not read: " + stage_error.message());
  }
  if (!hw.ok()) {
    t.source = "sysfs (hwloc: " + hw.status().message() + ")";
  } else if (!(hw->pus == t.online_cpus)) {
    t.source = "sysfs (hwloc saw CPUs " + hw->pus.ToString() + ", the root lists " +
               t.online_cpus.ToString() + ")";
  } else {
    t.source = "hwloc";
    t.cores = std::move(hw->cores);
    t.packages = hw->packages;
    // hwloc's NUMA view agrees with sysfs by construction when it followed the root; sysfs adds
    // distances and sizes, so keep that list and only fill it when sysfs had none.
    if (t.nodes.empty()) {
      for (auto& [id, cpus] : hw->nodes) t.nodes.push_back(NumaNode{id, cpus, std::nullopt, {}});
    }
  }

  auto pci = ListPciDevices(host);
  if (!pci.ok()) return pci.status();
  t.pci = std::move(*pci);
  return t;
}

}  // namespace ys::host
