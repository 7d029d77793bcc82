#include "core/finding_codes.h"

#include <array>

namespace ys {
namespace {

constexpr Severity W = Severity::kWarn;
constexpr Severity F = Severity::kFail;

constexpr std::array kCodes = {
    // CPU idle states
    FindingCodeInfo{"YS-CPU-001", W, "CPU idle driver off: no deep C-states (idle=poll/halt, cpuidle.off)"},
    FindingCodeInfo{"YS-CPU-002", W, "deep C-state disabled on every CPU"},
    FindingCodeInfo{"YS-CPU-003", W, "deep C-state disabled on some CPUs only"},
    FindingCodeInfo{"YS-CPU-004", W, "deep C-states removed by max_cstate"},
    FindingCodeInfo{"YS-CPU-005", W, "deepest C-state differs from site policy"},
    // CPU frequency
    FindingCodeInfo{"YS-CPU-010", F, "CPU frequency governor not performance"},
    FindingCodeInfo{"YS-CPU-011", F, "turbo/boost disabled"},
    FindingCodeInfo{"YS-CPU-012", F, "scaling_max_freq capped below the hardware maximum"},
    FindingCodeInfo{"YS-CPU-013", W, "energy-performance preference favours power"},
    FindingCodeInfo{"YS-CPU-014", F, "intel_pstate max_perf_pct below 100"},
    FindingCodeInfo{"YS-CPU-015", W, "firmware frequency limit (bios_limit) below the maximum"},
    FindingCodeInfo{"YS-CPU-016", F, "measured busy-core clock below the rated maximum"},
    FindingCodeInfo{"YS-CPU-017", W, "frequency policy differs across CPUs"},
    FindingCodeInfo{"YS-CPU-018", W, "turbo allowed against site policy (turbo off)"},
    // SMT and mitigations
    FindingCodeInfo{"YS-CPU-020", W, "SMT state differs from site policy"},
    FindingCodeInfo{"YS-CPU-021", W, "speculative-execution mitigations differ from site policy"},
    FindingCodeInfo{"YS-CPU-022", W, "CPU vulnerable for lack of microcode"},
    // NUMA
    FindingCodeInfo{"YS-NUMA-001", F, "process memory on remote NUMA nodes above threshold"},
    FindingCodeInfo{"YS-NUMA-002", W, "automatic NUMA balancing enabled"},
    FindingCodeInfo{"YS-NUMA-003", F, "process CPUs not local to its GPUs or NICs"},
    FindingCodeInfo{"YS-NUMA-004", F, "process memory nodes exclude the devices' local node"},
    FindingCodeInfo{"YS-NUMA-005", W, "device without NUMA affinity on a multi-node host"},
    FindingCodeInfo{"YS-NUMA-006", W, "zone_reclaim_mode enabled"},
    // Core isolation
    FindingCodeInfo{"YS-ISO-001", F, "other processes pinned to or running on the job's cores"},
    FindingCodeInfo{"YS-ISO-002", W, "device interrupts land on the job's cores"},
    FindingCodeInfo{"YS-ISO-003", F, "job cpuset shared with another job or step"},
    FindingCodeInfo{"YS-ISO-004", F, "CPU quota throttles the job"},
    FindingCodeInfo{"YS-ISO-005", W, "isolcpus/nohz_full cover the job's cores"},
    // Memory
    FindingCodeInfo{"YS-MEM-001", W, "transparent hugepage defrag set to always"},
    FindingCodeInfo{"YS-MEM-002", W, "transparent hugepages differ from site policy"},
    FindingCodeInfo{"YS-MEM-003", W, "swap in use"},
    FindingCodeInfo{"YS-MEM-004", W, "swap enabled with high swappiness"},
    FindingCodeInfo{"YS-MEM-005", F, "locked-memory limit not unlimited (RDMA registration)"},
    FindingCodeInfo{"YS-MEM-006", W, "hugetlb pages reserved but unused"},
    // Virtualisation, IOMMU, page size
    FindingCodeInfo{"YS-VIRT-001", W, "IOMMU translates DMA for GPUs or NICs"},
    FindingCodeInfo{"YS-VIRT-002", F, "Grace SMMUv3 without CMDQV (command-queue virtualisation)"},
    FindingCodeInfo{"YS-VIRT-003", F, "CMDQV disabled or bypassed by module parameter"},
    FindingCodeInfo{"YS-VIRT-004", W, "4 KiB base pages on Grace"},
    FindingCodeInfo{"YS-VIRT-005", W, "IOMMU in strict invalidation mode"},
    // Runtime environment
    FindingCodeInfo{"YS-ENV-001", F, "NCCL_TOPO_FILE set but absent or unreadable"},
    FindingCodeInfo{"YS-ENV-002", W, "NCCL_IB_HCA prefix matches more devices than intended"},
    FindingCodeInfo{"YS-ENV-003", F, "NCCL_IB_QPS_PER_CONNECTION=1 on 400 Gb/s or faster links"},
    FindingCodeInfo{"YS-ENV-004", W, "NCCL algorithm or protocol forced"},
    FindingCodeInfo{"YS-ENV-005", W, "NCCL_DEBUG left at INFO or TRACE"},
    FindingCodeInfo{"YS-ENV-006", F, "NCCL fast path disabled"},
    FindingCodeInfo{"YS-ENV-007", W, "GPUDirect RDMA not available (no peer-memory module, no DMA-BUF)"},
    // PCIe
    FindingCodeInfo{"YS-PCI-001", F, "PCIe link width below the device maximum"},
    FindingCodeInfo{"YS-PCI-002", W, "PCIe link speed below the device maximum"},
    FindingCodeInfo{"YS-PCI-003", W, "PCIe AER errors recorded"},
    FindingCodeInfo{"YS-PCI-004", F, "GPU count differs from site expectation"},
    FindingCodeInfo{"YS-PCI-005", F, "NIC count differs from site expectation"},
    // InfiniBand / RoCE
    FindingCodeInfo{"YS-IB-001", F, "port not ACTIVE"},
    FindingCodeInfo{"YS-IB-002", F, "port physical state not LinkUp"},
    FindingCodeInfo{"YS-IB-003", F, "port rate below the site minimum"},
    FindingCodeInfo{"YS-IB-004", W, "port error counters non-zero"},
    FindingCodeInfo{"YS-IB-005", W, "RoCE interface MTU too small for 4096-byte IB MTU"},
};

}  // namespace

std::span<const FindingCodeInfo> AllFindingCodes() { return kCodes; }

const FindingCodeInfo* LookupFindingCode(std::string_view code) {
  for (const auto& c : kCodes) {
    if (c.code == code) return &c;
  }
  return nullptr;
}

Finding MakeFinding(std::string_view code, std::string entity, std::string message) {
  Finding f;
  f.code = std::string(code);
  const FindingCodeInfo* info = LookupFindingCode(code);
  f.severity = info ? info->severity : Severity::kFail;
  f.entity = std::move(entity);
  f.message = std::move(message);
  return f;
}

}  // namespace ys
