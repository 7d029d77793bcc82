// Visitors over the Field members of GpuDevice and NvLinkState, with each member's JSON key (its
// C++ name). One list serves the JSON writer, the JSON reader and the NVML reader (which marks
// every field of an unreadable GPU), so a field added to gpu_snapshot.h is added here once.
#ifndef YARDSTICK_GPU_GPU_SNAPSHOT_FIELDS_H_
#define YARDSTICK_GPU_GPU_SNAPSHOT_FIELDS_H_

#include "gpu/gpu_snapshot.h"

namespace ys::gpu {

// v(key, field) for every Field member. D is GpuDevice or const GpuDevice.
template <typename D, typename V>
void ForEachDeviceField(D& d, V&& v) {
  v("persistence_mode", d.persistence_mode);
  v("performance_state", d.performance_state);
  v("sm_clock_mhz", d.sm_clock_mhz);
  v("mem_clock_mhz", d.mem_clock_mhz);
  v("max_sm_clock_mhz", d.max_sm_clock_mhz);
  v("clocks_event_reasons", d.clocks_event_reasons);
  v("power_usage_mw", d.power_usage_mw);
  v("enforced_power_limit_mw", d.enforced_power_limit_mw);
  v("default_power_limit_mw", d.default_power_limit_mw);
  v("temperature_c", d.temperature_c);
  v("slowdown_temperature_c", d.slowdown_temperature_c);
  v("shutdown_temperature_c", d.shutdown_temperature_c);
  v("max_operating_temperature_c", d.max_operating_temperature_c);
  v("ecc_enabled", d.ecc_enabled);
  v("ecc_volatile_corrected", d.ecc_volatile_corrected);
  v("ecc_volatile_uncorrected", d.ecc_volatile_uncorrected);
  v("ecc_aggregate_corrected", d.ecc_aggregate_corrected);
  v("ecc_aggregate_uncorrected", d.ecc_aggregate_uncorrected);
  v("retired_pages_sbe", d.retired_pages_sbe);
  v("retired_pages_dbe", d.retired_pages_dbe);
  v("retired_pages_pending", d.retired_pages_pending);
  v("remapped_rows_correctable", d.remapped_rows_correctable);
  v("remapped_rows_uncorrectable", d.remapped_rows_uncorrectable);
  v("remapped_rows_pending", d.remapped_rows_pending);
  v("remapped_rows_failure", d.remapped_rows_failure);
  v("fabric", d.fabric);
  v("pcie_gen_current", d.pcie_gen_current);
  v("pcie_gen_max", d.pcie_gen_max);
  v("pcie_width_current", d.pcie_width_current);
  v("pcie_width_max", d.pcie_width_max);
  v("pcie_replay_counter", d.pcie_replay_counter);
  v("mig_enabled", d.mig_enabled);
  v("compute_processes", d.compute_processes);
}

// v(key, field) for every Field member. L is NvLinkState or const NvLinkState.
template <typename L, typename V>
void ForEachLinkField(L& l, V&& v) {
  v("active", l.active);
  v("remote_pci_bus_id", l.remote_pci_bus_id);
  v("replay_errors", l.replay_errors);
  v("recovery_errors", l.recovery_errors);
  v("crc_flit_errors", l.crc_flit_errors);
  v("crc_data_errors", l.crc_data_errors);
}

}  // namespace ys::gpu

#endif  // YARDSTICK_GPU_GPU_SNAPSHOT_FIELDS_H_
