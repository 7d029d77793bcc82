// gpu.power: the enforced power limit against the GPU's default. A GPU capped below its default
// (nvidia-smi -pl, a DCGM power policy, the BMC) loses clock under load, so a node capped this
// way cannot perform like its reference.
#include <string>

#include "checks/gpu/internal/gpu_common.h"

namespace ys::checks {
namespace {

std::string Watts(uint32_t mw) {
  // Whole watts unless the limit has a fraction (rare): "700 W", "612.5 W".
  if (mw % 1000 == 0) return std::to_string(mw / 1000) + " W";
  std::string frac = std::to_string(mw % 1000);
  frac.insert(0, 3 - frac.size(), '0');
  while (!frac.empty() && frac.back() == '0') frac.pop_back();
  return std::to_string(mw / 1000) + "." + frac + " W";
}

class GpuPowerCheck : public Check {
 public:
  CheckResult Run(const CheckContext& ctx) const override {
    CheckResult r;
    const gpu::GpuSnapshot* s = &ctx.gpus();
    double ratio = ctx.param<double>("min_power_limit_ratio");
    Unanswered un;
    int judged = 0;
    for (const auto& d : s->devices) {
      const uint32_t* enforced = un.Get(d, d.enforced_power_limit_mw, "enforced_power_limit_mw");
      const uint32_t* def = un.Get(d, d.default_power_limit_mw, "default_power_limit_mw");
      std::string usage = d.power_usage_mw.has() ? Watts(*d.power_usage_mw) : std::string("?");
      if (enforced == nullptr || def == nullptr) continue;
      ++judged;
      r.Note(GpuEntity(d),
             usage + " drawn, limit " + Watts(*enforced) + " (default " + Watts(*def) + ")");
      if (static_cast<double>(*enforced) >= static_cast<double>(*def) * ratio) continue;
      Finding f = MakeFinding(
          "YS-GPU-015", GpuEntity(d),
          "enforced power limit " + Watts(*enforced) + " is below the default " + Watts(*def));
      f.evidence = GpuIdentity(d);
      f.evidence.emplace_back("nvmlDeviceGetEnforcedPowerLimit", Watts(*enforced));
      f.evidence.emplace_back("nvmlDeviceGetPowerManagementDefaultLimit", Watts(*def));
      f.evidence.emplace_back("power_usage", usage);
      if (ratio != 1.0)
        f.evidence.emplace_back("site.gpu.min_power_limit_ratio", std::to_string(ratio));
      f.fix = "nvidia-smi -i " + std::to_string(d.index) + " -pl " + std::to_string(*def / 1000) +
              " (as root); if it comes back, find what sets it: a DCGM power policy (dcgmi config "
              "--get), a boot script, or the BMC's power capping";
      f.reference = std::string(kNvmlApiReference) +
                    ": nvmlDeviceGetEnforcedPowerLimit; dcgmi diag targeted_power";
      r.Add(std::move(f));
    }
    return FinishGpuUnit(std::move(r), judged, "power limits", un,
                         "power limits at their defaults on " + std::to_string(judged) + " GPUs");
  }
};

}  // namespace

YS_REGISTER(GpuPowerCheck,
            {.id = "gpu.power",
             .summary = "Enforced power limit of every GPU against its default limit.",
             .needs = {Need::kGpu},
             .codes = {{"YS-GPU-015", Severity::kFail, "enforced power limit below the default"}},
             .params = {{.name = "min_power_limit_ratio",
                         .type = ParamType::kDouble,
                         .default_value = 1.0,
                         .lo = 0,
                         .hi = 1,
                         .meaning = "lowest enforced power limit / default limit",
                         .site_table = "gpu"}}})

}  // namespace ys::checks
