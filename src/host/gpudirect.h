// GPUDirect RDMA availability from files (reference: docs/node-checks.md §rdma "GPUDirect RDMA
// enablement" and §12): the legacy peer-memory path (nvidia_peermem, MLNX_OFED's nv_mem /
// nv_mem_nc, nv_peer_mem; the same paths NCCL's GDR check tests) and the DMA-BUF path, whose
// prerequisites are the NVIDIA open kernel module and Linux 5.12 or later. No file proves DMA-BUF
// works; only its prerequisites can be read.
#ifndef YARDSTICK_HOST_GPUDIRECT_H_
#define YARDSTICK_HOST_GPUDIRECT_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "host/host.h"

namespace ys::host {

// First line of /proc/driver/nvidia/version:
//   "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.129.03  Thu Oct 19 ..."
//   "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.95.05  Release Build ..."
struct NvidiaDriverVersion {
  std::string version;       // "580.95.05"
  bool open_module = false;  // "Open Kernel Module"
};
// Invalid when the first line does not start with "NVRM version:" or carries no version number.
Result<NvidiaDriverVersion> ParseNvidiaDriverVersion(std::string_view text);

// "6.8.0-60-generic" -> {6, 8}. Invalid when it does not start with "<major>.<minor>".
struct KernelRelease {
  int major = 0;
  int minor = 0;
  bool AtLeast(int ma, int mi) const { return major > ma || (major == ma && minor >= mi); }
};
Result<KernelRelease> ParseKernelRelease(std::string_view text);

struct GpuDirectState {
  std::vector<std::string> peer_memory;       // the peer-memory paths found
  std::optional<NvidiaDriverVersion> driver;  // nullopt when /proc/driver/nvidia/version is absent
  std::optional<KernelRelease> kernel;        // nullopt when osrelease is absent
  std::string kernel_text;                    // osrelease as read
  bool dmabuf_ready() const {
    return driver && driver->open_module && kernel && kernel->AtLeast(5, 12);
  }
  bool available() const { return !peer_memory.empty() || dmabuf_ready(); }
};
// Errors only for a present but malformed version or osrelease file (naming it).
Result<GpuDirectState> ReadGpuDirectState(const Host& host);

}  // namespace ys::host

#endif  // YARDSTICK_HOST_GPUDIRECT_H_
