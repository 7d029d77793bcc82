// What the numa.placement.* units read and judge: where the checked process's memory lives relative
// to its home NUMA node, the locality of the GPUs and NICs it uses, automatic NUMA balancing and
// zone reclaim (reference: docs/node-checks.md §numa; Exemplar case 2: 18% of accesses remote).
//
// Home node(s). The node of the GPU(s) the process uses when the environment identifies them,
// otherwise the nodes of its allowed CPUs (Cpus_allowed_list). The GPU is the better anchor: a
// rank's host buffers are DMA'd to and from its GPU, so memory near the CPUs but away from the
// GPU still crosses the inter-socket link. GPUs are identified from SLURM_STEP_GPUS or
// SLURM_JOB_GPUS (global ids, preferred: under ConstrainDevices CUDA_VISIBLE_DEVICES is relative
// to the device cgroup), else CUDA_VISIBLE_DEVICES; ids are ordinals in PCI bus order (the order
// nvidia-smi numbers GPUs). When several are listed, LOCAL_RANK or SLURM_LOCALID picks the rank's
// own (torch.cuda.set_device(local_rank)); without either, all listed GPUs count. UUIDs and MIG
// ids cannot be mapped without NVML: then the CPUs' nodes are home and the evidence says why.
//
// Memory counted. Pages of numa_maps weighted by kernelpagesize_kB, split into process data
// (anonymous, heap, stack, hugetlb, shared memory) and ordinary file mappings (libraries, page
// cache). The remote share is judged on process data only; file pages are reported as
// evidence. Data under an interleave policy is spread on purpose and left out of the share.
#ifndef YARDSTICK_CHECKS_NUMA_INTERNAL_PLACEMENT_FACTS_H_
#define YARDSTICK_CHECKS_NUMA_INTERNAL_PLACEMENT_FACTS_H_

#include <string>
#include <variant>
#include <vector>

#include "checks/check.h"
#include "host/proc_pid.h"
#include "host/topology.h"

namespace ys::checks::placement {

struct Device {
  std::string label;  // "gpu0", "mlx5_3"
  const host::PciDevice* pci = nullptr;
};

struct DeviceUse {
  std::vector<Device> gpus;  // all GPUs, PCI order
  std::vector<Device> nics;  // RDMA (or network) devices
  std::vector<Device> used_gpus;
  std::string gpu_source;  // how used_gpus was decided
  std::vector<Device> used_nics;
  std::string nic_source;
};

struct PlacementFacts {
  const host::Topology* topo = nullptr;  // the context's, alive for the run
  host::ProcStatus ps;                   // the checked process's status
  DeviceUse use;
  CpuSet home;           // the home NUMA node(s)
  std::string home_why;  // how home was decided
  Evidence notes;
};

// The facts, or the result the units give instead: a skip without NUMA information or without
// the process's CPUs, an error for unreadable files.
std::variant<PlacementFacts, CheckResult> ReadPlacement(const CheckContext& ctx);

DeviceUse IdentifyDevices(const host::Host& h, const host::Topology& topo);
// YS-NUMA-003/004/005: GPUs and NICs without NUMA affinity, or used far from the process's CPUs.
void CheckDevices(const CheckContext& ctx, const host::Topology& topo, const DeviceUse& use,
                  const host::ProcStatus& ps, CheckResult& r);
// YS-NUMA-001: the share of process data outside `home`. Returns an error status only for
// unreadable or malformed numa_maps.
Status CheckMemory(const CheckContext& ctx, const host::Topology& topo, const CpuSet& home,
                   const std::string& home_why, CheckResult& r);
// YS-NUMA-002/006: automatic NUMA balancing and zone reclaim against site policy.
Status CheckSysctls(const CheckContext& ctx, const host::Topology& topo, CheckResult& r);

CheckResult StartResult(const PlacementFacts& f);
// The pass summary of every numa.placement.* unit.
void Conclude(const PlacementFacts& f, CheckResult& r);

}  // namespace ys::checks::placement

#endif  // YARDSTICK_CHECKS_NUMA_INTERNAL_PLACEMENT_FACTS_H_
