// Topology: CPUs, cores, packages, NUMA nodes and PCI devices with their locality.
//
// hwloc discovers cores, packages and NUMA nodes; for a recorded tree it is pointed (HWLOC_FSROOT)
// at a stage of the files it reads, copied through the rooted reader (host/hwloc_stage.h), never
// at the tree itself.
// yardstick also parses the CPU and node lists from sysfs itself and compares: when hwloc did
// not follow the root (or failed), the sysfs view is used and `source` says so. PCI devices are
// always read from sysfs (hwloc does not report maximum link width).
#ifndef YARDSTICK_HOST_TOPOLOGY_H_
#define YARDSTICK_HOST_TOPOLOGY_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/cpu_set.h"
#include "core/status.h"
#include "host/host.h"
#include "host/pci.h"

namespace ys::host {

struct NumaNode {
  int id = 0;
  CpuSet cpus;
  std::optional<uint64_t> mem_total_kb;
  std::vector<int> distances;  // row of the distance matrix, in node order
};

struct CpuCore {
  int package = 0;
  int core = 0;
  CpuSet threads;  // logical CPUs of this core
};

struct Topology {
  CpuSet online_cpus;
  std::vector<NumaNode> nodes;  // sorted by id; may be empty on kernels without NUMA
  std::vector<CpuCore> cores;
  int packages = 0;
  std::vector<PciDevice> pci;
  std::string source;  // "hwloc" or "sysfs (hwloc: <why not>)"

  // Node holding `cpu`, or -1.
  int NodeOfCpu(int cpu) const;
  // Union of the nodes of the given CPUs.
  CpuSet NodesOfCpus(const CpuSet& cpus) const;
  const NumaNode* Node(int id) const;
  const PciDevice* FindPci(std::string_view bdf) const;
  std::vector<const PciDevice*> Gpus() const;
  std::vector<const PciDevice*> NetworkDevices() const;
  // Logical CPUs per physical core (1 without SMT).
  int ThreadsPerCore() const;
};

// Reads the topology under the host root. Errors when the CPU list itself is unreadable, or when
// a file hwloc reads is not a regular file or is oversized (Invalid, naming it); missing NUMA or
// PCI information gives empty lists.
Result<Topology> LoadTopology(const Host& host);

}  // namespace ys::host

#endif  // YARDSTICK_HOST_TOPOLOGY_H_
