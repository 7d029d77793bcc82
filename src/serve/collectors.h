// The exporter's collectors (collector.h): node telemetry and the latest run's results.
//   gpu        — NVML (live, one session held open) or a recorded NVML state file: dcgm-exporter's
//                DCGM_FI_DEV_* names where they overlap, labels gpu, UUID, pci_bus_id, device,
//                modelName, Hostname as dcgm-exporter sets them; yardstick_* for the rest.
//   infiniband — /sys/class/infiniband port state, rate and counters; throughput from two
//                successive readings.
//   cpu_clock  — the busy-core clock (host/busy_core_clock.h) of up to 4 cores, one core at a time,
//                10 ms each, at most once a minute: about 40 ms of one core a minute. A recorded
//                tree replays <root>/.yardstick/busy-clock.
//   run        — a run.json (and validation.json beside it, or --validation): check outcomes,
//                scores, serving phases (scores, figures, states), bus bandwidths, other
//                measurements, the run's time, diagnosis recovery.
#ifndef YARDSTICK_SERVE_COLLECTORS_H_
#define YARDSTICK_SERVE_COLLECTORS_H_

#include <memory>
#include <string>

#include "host/host.h"
#include "serve/collector.h"

namespace ys::serve {

// `nvml_state`: a recorded NVML state file; empty: the host's (recorded tree or live NVML).
std::unique_ptr<Collector> MakeGpuCollector(const host::Host& host, std::string nvml_state);
std::unique_ptr<Collector> MakeInfinibandCollector(const host::Host& host);
std::unique_ptr<Collector> MakeCpuClockCollector(const host::Host& host);
// `validation`: a validation.json; empty: validation.json beside `run_path` when there is one.
// `run_path` may be empty when `validation` is given (a serving suite's validation has no run).
std::unique_ptr<Collector> MakeRunCollector(std::string run_path, std::string validation);

// The label every node-level series carries, dcgm-exporter's name for it, and its value: the
// node's hostname (<root>/proc/sys/kernel/hostname, else $HOSTNAME; empty when neither).
inline constexpr char kHostLabel[] = "Hostname";
std::string NodeHostname(const host::Host& host);

// Seconds since 1970 of an ISO 8601 UTC time "2026-11-20T09:14:02Z" (fraction allowed).
Result<double> ParseUtcTimestamp(const std::string& text);

}  // namespace ys::serve

#endif  // YARDSTICK_SERVE_COLLECTORS_H_
