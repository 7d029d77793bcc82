// gpu.ecc: ECC mode against the site's policy (by default: on for a data centre GPU, no
// expectation for a workstation or GeForce card, see ProductPolicy), volatile (since the last
// driver load or reset) uncorrected errors, and the aggregate (lifetime) counts for the record.
#include <string>

#include "checks/gpu/internal/gpu_common.h"

namespace ys::checks {
namespace {

std::string Count(const gpu::Field<uint64_t>& f) {
  return f.has() ? std::to_string(*f) : std::string("?");
}

class GpuEccCheck : public Check {
 public:
  CheckResult Run(const CheckContext& ctx) const override {
    CheckResult r;
    const gpu::GpuSnapshot* s = &ctx.gpus();
    Unanswered un;
    int judged = 0;
    for (const auto& d : s->devices) {
      const bool* on = un.Get(d, d.ecc_enabled, "ecc_enabled");
      const uint64_t* vol_unc = un.Get(d, d.ecc_volatile_uncorrected, "ecc_volatile_uncorrected");
      if (on == nullptr && vol_unc == nullptr) continue;
      ++judged;
      const PolicyInForce want = ProductPolicy(ctx, "ecc", d);
      r.Note(GpuEntity(d),
             std::string("ECC ") + (on ? (*on ? "on" : "off") : "?") + "; volatile " +
                 Count(d.ecc_volatile_corrected) + " corrected, " +
                 Count(d.ecc_volatile_uncorrected) + " uncorrected; aggregate " +
                 Count(d.ecc_aggregate_corrected) + " corrected, " +
                 Count(d.ecc_aggregate_uncorrected) + " uncorrected" +
                 (want.want == Policy::kAny && !want.site ? "; " + want.basis : std::string()));
      std::string i = std::to_string(d.index);
      if (on && want.want != Policy::kAny && *on != (want.want == Policy::kOn)) {
        Finding f = MakeFinding(
            "YS-GPU-025", GpuEntity(d),
            std::string("ECC is ") + (*on ? "enabled" : "disabled") +
                (want.site ? ", the site wants it " : ", a " + want.basis + " runs with it ") +
                PolicyName(want.want));
        f.evidence = GpuIdentity(d);
        f.evidence.emplace_back("nvmlDeviceGetEccMode (current)", *on ? "enabled" : "disabled");
        f.evidence.emplace_back(want.site ? "site.gpu.ecc" : "expected (" + want.basis + ")",
                                PolicyName(want.want));
        f.fix = "nvidia-smi -i " + i + " -e " + (want.want == Policy::kOn ? "1" : "0") +
                ", then reset the GPU (nvidia-smi -r -i " + i +
                ") or reboot: the new mode is "
                "pending until then";
        f.reference = std::string(kNvmlApiReference) + ": nvmlDeviceGetEccMode";
        r.Add(std::move(f));
      }
      if (vol_unc && *vol_unc > 0) {
        Finding f = MakeFinding(
            "YS-GPU-026", GpuEntity(d),
            std::to_string(*vol_unc) + " uncorrected ECC errors since the driver loaded");
        f.evidence = GpuIdentity(d);
        f.evidence.emplace_back("ecc_volatile_uncorrected", std::to_string(*vol_unc));
        f.evidence.emplace_back("ecc_volatile_corrected", Count(d.ecc_volatile_corrected));
        f.evidence.emplace_back("ecc_aggregate_uncorrected", Count(d.ecc_aggregate_uncorrected));
        if (d.remapped_rows_pending.has()) {
          f.evidence.emplace_back("remapped_rows_pending", *d.remapped_rows_pending ? "yes" : "no");
        }
        f.fix = "drain the node; check nvidia-smi -q -d ECC,ROW_REMAPPER -i " + i +
                " and the kernel log for XID 48/94/95; reset the GPU (nvidia-smi -r -i " + i +
                ") or reboot; run dcgmi diag -r 3; RMA if errors return";
        f.reference = std::string(kDcgmHealthReference) + " (memory: volatile DBE > 0 fails)";
        r.Add(std::move(f));
      }
    }
    return FinishGpuUnit(std::move(r), judged, "ECC mode and counts", un,
                         "ECC as the site wants it and no uncorrected errors on " +
                             std::to_string(judged) + " GPUs");
  }
};

}  // namespace

YS_REGISTER(GpuEccCheck,
            {.id = "gpu.ecc",
             .summary = "ECC mode, volatile uncorrected errors, and the aggregate counts.",
             .needs = {Need::kGpu},
             .codes = {{"YS-GPU-025", Severity::kFail, "ECC mode differs from site policy"},
                       {"YS-GPU-026", Severity::kFail, "volatile uncorrected ECC errors"}},
             .params = {{.name = "ecc",
                         .type = ParamType::kPolicy,
                         .default_value = Policy::kOn,
                         .meaning = "ECC mode of every GPU (unset: on for data centre GPUs, "
                                    "any for workstation and GeForce cards)",
                         .site_table = "gpu"}}})

}  // namespace ys::checks
