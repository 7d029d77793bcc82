#include "core/finding_codes.h"

#include <array>
#include <vector>

#include "core/registry.h"

namespace ys {
namespace {

constexpr Severity W = Severity::kWarn;
constexpr Severity F = Severity::kFail;

constexpr std::array kCodes = {
    // CPU idle states
    FindingCodeInfo{"YS-CPU-001", W,
                    "CPU idle driver off: no deep C-states (idle=poll/halt, cpuidle.off)"},
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
    FindingCodeInfo{"YS-ENV-007", W,
                    "GPUDirect RDMA not available (no peer-memory module, no DMA-BUF)"},
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
    // GPU health (NVML answers through GpuSnapshot; XIDs from the kernel log)
    FindingCodeInfo{"YS-GPU-001", F, "GPU count seen by NVML differs from site expectation"},
    FindingCodeInfo{"YS-GPU-002", F,
                    "GPU on the PCI bus missing from NVML (fallen off the bus or excluded)"},
    FindingCodeInfo{"YS-GPU-003", F,
                    "kernel module and NVML driver versions differ (driver/library mismatch)"},
    FindingCodeInfo{"YS-GPU-004", W, "driver version differs from site expectation"},
    FindingCodeInfo{"YS-GPU-005", W, "CUDA driver library older than the kernel driver's branch"},
    FindingCodeInfo{"YS-GPU-006", W, "persistence mode differs from site policy"},
    FindingCodeInfo{"YS-GPU-010", F, "clocks held down: HW slowdown"},
    FindingCodeInfo{"YS-GPU-011", F, "clocks held down: HW thermal slowdown"},
    FindingCodeInfo{"YS-GPU-012", F, "clocks held down: HW power brake slowdown"},
    FindingCodeInfo{"YS-GPU-013", W, "clocks held down: SW thermal slowdown"},
    FindingCodeInfo{"YS-GPU-014", W, "clocks held down: SW power cap"},
    FindingCodeInfo{"YS-GPU-015", F, "enforced power limit below the default"},
    FindingCodeInfo{"YS-GPU-020", F, "temperature at or above the GPU's slowdown threshold"},
    FindingCodeInfo{"YS-GPU-021", W,
                    "temperature near the slowdown threshold or above max operating"},
    FindingCodeInfo{"YS-GPU-025", F, "ECC mode differs from site policy"},
    FindingCodeInfo{"YS-GPU-026", F, "volatile uncorrected ECC errors"},
    FindingCodeInfo{"YS-GPU-030", W, "page retirement pending (a reset retires the pages)"},
    FindingCodeInfo{"YS-GPU-031", F, "retired pages at DCGM's limit (SBE + DBE >= 63)"},
    FindingCodeInfo{"YS-GPU-032", W, "row remapping pending (a GPU reset activates it)"},
    FindingCodeInfo{"YS-GPU-033", F, "row remapping failed"},
    FindingCodeInfo{"YS-GPU-034", W, "uncorrectable row remaps at DCGM's limit (>= 512)"},
    FindingCodeInfo{"YS-GPU-040", F, "fatal XID in the kernel log"},
    FindingCodeInfo{"YS-GPU-041", W, "XID in the kernel log that needs attention"},
    FindingCodeInfo{"YS-GPU-042", W, "application XIDs repeated on one GPU"},
    FindingCodeInfo{"YS-GPU-043", F, "driver reports a GPU lost or not initialised (no XID)"},
    FindingCodeInfo{"YS-GPU-045", F, "NVLink link inactive"},
    FindingCodeInfo{"YS-GPU-046", W, "NVLink replay errors"},
    FindingCodeInfo{"YS-GPU-047", F, "NVLink recovery errors"},
    FindingCodeInfo{"YS-GPU-048", W, "NVLink link slower than the GPU's other links"},
    FindingCodeInfo{"YS-GPU-050", F, "NVLink fabric registration not completed"},
    FindingCodeInfo{"YS-GPU-051", F, "NVLink fabric registration failed"},
    FindingCodeInfo{"YS-GPU-055", F, "GPU PCIe link width below the maximum"},
    FindingCodeInfo{"YS-GPU-056", W, "GPU PCIe generation below the maximum under load"},
    FindingCodeInfo{"YS-GPU-057", W, "GPU PCIe replays above threshold"},
    FindingCodeInfo{"YS-GPU-060", F, "MIG mode differs from site policy"},
    FindingCodeInfo{"YS-GPU-065", W, "compute processes already on the GPU"},
    FindingCodeInfo{"YS-GPU-066", F, "compute processes of another user on the GPU"},
    FindingCodeInfo{"YS-GPU-070", F, "DCGM diagnostic (dcgmi diag) test failed"},
    FindingCodeInfo{"YS-GPU-071", W, "DCGM diagnostic (dcgmi diag) test warned"},
    // Fleet: nodes and devices far below their peers
    FindingCodeInfo{"YS-FLEET-001", F, "node far below its peers' median"},
    FindingCodeInfo{"YS-FLEET-002", F, "GPU, NIC or other device far below its peers' median"},
    // Benchmarks: collectives (YS-BENCH-001..009)
    FindingCodeInfo{"YS-BENCH-001", F, "collective data check found wrong elements"},
    FindingCodeInfo{"YS-BENCH-002", W, "one rank's collective time far above the other ranks'"},
    FindingCodeInfo{"YS-BENCH-003", W,
                    "pairwise collective: a pair or ring neighbour far below the others"},

    // Benchmarks: CPU memory, GEMM, storage, host (YS-BENCH-010..019)
    FindingCodeInfo{"YS-BENCH-010", F,
                    "CPU GEMM results not bit-identical across repeats or cores"},
    FindingCodeInfo{"YS-BENCH-011", F,
                    "STREAM arrays hold wrong values after the kernels (validation failed)"},
    FindingCodeInfo{"YS-BENCH-012", F, "checkpoint files read back differ from what was written"},

    // Benchmarks: GPU GEMM, memory, copies (YS-BENCH-020..029)
    FindingCodeInfo{"YS-BENCH-020", F, "GPU GEMM results not bit-identical across repeats or GPUs"},
    FindingCodeInfo{"YS-BENCH-021", F, "GPU copy delivered bytes that differ from the source"},
    FindingCodeInfo{"YS-BENCH-022", F,
                    "GPU GEMM result outside the error bound of a double-precision reference"},

    // Burn-in faults (burnin/fault_kinds.h maps each fault kind to its code)
    FindingCodeInfo{"YS-BURN-001", F,
                    "burn-in result differs from the reference output (miscompare)"},
    FindingCodeInfo{"YS-BURN-002", W, "temperature left the steady-state band during burn-in"},
    FindingCodeInfo{"YS-BURN-003", F,
                    "clocks throttled (thermal or hardware slowdown) during burn-in"},
    FindingCodeInfo{"YS-BURN-004", F, "new ECC errors or row-remap failure during burn-in"},
    FindingCodeInfo{"YS-BURN-005", F, "new XID reported by the NVIDIA driver during burn-in"},
    FindingCodeInfo{"YS-BURN-006", W, "new NVLink or PCIe link errors during burn-in"},
    FindingCodeInfo{"YS-BURN-007", W, "performance drifted below the burn-in's first hour"},
    FindingCodeInfo{"YS-BURN-008", F, "burn-in load could not run"},
    FindingCodeInfo{"YS-BURN-009", F, "node rebooted during burn-in"},
    FindingCodeInfo{"YS-BURN-010", W,
                    "new host memory errors (EDAC, machine check) during burn-in"},
};

// Built at first use, after static initialisation has registered every unit.
const std::vector<FindingCodeInfo>& Codes() {
  static const std::vector<FindingCodeInfo> all = [] {
    std::vector<FindingCodeInfo> v(kCodes.begin(), kCodes.end());
    for (const RegisteredUnit* u : UnitRegistry::Global().ListAll()) {
      v.insert(v.end(), u->info.codes.begin(), u->info.codes.end());
    }
    return v;
  }();
  return all;
}

}  // namespace

std::span<const FindingCodeInfo> AllFindingCodes() { return Codes(); }

const FindingCodeInfo* LookupFindingCode(std::string_view code) {
  for (const auto& c : Codes()) {
    if (c.code == code) return &c;
  }
  return nullptr;
}

bool IsTableFindingCode(std::string_view code) {
  for (const auto& c : kCodes) {
    if (c.code == code) return true;
  }
  return false;
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
