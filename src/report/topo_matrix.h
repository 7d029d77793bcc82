// The GPU-GPU, GPU-NIC and GPU-CPU/NUMA affinity matrix that `nvidia-smi topo -m` shows, built
// from the PCI tree under the host root (host::Topology, sysfs paths) and the NVML answers of a
// GpuSnapshot (NVLink counts, NVML's topology levels), plus the GPUs whose nearest NIC is across
// the CPU interconnect.
//
// Works without NVML state: the GPU-GPU cells then show the PCIe path only, and the matrix says
// so. Nothing is guessed: a cell that cannot be decided shows "?" and a note says why.
#ifndef YARDSTICK_REPORT_TOPO_MATRIX_H_
#define YARDSTICK_REPORT_TOPO_MATRIX_H_

#include <string>
#include <vector>

#include "core/status.h"
#include "gpu/gpu_snapshot.h"
#include "host/host.h"
#include "host/topology.h"

namespace ys::report {

struct TopoDevice {
  enum class Kind { kGpu, kNic };
  Kind kind = Kind::kGpu;
  std::string label;         // "GPU0" (NVML index), "NIC3" (PCI order)
  std::string bdf;           // "0000:11:00.0"
  std::string name;          // GPU: NVML's name, else "NVIDIA 10de:2330"; NIC: "mlx5_0", "ens1f0"
  int nvml_index = -1;       // GPUs NVML listed; -1 otherwise
  std::string uuid;          // GPUs NVML listed
  bool rdma = false;         // NIC with an RDMA device (InfiniBand or RoCE)
  int numa_node = -1;        // -1: firmware gave none
  std::string cpu_affinity;  // local_cpulist, "" when unknown
  // GPUs: the nearest NIC (label) and how far; "" when there is no NIC or it is unknown.
  std::string nearest_nic;
  std::string nearest_nic_link;
};

struct TopoCell {
  std::string link;  // what the matrix shows: "X", "NV18", "PIX" ... "SYS", "?"
  std::string pci;   // the PCIe path from sysfs alone: "X", "PIX" ... "SYS", "?"
  int nvlinks = 0;   // GPU pairs: NVLinks joining them (0: none, or NVML state absent)
};

// A GPU whose nearest NIC is across the CPU interconnect.
struct TopoFlag {
  std::string gpu;  // label
  std::string bdf;
  std::string nic;  // label of the nearest NIC
  std::string nic_name;
  std::string message;  // one line, for the console and the JSON
  std::string fix;      // what recovers it
};

struct TopoMatrix {
  std::string root;                          // "/" or the recorded tree
  std::string topology_source;               // host::Topology::source
  bool nvml = false;                         // NVML state was available and read
  std::string nvml_source;                   // "recorded: FILE", or why there is none
  std::vector<TopoDevice> devices;           // GPUs (by NVML index), then NICs (PCI order)
  std::vector<std::vector<TopoCell>> cells;  // [row][column], over `devices`
  std::string nic_scope;                     // which NICs "nearest" considers
  std::vector<TopoFlag> flags;
  std::vector<std::string> notes;  // unknowns, disagreements, advice; one line each

  size_t gpu_count() const;
};

// Builds the matrix. `gpus` is the NVML state or the reason there is none (then the GPU-GPU
// cells show the PCIe path and a note says NVLink is unknown).
TopoMatrix BuildTopoMatrix(const host::Host& host, const host::Topology& topology,
                           const Result<gpu::GpuSnapshot>& gpus);

// The console form: the matrix with CPU and NUMA affinity columns, a line per flagged GPU right
// under it (or one line saying none is), the notes, and the legends.
std::string TopoMatrixText(const TopoMatrix& m);

// The machine form (schemas/topo.schema.json); written by topo_matrix_json.cc.
std::string TopoMatrixJson(const TopoMatrix& m);

}  // namespace ys::report

#endif  // YARDSTICK_REPORT_TOPO_MATRIX_H_
