// env.runtime.gpudirect: on a node with NVIDIA GPUs and RDMA devices, a GPUDirect RDMA path: the
// peer-memory module, or the DMA-BUF prerequisites (open kernel module, Linux 5.12+).
#include "host/gpudirect.h"

#include "checks/check.h"
#include "checks/env/internal/runtime_facts.h"
#include "core/text.h"

namespace ys::checks::runtime {
namespace {

Finding NoGpuDirect(const host::GpuDirectState& gdr, const std::string& driver) {
  Finding f = MakeFinding("YS-ENV-007", "node",
                          "no GPUDirect RDMA path: no peer-memory module and no DMA-BUF "
                          "prerequisites, so NCCL stages GPU data through host memory");
  f.evidence = {{"/sys/module/nvidia_peermem", "absent"},
                {"/sys/kernel/mm/memory_peers/nv_mem/version", "absent"},
                {"/sys/kernel/mm/memory_peers/nv_mem_nc/version", "absent"},
                {"/proc/driver/nvidia/version", driver},
                {"/proc/sys/kernel/osrelease",
                 gdr.kernel_text.empty() ? "absent" : gdr.kernel_text + " (DMA-BUF needs 5.12+)"}};
  f.fix =
      "modprobe nvidia-peermem (and list it in /etc/modules-load.d/), or use the NVIDIA open "
      "GPU "
      "kernel modules on Linux 5.12+ so NCCL can use DMA-BUF";
  f.reference = "docs/node-checks.md §rdma GPUDirect RDMA enablement; NCCL troubleshooting";
  return f;
}

class GpuDirectCheck : public Check {
 public:
  CheckResult Run(const CheckContext& ctx) const override {
    CheckResult early;
    auto q = ReadRuntime(ctx, early);
    if (q == nullptr) return early;
    CheckResult r = StartResult(*q);
    const auto& topo = ctx.topology();
    bool gpus = topo.ok() && !topo->Gpus().empty();
    if (gpus && !q->ib_devices.empty()) {
      auto gdr = host::ReadGpuDirectState(ctx.host());
      if (!gdr.ok()) return CheckResult::Error(gdr.status());
      std::string driver =
          gdr->driver
              ? gdr->driver->version + (gdr->driver->open_module ? " (open kernel module)"
                                                                 : " (proprietary kernel module)")
              : "absent (/proc/driver/nvidia/version)";
      if (gdr->available()) {
        r.Note("gpudirect", !gdr->peer_memory.empty() ? "peer memory: " + Join(gdr->peer_memory)
                                                      : "DMA-BUF prerequisites: driver " + driver +
                                                            ", kernel " + gdr->kernel_text);
      } else {
        r.Add(NoGpuDirect(*gdr, driver));
      }
    }
    Conclude(*q, r);
    return r;
  }
};

}  // namespace

YS_REGISTER(GpuDirectCheck,
            {.id = "env.runtime.gpudirect",
             .summary = "A GPU + RDMA node has a GPUDirect RDMA path (peer memory or DMA-BUF).",
             .needs = {},
             .codes = {{"YS-ENV-007", Severity::kWarn,
                        "GPUDirect RDMA not available (no peer-memory module, no DMA-BUF)"}}})

}  // namespace ys::checks::runtime
