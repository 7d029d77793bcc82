// gpu.mig: MIG mode against the site's policy. A GPU in MIG mode is split into instances: a
// training job sees slices, not whole GPUs, and NCCL cannot use NVLink between them.
#include <string>

#include "checks/gpu/internal/gpu_common.h"

namespace ys::checks {
namespace {

class GpuMigCheck : public Check {
 public:
  CheckResult Run(const CheckContext& ctx) const override {
    CheckResult r;
    const gpu::GpuSnapshot* s = &ctx.gpus();
    Policy want = ctx.param<Policy>("mig");
    Unanswered un;
    int judged = 0, enabled = 0;
    for (const auto& d : s->devices) {
      const bool* mig = un.Get(d, d.mig_enabled, "mig_enabled");
      if (mig == nullptr) continue;
      ++judged;
      if (*mig) ++enabled;
      if (want == Policy::kAny || *mig == (want == Policy::kOn)) continue;
      std::string i = std::to_string(d.index);
      Finding f = MakeFinding("YS-GPU-060", GpuEntity(d),
                              std::string("MIG mode is ") + (*mig ? "enabled" : "disabled") +
                                  ", the site wants it " + PolicyName(want));
      f.evidence = GpuIdentity(d);
      f.evidence.emplace_back("nvmlDeviceGetMigMode (current)", *mig ? "enabled" : "disabled");
      f.evidence.emplace_back("site.gpu.mig", PolicyName(want));
      f.fix = *mig ? "with no process on the GPU: nvidia-smi mig -dci -i " + i +
                         "; nvidia-smi mig -dgi -i " + i + "; nvidia-smi -i " + i +
                         " -mig 0; then reset the GPU (nvidia-smi -r -i " + i + ") or reboot"
                   : "nvidia-smi -i " + i +
                         " -mig 1, reset the GPU, and create the site's "
                         "instances (nvidia-smi mig -cgi ... -C)";
      f.reference = "NVIDIA Multi-Instance GPU User Guide; NVML nvmlDeviceGetMigMode";
      r.Add(std::move(f));
    }
    if (judged == 0) {
      CheckResult skip = SkipNoneJudged("MIG mode", un);
      un.NoteInto(skip);
      return skip;
    }
    un.NoteInto(r);
    r.Note("mig_enabled", std::to_string(enabled) + " of " + std::to_string(judged) + " GPUs");
    if (r.findings.empty()) {
      r.summary = "MIG " +
                  std::string(enabled == 0        ? "disabled"
                              : enabled == judged ? "enabled"
                                                  : "mixed") +
                  " on " + std::to_string(judged) + " GPUs, as the site wants";
    }
    return r;
  }
};

}  // namespace

YS_REGISTER(GpuMigCheck,
            {.id = "gpu.mig",
             .summary = "MIG mode of every GPU against the site's policy.",
             .needs = {Need::kGpu},
             .codes = {{"YS-GPU-060", Severity::kFail, "MIG mode differs from site policy"}},
             .params = {{.name = "mig",
                         .type = ParamType::kPolicy,
                         .default_value = Policy::kOff,
                         .meaning = "MIG mode of every GPU",
                         .site_table = "gpu"}}})

}  // namespace ys::checks
