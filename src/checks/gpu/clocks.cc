// gpu.clocks: the current clocks and why NVML says they are held down (clock-event reasons,
// formerly "throttle reasons"). Hardware slowdown, thermal slowdown, power brake and the software
// thermal and power caps are faults on a node about to be validated; idle, application-clock,
// sync-boost and display settings are not. A fault reason set while the SM clock is at its
// maximum holds nothing down at that moment: a warning to sample under load, never a failure,
// and never a message saying the clock is held down ("held down" needs the clock read below its
// maximum). The SW power cap at the enforced limit is the cap doing its work under full load (a
// note); far below the limit the flag is reported as the driver sets it (JudgeSwPowerCap).
#include <array>
#include <cstdio>
#include <optional>
#include <string>

#include "checks/gpu/internal/gpu_common.h"

namespace ys::checks {
namespace {

struct Reason {
  uint64_t bit;
  const char* name;
  const char* code;  // nullptr: not a fault
  const char* fix;
};

constexpr const char* kCoolingFix =
    "check the GPU's cooling (fans, airflow, inlet temperature, liquid loop) and the BMC's "
    "thermal events (ipmitool sel list); nvidia-smi -q -d PERFORMANCE,TEMPERATURE -i ";

// NVML nvmlClocksEventReason* bits. The specific hardware causes come first: when HW slowdown
// is set together with HW thermal or power brake, the specific one names the cause.
constexpr std::array kReasons = {
    Reason{gpu::kClocksEventHwThermalSlowdown, "HW thermal slowdown", "YS-GPU-011", kCoolingFix},
    Reason{gpu::kClocksEventHwPowerBrakeSlowdown, "HW power brake slowdown", "YS-GPU-012",
           "the system asserted the external power brake: check PSU redundancy and the BMC's "
           "power events (ipmitool sel list); nvidia-smi -q -d PERFORMANCE,POWER -i "},
    Reason{gpu::kClocksEventHwSlowdown, "HW slowdown", "YS-GPU-010",
           "hardware slowdown (temperature, power brake or over-current protection): check "
           "cooling, PSUs and the BMC event log; nvidia-smi -q -d PERFORMANCE -i "},
    Reason{gpu::kClocksEventSwThermalSlowdown, "SW thermal slowdown", "YS-GPU-013", kCoolingFix},
    Reason{gpu::kClocksEventSwPowerCap, "SW power cap", "YS-GPU-014", nullptr},  // JudgeSwPowerCap
    Reason{gpu::kClocksEventGpuIdle, "GPU idle", nullptr, nullptr},
    Reason{gpu::kClocksEventApplicationsClocksSetting, "applications clocks setting", nullptr,
           nullptr},
    Reason{gpu::kClocksEventSyncBoost, "sync boost", nullptr, nullptr},
    Reason{gpu::kClocksEventDisplayClockSetting, "display clock setting", nullptr, nullptr},
};

std::string Hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

// "HW slowdown, HW thermal slowdown" (and unknown bits in hex); "none" for 0.
std::string ReasonNames(uint64_t mask) {
  std::string out;
  uint64_t known = 0;
  for (const auto& reason : kReasons) {
    known |= reason.bit;
    if (mask & reason.bit) out += (out.empty() ? "" : ", ") + std::string(reason.name);
  }
  if (mask & ~known) out += (out.empty() ? "" : ", ") + Hex(mask & ~known);
  return out.empty() ? "none" : out;
}

// Evidence every finding of one GPU carries: the reasons, the clocks, temperature and power.
Evidence ClockEvidence(const gpu::GpuDevice& d, uint64_t mask, const uint32_t* sm,
                       const uint32_t* max_sm) {
  Evidence e = GpuIdentity(d);
  e.emplace_back("nvmlDeviceGetCurrentClocksEventReasons",
                 Hex(mask) + " (" + ReasonNames(mask) + ")");
  if (sm) e.emplace_back("sm_clock_mhz", std::to_string(*sm));
  if (max_sm) e.emplace_back("max_sm_clock_mhz", std::to_string(*max_sm));
  if (d.temperature_c.has()) e.emplace_back("temperature_c", std::to_string(*d.temperature_c));
  if (d.power_usage_mw.has() && d.enforced_power_limit_mw.has()) {
    e.emplace_back("power", std::to_string(*d.power_usage_mw / 1000) + " W of " +
                                std::to_string(*d.enforced_power_limit_mw / 1000) + " W enforced");
  }
  return e;
}

constexpr const char* kReasonReference =
    ": nvmlDeviceGetCurrentClocksEventReasons; DCGM health watch (thermal, power)";

// YS-GPU-016: fault reasons set while the SM clock is at its maximum. The bits say a limiter is
// engaged, the clock says it takes nothing now (an idle GPU at max clock, or a reading taken
// between two samples): a warning to look under load, not a slowed GPU.
Finding NotReduced(const gpu::GpuDevice& d, uint64_t mask, const std::string& names,
                   const std::string& clocks, const uint32_t* sm, const uint32_t* max_sm) {
  std::string msg = names +
                    (names.find(", ") == std::string::npos ? " reason bit" : " reason bits") +
                    " set, clock not reduced (" + clocks + "): sample under load";
  if (d.temperature_c.has()) msg += ", " + std::to_string(*d.temperature_c) + " C";
  Finding f = MakeFinding("YS-GPU-016", GpuEntity(d), msg);
  f.evidence = ClockEvidence(d, mask, sm, max_sm);
  f.fix =
      "the limiter does not slow this GPU now: run a load on it (dcgmi diag -r 2) and sample "
      "nvidia-smi -q -d PERFORMANCE,CLOCK -i " +
      std::to_string(d.index) +
      " during it; the SM clock below its maximum with the bit set is the fault";
  f.reference = std::string(kNvmlApiReference) + kReasonReference;
  return f;
}

// The power drawn as a share of the enforced limit, when both are read.
std::optional<double> PowerShare(const gpu::GpuDevice& d) {
  if (!d.power_usage_mw.has() || !d.enforced_power_limit_mw.has() ||
      *d.enforced_power_limit_mw == 0) {
    return std::nullopt;
  }
  return static_cast<double>(*d.power_usage_mw) / *d.enforced_power_limit_mw;
}

// At this share of its enforced limit a GPU is at the limit: the cap is what binds (a GPU under
// full load sits within a few watts of it, 445 of 450 W).
constexpr double kAtLimitShare = 0.9;

std::string Watts(const gpu::GpuDevice& d) {
  return std::to_string(*d.power_usage_mw / 1000) + " W of " +
         std::to_string(*d.enforced_power_limit_mw / 1000) + " W enforced";
}

// The SW power cap bit with the SM clock below its maximum (or unread). At the enforced limit
// that is the cap doing its work under load: a note, unless the limit is below the default
// (YS-GPU-014: the lowered limit holds the clock). Far below the limit the power does not explain
// the bit: it is reported as the driver sets it, never as the power limit holding the clock
// (YS-GPU-017).
void JudgeSwPowerCap(const gpu::GpuDevice& d, uint64_t mask, const uint32_t* sm,
                     const uint32_t* max_sm, const std::string& clocks, CheckResult& r) {
  auto share = PowerShare(d);
  const bool lowered = d.default_power_limit_mw.has() && d.enforced_power_limit_mw.has() &&
                       *d.enforced_power_limit_mw < *d.default_power_limit_mw;
  const bool idle = (mask & gpu::kClocksEventGpuIdle) || (sm && *sm == 0) ||
                    (d.performance_state.has() && *d.performance_state >= 8);
  std::string msg;
  const char* code = "YS-GPU-017";
  if (share && *share >= kAtLimitShare && sm && max_sm) {
    if (!lowered) {
      r.Note(GpuEntity(d), "at its enforced power limit (" + Watts(d) +
                               "): the SW power cap holds the SM clock at " + clocks +
                               ", as under full load");
      return;
    }
    code = "YS-GPU-014";
    msg = "clocks held down by SW power cap (" + clocks + ") at " + Watts(d) +
          ", below the default limit of " + std::to_string(*d.default_power_limit_mw / 1000) + " W";
  } else if (share) {
    msg = "SW power cap reason set while drawing " + Watts(d) + ", far below the limit (" + clocks +
          (idle ? ", idle clocks" : "") +
          "): the driver reports the flag, the power draw does not hold the clock";
  } else {
    msg = "SW power cap reason set (" + clocks +
          "), power draw or limit not reported: whether the limit binds is unknown";
  }
  Finding f = MakeFinding(code, GpuEntity(d), msg);
  f.evidence = ClockEvidence(d, mask, sm, max_sm);
  f.fix = std::string(code == std::string("YS-GPU-014")
                          ? "restore the default power limit (nvidia-smi -i " +
                                std::to_string(d.index) +
                                " -pl <default W>) unless the site "
                                "lowered it on purpose; "
                          : "sample under load: the bit matters when the GPU draws its limit and "
                            "its SM clock stays below the maximum; ") +
          "nvidia-smi -q -d POWER,PERFORMANCE -i " + std::to_string(d.index);
  f.reference = std::string(kNvmlApiReference) + kReasonReference;
  r.Add(std::move(f));
}

void JudgeReasons(const gpu::GpuDevice& d, uint64_t mask, const uint32_t* sm,
                  const uint32_t* max_sm, const std::string& clocks, CheckResult& r) {
  const bool hw_specific =
      (mask & (gpu::kClocksEventHwThermalSlowdown | gpu::kClocksEventHwPowerBrakeSlowdown)) != 0;
  const bool at_max = sm && max_sm && *sm >= *max_sm;
  const bool below = sm && max_sm && *sm < *max_sm;  // "held down" needs this
  std::string unreduced;  // names of the fault reasons set on a GPU at its maximum clock
  for (const auto& reason : kReasons) {
    if (reason.code == nullptr || (mask & reason.bit) == 0) continue;
    if (at_max) {
      unreduced += (unreduced.empty() ? "" : ", ") + std::string(reason.name);
      continue;
    }
    if (reason.bit == gpu::kClocksEventHwSlowdown && hw_specific) continue;
    if (reason.bit == gpu::kClocksEventSwPowerCap) {
      JudgeSwPowerCap(d, mask, sm, max_sm, clocks, r);
      continue;
    }
    std::string msg = below
                          ? std::string("clocks held down by ") + reason.name + " (" + clocks + ")"
                          : std::string(reason.name) + " reason set (" + clocks +
                                ", SM clock or its maximum not reported)";
    if (reason.bit == gpu::kClocksEventHwThermalSlowdown && (mask & gpu::kClocksEventHwSlowdown)) {
      msg += "; HW slowdown active";
    }
    if (d.temperature_c.has()) msg += ", " + std::to_string(*d.temperature_c) + " C";
    Finding f = MakeFinding(reason.code, GpuEntity(d), msg);
    f.evidence = ClockEvidence(d, mask, sm, max_sm);
    f.fix = reason.fix + std::to_string(d.index);
    f.reference = std::string(kNvmlApiReference) + kReasonReference;
    r.Add(std::move(f));
  }
  if (!unreduced.empty()) r.Add(NotReduced(d, mask, unreduced, clocks, sm, max_sm));
}

class GpuClocksCheck : public Check {
 public:
  CheckResult Run(const CheckContext& ctx) const override {
    CheckResult r;
    const gpu::GpuSnapshot* s = &ctx.gpus();
    Unanswered un;
    int judged = 0;
    for (const auto& d : s->devices) {
      const uint32_t* sm = un.Get(d, d.sm_clock_mhz, "sm_clock_mhz");
      const uint32_t* max_sm = un.Get(d, d.max_sm_clock_mhz, "max_sm_clock_mhz");
      const uint64_t* mask = un.Get(d, d.clocks_event_reasons, "clocks_event_reasons");
      std::string clocks = (sm ? std::to_string(*sm) : std::string("?")) + "/" +
                           (max_sm ? std::to_string(*max_sm) : std::string("?")) + " MHz SM";
      if (mask == nullptr) {
        if (sm) r.Note(GpuEntity(d), clocks);
        continue;
      }
      ++judged;
      r.Note(GpuEntity(d), clocks + ", reasons: " + ReasonNames(*mask));
      JudgeReasons(d, *mask, sm, max_sm, clocks, r);
    }
    return FinishGpuUnit(std::move(r), judged, "clock-event reasons", un,
                         "no clock slowdown on " + std::to_string(judged) + " GPUs");
  }
};

}  // namespace

YS_REGISTER(GpuClocksCheck,
            {.id = "gpu.clocks",
             .summary = "Current clocks and clock-event reasons by name: HW slowdown, HW "
                        "thermal, power brake, SW thermal and SW power cap.",
             .needs = {Need::kGpu},
             .codes = {{"YS-GPU-010", Severity::kFail, "clocks held down: HW slowdown"},
                       {"YS-GPU-011", Severity::kFail, "clocks held down: HW thermal slowdown"},
                       {"YS-GPU-012", Severity::kFail, "clocks held down: HW power brake slowdown"},
                       {"YS-GPU-013", Severity::kWarn, "clocks held down: SW thermal slowdown"},
                       {"YS-GPU-014", Severity::kWarn, "clocks held down: SW power cap"},
                       {"YS-GPU-017", Severity::kWarn,
                        "SW power cap reason set with the power draw far below the limit (or "
                        "unread)"},
                       {"YS-GPU-016", Severity::kWarn,
                        "clock-event reason set while the SM clock is at its maximum (sample "
                        "under load)"}}})

}  // namespace ys::checks
