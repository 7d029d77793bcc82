// gpu.persistence: persistence mode on every GPU. Without it the driver tears the GPU state down
// whenever no process holds the device, so each job start pays the initialisation again and
// settings such as application clocks are lost (DCGM's software plugin checks it too).
#include <string>

#include "checks/gpu/internal/gpu_common.h"

namespace ys::checks {
namespace {

class GpuPersistenceCheck : public Check {
 public:
  CheckResult Run(const CheckContext& ctx) const override {
    CheckResult r;
    const gpu::GpuSnapshot* s = &ctx.gpus();
    Unanswered un;
    int judged = 0, on = 0;
    for (const auto& d : s->devices) {
      const bool* pm = un.Get(d, d.persistence_mode, "persistence_mode");
      if (pm == nullptr) continue;
      ++judged;
      if (*pm) ++on;
      const PolicyInForce want = ProductPolicy(ctx, "persistence", d);
      if (want.want == Policy::kAny || *pm == (want.want == Policy::kOn)) continue;
      Finding f = MakeFinding(
          "YS-GPU-006", GpuEntity(d),
          std::string("persistence mode is ") + (*pm ? "on" : "off") +
              (want.site ? ", the site wants it " : ", a " + want.basis + " runs with it ") +
              PolicyName(want.want));
      f.evidence = GpuIdentity(d);
      f.evidence.emplace_back("nvmlDeviceGetPersistenceMode", *pm ? "enabled" : "disabled");
      f.evidence.emplace_back(want.site ? "site.gpu.persistence" : "expected (" + want.basis + ")",
                              PolicyName(want.want));
      f.fix = want.want == Policy::kOn
                  ? "systemctl enable --now nvidia-persistenced (or nvidia-smi -i " +
                        std::to_string(d.index) + " -pm 1 until the next reboot)"
                  : "nvidia-smi -i " + std::to_string(d.index) + " -pm 0";
      f.reference =
          "NVIDIA driver persistence documentation (docs.nvidia.com/deploy/"
          "driver-persistence/); dcgmi diag software plugin";
      r.Add(std::move(f));
    }
    if (judged == 0) {
      CheckResult skip = SkipNoneJudged("persistence mode", un);
      un.NoteInto(skip);
      return skip;
    }
    un.NoteInto(r);
    r.Note("persistence_mode", std::to_string(on) + " of " + std::to_string(judged) + " GPUs on");
    if (r.findings.empty()) {
      r.summary = "persistence mode " +
                  std::string(on == judged ? "on"
                              : on == 0    ? "off"
                                           : "mixed") +
                  " for " + std::to_string(judged) + " GPUs" +
                  (un.empty() ? "" : " (some GPUs gave no answer)");
    }
    return r;
  }
};

}  // namespace

YS_REGISTER(GpuPersistenceCheck,
            {.id = "gpu.persistence",
             .summary = "Persistence mode on every GPU, against the site's policy.",
             .needs = {Need::kGpu},
             .codes = {{"YS-GPU-006", Severity::kWarn,
                        "persistence mode differs from site policy"}},
             .params = {{.name = "persistence",
                         .type = ParamType::kPolicy,
                         .default_value = Policy::kOn,
                         .meaning = "persistence mode (nvidia-persistenced) of every GPU (unset: "
                                    "on for data centre GPUs, any for workstation and GeForce "
                                    "cards)",
                         .site_table = "gpu"}}})

}  // namespace ys::checks
