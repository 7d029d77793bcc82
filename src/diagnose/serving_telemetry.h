// GPU telemetry recorded while a serving phase ran, for the serving diagnosis rules
// (rules/serving/): per GPU, its SM clock against its maximum, its power against its limit, the
// throttle reasons it carried, its utilisation and memory, and DCGM's XID field.
//
// Three sources, each read by its header or key names (any subset, any order):
//   - `nvidia-smi --query-gpu=... --format=csv[,nounits] -lms N`: timestamp, index, pci.bus_id,
//     clocks.sm / clocks.current.sm, clocks.max.sm, power.draw, power.limit /
//     enforced.power.limit, temperature.gpu, clocks_throttle_reasons.active /
//     clocks_event_reasons.active (or one column per reason, "Active" / "Not Active"),
//     utilization.gpu, memory.used; units in the header ("[MHz]") and cells ("1980 MHz") or
//     not; "[N/A]" and "[Not Supported]" read as no value;
//   - the GPU telemetry block of an AIPerf summary CSV ("Endpoint,GPU_Index,GPU_Name,GPU_UUID,
//     [Platform,]Metric,avg,min,max,..."), its metrics by display name;
//   - AIPerf JSON's telemetry_data.endpoints.*.gpus.*.metrics (gpu_power_usage or
//     nvidia_power_usage, sm_clock_frequency or nvidia_sm_clock, ...).
// A sampled CSV gives medians over its samples; AIPerf gives its own statistics (avg, min, max).
// One GPU listed by two exporters (same UUID) is read once.
//
// This module does not link the format room (src/formats/), so it reads its comma tables itself.
// Pure functions of their text: bad input gives Invalid naming the file, the line and the
// column, never a crash.
#ifndef YARDSTICK_DIAGNOSE_SERVING_TELEMETRY_H_
#define YARDSTICK_DIAGNOSE_SERVING_TELEMETRY_H_

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace ys::diagnose {

// One GPU over the run.
struct GpuRunReadings {
  std::string gpu;     // "gpu0", "gpu3 (00000000:1B:00.0)", "gpu1 on node7"
  std::string source;  // the file
  int samples = 0;     // rows of a sampled CSV; 0 for a tool's own statistics (AIPerf)
  std::optional<double> sm_clock_mhz;      // median (AIPerf: avg)
  std::optional<double> max_sm_clock_mhz;  // clocks.max.sm
  std::optional<double> power_w;           // median (AIPerf: avg)
  std::optional<double> power_limit_w;     // enforced or set limit
  std::optional<double> temperature_c;     // the highest
  std::optional<double> utilization_pct;   // median (AIPerf: avg)
  std::optional<double> memory_used_mib;   // the highest
  // Throttle reasons (gpu::kClocksEvent* bits): whether they were recorded, the share of samples
  // that carried a slowdown reason (power cap, HW slowdown, thermal, power brake) and which.
  bool reasons_recorded = false;
  double slowdown_share = 0;
  uint64_t slowdown_reasons = 0;
  // DCGM (AIPerf): the share of the run the GPU was held by its power or thermal limit, from the
  // violation counters (max - min over the run's duration; stated in microseconds, read in
  // nanoseconds where microseconds would exceed the run, as real exports need).
  std::optional<double> power_violation_share, thermal_violation_share;
  std::optional<int> last_xid;  // DCGM's XID field: the last XID seen (0: none)
};

// The slowdown reasons among gpu::kClocksEvent* bits (idle, application clocks and sync boost
// are not slowdowns).
uint64_t SlowdownReasons(uint64_t bits);
// "SW power cap, HW thermal slowdown".
std::string DescribeSlowdownReasons(uint64_t bits);

// Whether `head` starts with an nvidia-smi --query-gpu CSV header (names nvidia-smi prints).
bool IsSmiQueryCsv(std::string_view head);
// Reads one nvidia-smi query CSV. Rows are grouped by pci.bus_id, else index, else one GPU. A
// last line cut short (the sampler killed mid-line) is dropped; any other row whose cell count
// differs from the header, or a cell that is not a number where one is expected, is Invalid.
Result<std::vector<GpuRunReadings>> ReadSmiQueryCsv(std::string_view text, const std::string& name);

// Whether `text` holds an AIPerf GPU telemetry block.
bool HasAiperfTelemetryBlock(std::string_view text);
// The GPUs of the telemetry block of an AIPerf summary CSV (none: the file has no such block). The
// CSV's "Benchmark Duration (sec)" row turns the violation counters into shares.
Result<std::vector<GpuRunReadings>> ReadAiperfTelemetryCsv(std::string_view text,
                                                           const std::string& name);
// The GPUs of an AIPerf JSON export's telemetry_data (none: it has none).
Result<std::vector<GpuRunReadings>> ReadAiperfTelemetryJson(const nlohmann::json& doc,
                                                            const std::string& name);

}  // namespace ys::diagnose

#endif  // YARDSTICK_DIAGNOSE_SERVING_TELEMETRY_H_
