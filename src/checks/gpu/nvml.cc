// gpu.nvml: whether the GPU units could look at this node's GPUs at all. Every other gpu.* unit
// skips when NVML cannot be loaded or answers with an error; that is right on a CPU node and
// wrong on a GPU node, where a missing or broken driver is the worst state a node can be in. So
// this unit compares NVML's answer with the NVIDIA GPUs on the PCI bus and the site's expected
// count (docs/verdict.md):
//   - NVML answers: pass;
//   - NVML unusable, NVIDIA GPUs on the PCI bus: fail (a warning inside a container, which may
//     have been started without the GPUs);
//   - NVML unusable, the site expects GPUs, none on the bus: fail (the GPUs are gone);
//   - NVML unusable, the site expects GPUs, the bus unreadable: error (cannot judge);
//   - NVML unusable, no GPU on the bus, none expected: pass, "no GPU to judge".
#include <string>

#include "checks/gpu/internal/gpu_common.h"
#include "core/verdict.h"
#include "host/runtime_context.h"

namespace ys::checks {
namespace {

constexpr const char* kDriverFix =
    "install or load the NVIDIA driver that matches the running kernel (modprobe nvidia; "
    "dkms status), look for NVRM errors in the kernel log (dmesg | grep -i nvrm), then check that "
    "nvidia-smi -L lists every GPU";
constexpr const char* kReference =
    "NVIDIA driver installation guide (docs.nvidia.com/datacenter/tesla/driver-installation-"
    "guide/); NVML nvmlInit_v2";

bool InContainer(const CheckContext& ctx) {
  auto c = host::DetectContainer(ctx.host(), ctx.ProcDir(), ctx.host().env());
  return c.ok() && c->inside();
}

// YS-GPU-075 or, inside a container, YS-GPU-077: GPUs on the bus that NVML cannot reach.
Finding Unreachable(size_t on_bus, const std::string& why, bool container) {
  std::string n = std::to_string(on_bus);
  Finding f = MakeFinding(container ? "YS-GPU-077" : "YS-GPU-075", "node",
                          n + " NVIDIA GPU" + (on_bus == 1 ? " is" : "s are") +
                              " on the PCI bus but NVML is unusable: every gpu.* check skipped, "
                              "the node's GPUs were not judged");
  f.evidence = {{"pci NVIDIA GPUs", n}, {"nvml", why}};
  f.fix = container ? "start the container with the GPUs (docker run --gpus all, or the NVIDIA "
                      "Container Toolkit's runtime), or run yardstick on the host"
                    : kDriverFix;
  f.reference = kReference;
  return f;
}

class GpuNvmlCheck : public Check {
 public:
  CheckResult Run(const CheckContext& ctx) const override {
    CheckResult r;
    const Result<gpu::GpuSnapshot>& s = ctx.gpu();
    if (s.ok() && RecordingOfAnotherMachine(ctx, *s)) {
      // This machine's PCI bus says nothing about a recording of another one: not read.
      r.Note("nvml.gpus", std::to_string(s->devices.size()));
      r.Note("pci.gpus", std::string("not read: ") + kNotThisMachine);
      r.summary =
          "NVML answers (" + s->source + "): " + std::to_string(s->devices.size()) + " GPUs";
      return r;
    }
    const std::optional<int>& expected = ctx.expect().devices.gpus;
    const Result<host::Topology>& topo = ctx.topology();
    std::optional<size_t> on_bus;
    if (topo.ok()) on_bus = topo->Gpus().size();
    r.Note("pci.gpus",
           on_bus ? std::to_string(*on_bus) : "unavailable: " + topo.status().message());
    if (s.ok()) {
      r.Note("nvml.gpus", std::to_string(s->devices.size()));
      r.summary = "NVML answers (" + s->source + "): " + std::to_string(s->devices.size()) +
                  " GPUs" + (on_bus ? ", " + std::to_string(*on_bus) + " on the PCI bus" : "");
      if (s->devices.empty() && on_bus.value_or(1) == 0 && !expected) {
        r.Note(kNoGpuEvidence, "NVML lists no GPU and none is on the PCI bus");
      }
      return r;
    }
    const std::string why = s.status().message();
    r.Note("nvml", why);
    if (on_bus && *on_bus > 0) {
      r.Add(Unreachable(*on_bus, why, InContainer(ctx)));
      return r;
    }
    if (expected && *expected > 0) {
      if (!on_bus) {
        return CheckResult::Error(Status::Unsupported(
            "cannot judge: the site expects " + std::to_string(*expected) +
            " GPUs, NVML is unusable (" + why + ") and the PCI bus is unreadable (" +
            topo.status().message() + ")"));
      }
      Finding f = MakeFinding("YS-GPU-076", "node",
                              "the site expects " + std::to_string(*expected) +
                                  " GPUs; none is on the PCI bus and NVML is unusable");
      f.evidence = {{"site.devices.gpus", std::to_string(*expected)},
                    {"pci NVIDIA GPUs", "0"},
                    {"nvml", why}};
      f.fix =
          "lspci -d 10de: should list the GPUs: if it does not, reseat or RMA them (or this is "
          "not the node the site file describes); then " +
          std::string(kDriverFix);
      f.reference = kReference;
      r.Add(std::move(f));
      return r;
    }
    if (!on_bus) {
      return CheckResult::Skip("NVML unusable (" + why + ") and the PCI bus unreadable (" +
                               topo.status().message() + "): nothing says this node has GPUs");
    }
    r.summary = "no GPU on this node: no NVIDIA GPU on the PCI bus, none expected, NVML absent";
    r.Note(kNoGpuEvidence, "no NVIDIA GPU on the PCI bus and none expected (NVML: " + why + ")");
    return r;
  }
};

}  // namespace

YS_REGISTER(GpuNvmlCheck,
            {.id = "gpu.nvml",
             .summary = "NVML against the PCI bus and the site's GPU count: GPUs that no gpu.* "
                        "unit could judge (driver or NVML missing) fail the node.",
             .uses = {Need::kGpuState},
             .codes = {{"YS-GPU-075", Severity::kFail,
                        "NVIDIA GPUs on the PCI bus but NVML unusable (driver missing or broken)"},
                       {"YS-GPU-076", Severity::kFail,
                        "site expects GPUs; none on the PCI bus and NVML unusable"},
                       {"YS-GPU-077", Severity::kWarn,
                        "NVIDIA GPUs on the PCI bus not reachable from this container"}}})

}  // namespace ys::checks
