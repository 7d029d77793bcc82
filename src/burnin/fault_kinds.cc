#include "burnin/fault_kinds.h"

#include <array>

#include "core/finding_codes.h"

namespace ys::burnin {

namespace {

constexpr Severity W = Severity::kWarn;
constexpr Severity F = Severity::kFail;

// The codes of the fault kinds below, with their default severity (a fault found by a counter
// carries the counter's).
YS_FINDING_CODES(
    "burnin",
    {{"YS-BURN-001", Severity::kFail,
      "burn-in result differs from the reference output (miscompare)"},
     {"YS-BURN-002", Severity::kWarn, "temperature left the steady-state band during burn-in"},
     {"YS-BURN-003", Severity::kFail,
      "clocks throttled (thermal or hardware slowdown) during burn-in"},
     {"YS-BURN-004", Severity::kFail, "new ECC errors or row-remap failure during burn-in"},
     {"YS-BURN-005", Severity::kFail, "new XID reported by the NVIDIA driver during burn-in"},
     {"YS-BURN-006", Severity::kWarn, "new NVLink or PCIe link errors during burn-in"},
     {"YS-BURN-007", Severity::kWarn, "performance drifted below the burn-in's first hour"},
     {"YS-BURN-008", Severity::kFail, "burn-in load could not run"},
     {"YS-BURN-009", Severity::kFail, "node rebooted during burn-in"},
     {"YS-BURN-010", Severity::kWarn,
      "new host memory errors (EDAC, machine check) during burn-in"}})

constexpr std::array kKinds = {
    FaultKindInfo{
        "miscompare", "YS-BURN-001",
        "take the part out of service and rerun the burn-in; a repeat on the same GPU or core "
        "is silent data corruption: RMA it (run `dcgmi diag -r 3` on a GPU)"},
    FaultKindInfo{
        "temperature", "YS-BURN-002",
        "check the cooling of the part and its neighbours (fans, inlet temperature, airflow, "
        "liquid loop); `nvidia-smi -q -d TEMPERATURE,PERFORMANCE` on a GPU"},
    FaultKindInfo{
        "throttle", "YS-BURN-003",
        "find the clocks event reason (`nvidia-smi -q -d PERFORMANCE`, "
        "/sys/devices/system/cpu/cpu*/thermal_throttle): fix the cooling or the power delivery"},
    FaultKindInfo{
        "ecc", "YS-BURN-004",
        "`nvidia-smi -q -d ECC,ROW_REMAPPER`; reset the GPU to apply pending remaps; a remap "
        "failure or repeated uncorrectable errors: RMA"},
    FaultKindInfo{
        "xid", "YS-BURN-005",
        "look the XID up in NVIDIA's XID catalogue (the evidence quotes the kernel log line); "
        "79, 48, 74, 94, 95 need the GPU reset or the node drained"},
    FaultKindInfo{
        "link", "YS-BURN-006",
        "`nvidia-smi nvlink -e` and `nvidia-smi nvlink -s`; reseat or replace the baseboard "
        "or cable if errors keep rising"},
    FaultKindInfo{"pcie", "YS-BURN-006",
                  "`lspci -vvv` AER status of the device and its bridge; reseat the card or riser, "
                  "check the slot's link speed and width"},
    FaultKindInfo{
        "perf_drift", "YS-BURN-007",
        "compare the telemetry of the drifting windows (clocks, power, temperature) with the "
        "first hour; look for throttling, a noisy neighbour or a failing fan"},
    FaultKindInfo{
        "load_error", "YS-BURN-008",
        "read the error in the evidence; rerun the load alone (`yardstick bench --filter ...`)"},
    FaultKindInfo{
        "reboot", "YS-BURN-009",
        "read the node's logs of the boot before (`journalctl -b -1`, BMC event log) for the "
        "cause: power, kernel panic, watchdog"},
    FaultKindInfo{
        "memory_error", "YS-BURN-010",
        "`edac-util -v` / `ras-mc-ctl --errors`: find the DIMM; replace it if errors repeat"},
};

constexpr std::array kCounters = {
    CounterInfo{"ecc_corrected", "ecc", W, false, "corrected ECC errors"},
    CounterInfo{"ecc_uncorrected", "ecc", F, true, "uncorrectable ECC errors"},
    CounterInfo{"remapped_rows_uncorrectable", "ecc", F, true,
                "rows remapped for uncorrectable errors"},
    CounterInfo{"remap_failure", "ecc", F, true, "row remapping failed"},
    CounterInfo{"nvlink_replay", "link", W, false, "NVLink replay errors"},
    CounterInfo{"nvlink_recovery", "link", W, false, "NVLink recovery errors"},
    CounterInfo{"nvlink_crc", "link", W, false, "NVLink CRC errors"},
    CounterInfo{"nvlink_down", "link", F, true, "NVLink links inactive"},
    CounterInfo{"pcie_replay", "pcie", W, false, "PCIe replays"},
    CounterInfo{"xid", "xid", F, true, "XIDs in the kernel log"},
    CounterInfo{"thermal_throttle", "throttle", W, false, "CPU thermal throttle events"},
    CounterInfo{"edac_ce", "memory_error", W, false, "corrected memory errors (EDAC)"},
    CounterInfo{"edac_ue", "memory_error", F, true, "uncorrected memory errors (EDAC)"},
    CounterInfo{"aer_correctable", "pcie", W, false, "PCIe AER correctable errors"},
    CounterInfo{"aer_nonfatal", "pcie", W, false, "PCIe AER non-fatal errors"},
    CounterInfo{"aer_fatal", "pcie", F, true, "PCIe AER fatal errors"},
    CounterInfo{"mce", "memory_error", W, false, "machine-check lines in the kernel log"},
};

}  // namespace

const FaultKindInfo* LookupFaultKind(std::string_view kind) {
  for (const auto& k : kKinds) {
    if (k.kind == kind) return &k;
  }
  return nullptr;
}

const CounterInfo* LookupCounter(std::string_view counter) {
  for (const auto& c : kCounters) {
    if (c.counter == counter) return &c;
  }
  return nullptr;
}

}  // namespace ys::burnin
