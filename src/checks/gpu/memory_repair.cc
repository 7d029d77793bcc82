// gpu.memory_repair: how the GPU memory repairs itself and whether it is running out of repair.
// Page retirement (before Ampere): pending retirements wait for a reset; DCGM fails a GPU at 63
// retired pages. Row remapping (Ampere and later): a pending remap waits for a reset, a failed
// remap means the bank has no spare row left, and DCGM warns at 512 uncorrectable remaps.
#include <functional>
#include <string>

#include "checks/gpu/internal/gpu_common.h"

namespace ys::checks {
namespace {

constexpr uint32_t kRetiredPagesLimit = 63;         // DCGM: SBE + DBE retired pages
constexpr uint32_t kUncorrectableRemapLimit = 512;  // DCGM: uncorrectable row remaps

constexpr const char* kRepairReference =
    "DCGM health watch (memory) and dcgmi diag software plugin; NVIDIA dynamic page retirement "
    "and A100/H100 GPU memory error management (docs.nvidia.com/deploy/)";

using AddFinding = std::function<void(const char*, std::string, Evidence, std::string)>;

// Row remapping (A100 and later): a failed remap, a pending one, and uncorrectable remaps
// against DCGM's limit. Returns whether the GPU answered any of it.
bool RowRemapping(const gpu::GpuDevice& d, Unanswered& un, const AddFinding& finding,
                  const std::string& reset, CheckResult& r) {
  bool judged = false;
  const uint32_t* cor = un.Get(d, d.remapped_rows_correctable, "remapped_rows_correctable");
  const uint32_t* unc = un.Get(d, d.remapped_rows_uncorrectable, "remapped_rows_uncorrectable");
  const bool* pending = un.Get(d, d.remapped_rows_pending, "remapped_rows_pending");
  const bool* failure = un.Get(d, d.remapped_rows_failure, "remapped_rows_failure");
  if (cor || unc || pending || failure) {
    judged = true;
    auto show = [](const uint32_t* v) { return v ? std::to_string(*v) : std::string("?"); };
    auto yes = [](const bool* v) { return v ? (*v ? "yes" : "no") : "?"; };
    Evidence remap = {{"remapped_rows_correctable", show(cor)},
                      {"remapped_rows_uncorrectable", show(unc)},
                      {"remapped_rows_pending", yes(pending)},
                      {"remapped_rows_failure", yes(failure)}};
    r.Note(GpuEntity(d) + ".remapped_rows", show(cor) + " correctable, " + show(unc) +
                                                " uncorrectable, pending " + yes(pending) +
                                                ", failure " + yes(failure));
    if (failure && *failure) {
      finding("YS-GPU-033", "row remapping failed: a memory bank has no spare row left", remap,
              "drain the node and RMA the GPU (row-remap failure, XID 64)");
    }
    if (pending && *pending) {
      finding("YS-GPU-032", "a row remap is pending: it takes effect at the next GPU reset", remap,
              reset);
    }
    if (unc && *unc >= kUncorrectableRemapLimit) {
      finding("YS-GPU-034",
              std::to_string(*unc) + " rows remapped for uncorrectable errors, DCGM's limit is " +
                  std::to_string(kUncorrectableRemapLimit),
              remap, "plan an RMA of the GPU: its spare rows are running out");
    }
  }
  return judged;
}

class GpuMemoryRepairCheck : public Check {
 public:
  CheckResult Run(const CheckContext& ctx) const override {
    CheckResult r;
    const gpu::GpuSnapshot* s = &ctx.gpus();
    Unanswered un;
    int judged = 0;
    for (const auto& d : s->devices) {
      std::string i = std::to_string(d.index);
      auto finding = [&](const char* code, std::string msg, Evidence ev, std::string fix) {
        Finding f = MakeFinding(code, GpuEntity(d), std::move(msg));
        f.evidence = GpuIdentity(d);
        f.evidence.insert(f.evidence.end(), ev.begin(), ev.end());
        f.fix = std::move(fix);
        f.reference = kRepairReference;
        r.Add(std::move(f));
      };
      std::string reset = "drain the node and reset the GPU (nvidia-smi -r -i " + i +
                          ") or reboot, so that the repair takes effect";
      bool any = false;

      // Page retirement.
      const uint32_t* sbe = un.Get(d, d.retired_pages_sbe, "retired_pages_sbe");
      const uint32_t* dbe = un.Get(d, d.retired_pages_dbe, "retired_pages_dbe");
      const bool* ret_pending = un.Get(d, d.retired_pages_pending, "retired_pages_pending");
      if (sbe && dbe) {
        any = true;
        uint32_t total = *sbe + *dbe;
        r.Note(GpuEntity(d) + ".retired_pages",
               std::to_string(*sbe) + " SBE + " + std::to_string(*dbe) + " DBE" +
                   (ret_pending && *ret_pending ? ", pending" : ""));
        if (total >= kRetiredPagesLimit) {
          finding("YS-GPU-031",
                  std::to_string(total) + " retired pages (" + std::to_string(*sbe) + " SBE + " +
                      std::to_string(*dbe) + " DBE), DCGM's limit is " +
                      std::to_string(kRetiredPagesLimit),
                  {{"retired_pages_sbe", std::to_string(*sbe)},
                   {"retired_pages_dbe", std::to_string(*dbe)}},
                  "drain the node and RMA the GPU: it has retired as many pages as DCGM allows");
        }
      }
      if (ret_pending) {
        any = true;
        if (*ret_pending) {
          finding("YS-GPU-030", "retired pages are pending: they are retired at the next reset",
                  {{"retired_pages_pending", "yes"}}, reset);
        }
      }

      if (RowRemapping(d, un, finding, reset, r)) any = true;
      if (any) ++judged;
    }
    return FinishGpuUnit(
        std::move(r), judged, "page retirement and row remapping", un,
        "no pending or failed memory repair on " + std::to_string(judged) + " GPUs");
  }
};

}  // namespace

YS_REGISTER(
    GpuMemoryRepairCheck,
    {.id = "gpu.memory_repair",
     .summary = "Retired pages and remapped rows: pending (a reset activates them), "
                "failed, and at DCGM's limits.",
     .needs = {Need::kGpu},
     .codes = {
         {"YS-GPU-030", Severity::kWarn, "page retirement pending (a reset retires the pages)"},
         {"YS-GPU-031", Severity::kFail, "retired pages at DCGM's limit (SBE + DBE >= 63)"},
         {"YS-GPU-032", Severity::kWarn, "row remapping pending (a GPU reset activates it)"},
         {"YS-GPU-033", Severity::kFail, "row remapping failed"},
         {"YS-GPU-034", Severity::kWarn, "uncorrectable row remaps at DCGM's limit (>= 512)"}}})

}  // namespace ys::checks
