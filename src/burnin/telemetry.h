// The burn-in's telemetry: read at every cycle's end and merged into that cycle's samples.
//
//   GPUs   live: one NVML session for the burn-in's life (nvml_reader.h), per GPU temperature,
//          clocks event reasons, ECC counters, row remapping, NVLink state and error counters,
//          PCIe replays; recorded: a Timeline (--nvml-state FILE, or DIR/.yardstick/nvml.json of
//          a recorded host tree) at the cycle's load time. XIDs: the kernel log (host/kernel_log.h,
//          gpu/xid.h) plus a timeline's kmsg steps; counted per GPU by PCI address from the
//          burn-in's start (earlier lines are not new).
//   CPUs   per core: temperature from hwmon (coretemp "Core N" / k10temp Tctl), thermal_throttle
//          core_throttle_count + package_throttle_count; whichever exists, a reading that does
//          not exist is left unset with the reason in telemetry_note.
//   node   EDAC ce/ue counts (/sys/devices/system/edac/mc/mc*/), PCIe AER counters of every
//          device (host/pci_aer.h), machine-check lines of the kernel log.
// Every path is read through the host root, so a recorded tree replays.
#ifndef YARDSTICK_BURNIN_TELEMETRY_H_
#define YARDSTICK_BURNIN_TELEMETRY_H_

#include <memory>
#include <string>
#include <vector>

#include "burnin/observation.h"
#include "burnin/timeline.h"
#include "core/status.h"
#include "host/host.h"

namespace ys::burnin {

struct TelemetryOptions {
  std::string node;        // EntitySample::node
  std::string nvml_state;  // --nvml-state: a recorded state or timeline; empty: see above
  std::string kmsg_path;   // --kmsg: kernel log read instead of /dev/kmsg (real file system)
  std::vector<int> cpus;   // the CPUs loaded on this rank (sampled as "cpuN"); empty: none
  std::vector<int> gpus;   // the GPU indices this rank watches; empty with no GPU
  bool node_wide = true;   // this rank samples the "node" entity (the node's first rank)
};

class TelemetrySampler {
 public:
  // Opens NVML or the timeline. A node without GPUs is not an error (source "none: <why>").
  // Errors: a timeline or recorded state that does not parse (Invalid naming the file).
  static Result<std::unique_ptr<TelemetrySampler>> Open(const host::Host& host,
                                                        const TelemetryOptions& options);
  virtual ~TelemetrySampler() = default;

  // "nvml", "recorded: FILE", "none: NVML not found: ..."
  virtual const std::string& source() const = 0;
  // The timeline when the GPU state is recorded (loads read its planted faults), else nullptr.
  virtual const Timeline* timeline() const = 0;
  // GPU indices seen (live or recorded).
  virtual std::vector<int> gpus() const = 0;
  // Reads everything at load time `at_s` (the end of the cycle that began at `from_s`) and
  // merges it into `samples`: telemetry goes into the sample of the same entity, or a new
  // sample for an entity that carried no load this cycle ("gpu3" without load, "node").
  virtual void Sample(double from_s, double at_s, std::vector<EntitySample>& samples) = 0;
};

}  // namespace ys::burnin

#endif  // YARDSTICK_BURNIN_TELEMETRY_H_
