// gpu.thermal: the GPU temperature against the GPU's own thresholds (NVML's slowdown, shutdown
// and maximum operating temperatures), with the site's margin below slowdown.
#include <algorithm>
#include <string>

#include "checks/gpu/internal/gpu_common.h"

namespace ys::checks {
namespace {

std::string C(uint32_t v) { return std::to_string(v) + " C"; }

class GpuThermalCheck : public Check {
 public:
  CheckResult Run(const CheckContext& ctx) const override {
    CheckResult r;
    const gpu::GpuSnapshot* s = &ctx.gpus();
    int margin = ctx.param<int>("temperature_margin_c");
    Unanswered un;
    int judged = 0;
    uint32_t hottest = 0;
    for (const auto& d : s->devices) {
      const uint32_t* t = un.Get(d, d.temperature_c, "temperature_c");
      const uint32_t* slow = un.Get(d, d.slowdown_temperature_c, "slowdown_temperature_c");
      const uint32_t* shut = un.Get(d, d.shutdown_temperature_c, "shutdown_temperature_c");
      const uint32_t* maxop =
          un.Get(d, d.max_operating_temperature_c, "max_operating_temperature_c");
      if (t == nullptr) continue;
      if (slow == nullptr && shut == nullptr && maxop == nullptr) continue;  // nothing to compare
      ++judged;
      hottest = std::max(hottest, *t);
      std::string limits =
          (slow ? "slowdown " + C(*slow) : std::string()) +
          (maxop ? std::string(slow ? ", " : "") + "max operating " + C(*maxop) : "") +
          (shut ? ", shutdown " + C(*shut) : "");
      r.Note(GpuEntity(d), C(*t) + " (" + limits + ")");

      auto finding = [&](const char* code, std::string msg) {
        Finding f = MakeFinding(code, GpuEntity(d), std::move(msg));
        f.evidence = GpuIdentity(d);
        f.evidence.emplace_back("temperature_c", C(*t));
        if (slow) f.evidence.emplace_back("slowdown_temperature_c", C(*slow));
        if (maxop) f.evidence.emplace_back("max_operating_temperature_c", C(*maxop));
        if (shut) f.evidence.emplace_back("shutdown_temperature_c", C(*shut));
        f.fix =
            "check the GPU's cooling: fans and airflow (or the liquid loop's flow and inlet "
            "temperature), blanking panels, the data-centre inlet; nvidia-smi -q -d "
            "TEMPERATURE,PERFORMANCE -i " +
            std::to_string(d.index) + "; compare with the GPU's neighbours on the same baseboard";
        f.reference = std::string(kNvmlApiReference) +
                      ": nvmlDeviceGetTemperatureThreshold; DCGM health watch (thermal)";
        r.Add(std::move(f));
      };
      if (shut && *t >= *shut) {
        finding("YS-GPU-020", C(*t) + " is at or above the shutdown threshold " + C(*shut));
      } else if (slow && *t >= *slow) {
        finding("YS-GPU-020", C(*t) + " is at or above the slowdown threshold " + C(*slow) +
                                  ": clocks are being reduced");
      } else if (maxop && *t > *maxop) {
        finding("YS-GPU-021", C(*t) + " is above the maximum operating temperature " + C(*maxop));
      } else if (slow && static_cast<int>(*t) + margin >= static_cast<int>(*slow)) {
        finding("YS-GPU-021", C(*t) + " is within " + std::to_string(margin) +
                                  " C of the slowdown threshold " + C(*slow));
      }
    }
    if (judged == 0) {
      CheckResult skip = SkipNoneJudged("temperatures and thresholds", un);
      un.NoteInto(skip);
      return skip;
    }
    un.NoteInto(r);
    if (r.findings.empty()) {
      r.summary =
          std::to_string(judged) + " GPUs below their thresholds (hottest " + C(hottest) + ")";
    }
    return r;
  }
};

}  // namespace

YS_REGISTER(GpuThermalCheck,
            {.id = "gpu.thermal",
             .summary = "GPU temperature against the GPU's own slowdown, shutdown and "
                        "maximum operating thresholds, with a margin.",
             .needs = {Need::kGpu},
             .codes = {{"YS-GPU-020", Severity::kFail,
                        "temperature at or above the GPU's slowdown threshold"},
                       {"YS-GPU-021", Severity::kWarn,
                        "temperature near the slowdown threshold or above max operating"}},
             .params = {
                 {.name = "temperature_margin_c",
                  .type = ParamType::kInt,
                  .default_value = 5,
                  .lo = 0,
                  .hi = 50,
                  .meaning = "warn this many degrees C below the GPU's own slowdown threshold",
                  .site_table = "gpu"}}})

}  // namespace ys::checks
