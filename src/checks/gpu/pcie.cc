// gpu.pcie: the GPU's PCIe link as NVML sees it. Width below the maximum is a fault at any time
// (a bad slot, riser or retimer); generation below the maximum is meaningful only under load,
// because an idle GPU trains its link down to save power - at idle it is noted, not flagged.
// The PCIe replay counter counts retransmitted packets since the driver loaded.
#include <string>

#include "checks/gpu/internal/gpu_common.h"

namespace ys::checks {
namespace {

constexpr const char* kPcieReference =
    "NVML nvmlDeviceGetCurrPcieLinkWidth/Generation, nvmlDeviceGetPcieReplayCounter; dcgmi diag "
    "pcie plugin (min generation and width per SKU, max_pcie_replays)";

class GpuPcieCheck : public Check {
 public:
  CheckResult Run(const CheckContext& ctx) const override {
    CheckResult r;
    const gpu::GpuSnapshot* s = &ctx.gpus();
    int max_replays = ctx.param<int>("max_pcie_replays");
    Unanswered un;
    int judged = 0;
    for (const auto& d : s->devices) {
      std::string i = std::to_string(d.index);
      const uint32_t* gen = un.Get(d, d.pcie_gen_current, "pcie_gen_current");
      const uint32_t* gen_max = un.Get(d, d.pcie_gen_max, "pcie_gen_max");
      const uint32_t* width = un.Get(d, d.pcie_width_current, "pcie_width_current");
      const uint32_t* width_max = un.Get(d, d.pcie_width_max, "pcie_width_max");
      const uint64_t* replays = un.Get(d, d.pcie_replay_counter, "pcie_replay_counter");
      if (!(gen && gen_max) && !(width && width_max) && !replays) continue;
      ++judged;
      // Idle: NVML says so (GPU idle clock-event reason), or the GPU is in a low P-state.
      bool idle = (d.clocks_event_reasons.has() &&
                   (*d.clocks_event_reasons & gpu::kClocksEventGpuIdle) != 0) ||
                  (d.performance_state.has() && *d.performance_state >= 8);
      auto show = [](const uint32_t* v) { return v ? std::to_string(*v) : std::string("?"); };
      std::string link = "Gen" + show(gen) + " x" + show(width) + " (max Gen" + show(gen_max) +
                         " x" + show(width_max) + ")";
      r.Note(GpuEntity(d), link + (replays ? ", " + std::to_string(*replays) + " replays" : "") +
                               (idle ? ", idle" : ""));
      auto finding = [&](const char* code, std::string msg, std::string fix) {
        Finding f = MakeFinding(code, GpuEntity(d), std::move(msg));
        f.evidence = GpuIdentity(d);
        f.evidence.emplace_back("link", link);
        if (replays)
          f.evidence.emplace_back("nvmlDeviceGetPcieReplayCounter", std::to_string(*replays));
        f.evidence.emplace_back("idle", idle ? "yes" : "no");
        f.fix = std::move(fix);
        f.reference = kPcieReference;
        r.Add(std::move(f));
      };
      if (width && width_max && *width < *width_max) {
        finding(
            "YS-GPU-055",
            "PCIe link runs at x" + show(width) + ", the GPU and slot support x" + show(width_max),
            "the link trained narrow: reseat the GPU or its riser/retimer cable, check the BIOS "
            "slot bifurcation, confirm with lspci -vv -s " +
                d.pci_bus_id + " (LnkSta vs LnkCap); RMA the board if it persists");
      }
      if (gen && gen_max && *gen < *gen_max) {
        if (idle) {
          r.Note(
              GpuEntity(d) + ".pcie_generation",
              "Gen" + show(gen) + " of Gen" + show(gen_max) +
                  " while idle: the link trains down when idle; only a reading under load counts");
        } else {
          finding("YS-GPU-056",
                  "PCIe link runs at Gen" + show(gen) + " under load, the maximum is Gen" +
                      show(gen_max) +
                      " (a generation read at idle is not a fault; this GPU is busy)",
                  "check the BIOS PCIe speed setting of the slot, reseat the GPU or riser, and the "
                  "kernel log for 'limited by' messages; nvidia-smi -q -i " +
                      i + " (its GPU Link Info section)");
        }
      }
      if (replays && *replays > static_cast<uint64_t>(max_replays)) {
        finding("YS-GPU-057",
                std::to_string(*replays) + " PCIe replays since the driver loaded (threshold " +
                    std::to_string(max_replays) + ")",
                "check the AER counters of the GPU and its upstream ports (the pcie.links check), "
                "reseat the GPU or riser; run dcgmi diag -r 2 -i " +
                    i + " and watch the counter");
      }
    }
    return FinishGpuUnit(std::move(r), judged, "PCIe link state", un,
                         "PCIe links at full width on " + std::to_string(judged) + " GPUs");
  }
};

}  // namespace

YS_REGISTER(
    GpuPcieCheck,
    {.id = "gpu.pcie",
     .summary = "GPU PCIe width and generation against the maximum (generation only "
                "under load) and the PCIe replay counter.",
     .needs = {Need::kGpu},
     .codes = {{"YS-GPU-055", Severity::kFail, "GPU PCIe link width below the maximum"},
               {"YS-GPU-056", Severity::kWarn, "GPU PCIe generation below the maximum under load"},
               {"YS-GPU-057", Severity::kWarn, "GPU PCIe replays above threshold"}},
     .params = {
         {.name = "max_pcie_replays",
          .type = ParamType::kInt,
          .default_value = 80,
          .lo = 0,
          .hi = 1000000000,
          .meaning = "PCIe replays accepted since the driver loaded (DCGM pcie test: 80 per test)",
          .site_table = "gpu"}}})

}  // namespace ys::checks
