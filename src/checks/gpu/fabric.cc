// gpu.fabric: the GPU's registration with the NVLink fabric (NVSwitch systems and NVL72 racks,
// Hopper and later). Until the fabric manager has finished ("completed") with "success", CUDA
// cannot use the GPU's NVLink peers.
#include <string>

#include "checks/gpu/internal/gpu_common.h"

namespace ys::checks {
namespace {

constexpr const char* kFabricFix =
    "systemctl status nvidia-fabricmanager (and /var/log/fabricmanager.log); restart it with "
    "systemctl restart nvidia-fabricmanager; on NVL72 racks also check the NVLink switch trays "
    "and nvidia-imex; nvidia-smi -q -i ";

class GpuFabricCheck : public Check {
 public:
  CheckResult Run(const CheckContext& ctx) const override {
    CheckResult r;
    const gpu::GpuSnapshot* s = &ctx.gpus();
    Unanswered un;
    int judged = 0, unsupported = 0;
    for (const auto& d : s->devices) {
      const gpu::FabricInfo* fi = un.Get(d, d.fabric, "fabric");
      if (fi == nullptr) continue;
      if (fi->state == "not supported") {
        ++unsupported;
        continue;
      }
      ++judged;
      r.Note(GpuEntity(d), "fabric " + fi->state + ", " + fi->status +
                               (fi->cluster_uuid.empty() ? "" : ", cluster " + fi->cluster_uuid) +
                               ", clique " + std::to_string(fi->clique_id));
      auto finding = [&](const char* code, std::string msg) {
        Finding f = MakeFinding(code, GpuEntity(d), std::move(msg));
        f.evidence = GpuIdentity(d);
        f.evidence.emplace_back("nvmlDeviceGetGpuFabricInfoV state", fi->state);
        f.evidence.emplace_back("nvmlDeviceGetGpuFabricInfoV status", fi->status);
        f.evidence.emplace_back("clique_id", std::to_string(fi->clique_id));
        f.fix = kFabricFix + std::to_string(d.index);
        f.reference =
            "NVIDIA Fabric Manager User Guide; NVML nvmlDeviceGetGpuFabricInfoV; dcgmi "
            "diag software plugin (fabric manager)";
        r.Add(std::move(f));
      };
      if (fi->state != "completed") {
        finding("YS-GPU-050", "NVLink fabric registration is \"" + fi->state + "\", not completed");
      } else if (fi->status != "success") {
        finding("YS-GPU-051", "NVLink fabric registration completed with \"" + fi->status + "\"");
      }
    }
    if (judged == 0) {
      CheckResult skip = unsupported > 0 ? CheckResult::Skip(
                                               "no NVLink fabric: NVML reports fabric state \"not "
                                               "supported\" (no NVSwitch fabric on these GPUs)")
                                         : SkipNoneJudged("NVLink fabric state", un);
      un.NoteInto(skip);
      return skip;
    }
    un.NoteInto(r);
    if (unsupported) r.Note("fabric not supported", std::to_string(unsupported) + " GPUs");
    if (r.findings.empty()) {
      r.summary =
          "fabric registration completed with success on " + std::to_string(judged) + " GPUs";
    }
    return r;
  }
};

}  // namespace

YS_REGISTER(GpuFabricCheck,
            {.id = "gpu.fabric",
             .summary = "NVLink fabric (NVSwitch, NVL72) registration state and status of "
                        "every GPU.",
             .needs = {Need::kGpu},
             .codes = {{"YS-GPU-050", Severity::kFail, "NVLink fabric registration not completed"},
                       {"YS-GPU-051", Severity::kFail, "NVLink fabric registration failed"}}})

}  // namespace ys::checks
