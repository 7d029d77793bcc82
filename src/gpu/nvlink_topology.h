// How the snapshot's GPUs are joined: NVLink counts between GPU pairs (the NV# of
// `nvidia-smi topo -m`) and NVML's PCIe topology levels, as plain functions on a GpuSnapshot.
#ifndef YARDSTICK_GPU_NVLINK_TOPOLOGY_H_
#define YARDSTICK_GPU_NVLINK_TOPOLOGY_H_

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/status.h"
#include "gpu/gpu_snapshot.h"

namespace ys::gpu {

// A PCI address as NVML prints it ("00000000:1B:00.0") or as sysfs names it ("0000:1b:00.0")
// -> the sysfs form, lower case with a four-digit domain when the domain fits. Invalid for
// anything else.
Result<std::string> NormalizePciBusId(std::string_view bus_id);

// Active NVLinks between GPU pairs, counted the way nvidia-smi shows them.
//
// A link whose remote end is another GPU of the snapshot joins that pair directly. A link whose
// remote end is anything else is taken to lead to an NVSwitch (NVML reports the switch's PCI
// address there); two GPUs that reach a common switch are joined through it by as many links as
// the smaller of their link counts into the switches they share: on an HGX H100 every GPU has 18
// links into the same 4 NVSwitches, hence NV18 for every pair.
struct NvLinkPeers {
  // (a, b) by NVML index, both orders present, a != b -> links. A pair that is absent has none.
  std::map<std::pair<int, int>, int> links;
  // GPUs with at least one link whose state or remote end NVML did not give -> how many.
  std::map<int, int> unknown_links;
  // Per GPU: active links counted (all remotes).
  std::map<int, int> active_links;
  // Things worth telling the operator: malformed remote addresses, one-sided direct links.
  std::vector<std::string> notes;

  int Between(int a, int b) const {
    auto it = links.find({a, b});
    return it == links.end() ? 0 : it->second;
  }
};
NvLinkPeers CountNvLinks(const GpuSnapshot& snapshot);

// nvmlGpuTopologyLevel_t -> the nvidia-smi legend: 0 (internal, one board) and 10 -> "PIX",
// 20 -> "PXB", 30 -> "PHB", 40 -> "NODE", 50 -> "SYS"; "" for any other value.
std::string_view TopologyLevelName(int nvml_level);

}  // namespace ys::gpu

#endif  // YARDSTICK_GPU_NVLINK_TOPOLOGY_H_
