// What a burn-in (`yardstick burnin`) reports: the faults it saw with their times, each loaded or
// watched entity's stability over the run, the interruptions it survived, MTBF and availability.
// Plain value types, kept in the run document as its "burnin" section (burnin_section.h); JSON
// in burnin_json.{h,cc}. Their own layer above core, so that burnin/ (which makes the report) and
// report/ (which renders it) both see them.
//
// Vocabulary:
//   load time ("at_s")  seconds of burn-in load since the burn-in began, summed over every
//                       process that worked on it (a resumed burn-in continues the count), so a
//                       fault's time means the same before and after a kill and resume.
//   entity              what is loaded or watched on one node: "cpu3" (a core worker),
//                       "gpu2", "net" (the job's collectives), "node" (host-wide counters).
//   window              a fixed slice of load time; each entity's series is kept per window
//                       (median rate, temperature range) so that a 72-hour run stays small.
#ifndef YARDSTICK_BURNIN_REPORT_BURNIN_REPORT_H_
#define YARDSTICK_BURNIN_REPORT_BURNIN_REPORT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/run_document.h"

namespace ys {

// One fault: a condition that started at a time on one entity.
struct BurninFault {
  double at_s = 0;     // load time when first seen
  std::string at;      // UTC, ISO 8601
  std::string node;    // host name
  std::string entity;  // "gpu2", "cpu1", "net", "node"
  // "miscompare", "temperature", "throttle", "ecc", "xid", "link", "memory_error", "pcie",
  // "perf_drift", "load_error", "reboot"
  std::string kind;
  Severity severity = Severity::kWarn;
  std::string message;  // one line
  Evidence evidence;
  // Load time when the condition was last seen to clear; unset while still present at the end
  // (and always for a sticky fault such as a miscompare: the part is suspect until repaired).
  std::optional<double> cleared_at_s;
  bool operator==(const BurninFault&) const = default;
};

// One window of one entity's series.
struct BurninWindow {
  double start_s = 0;
  std::optional<double> perf;  // median rate over the window's cycles
  std::optional<double> temp_min_c;
  std::optional<double> temp_max_c;
  int faults = 0;  // faults that started in this window
  bool operator==(const BurninWindow&) const = default;
};

// One entity over the whole burn-in.
struct BurninEntity {
  std::string node;
  std::string entity;
  std::string kind;         // "cpu", "gpu", "net", "node"
  std::string metric;       // "sgemm", "triad", "all_reduce.busbw"; empty: watched, not loaded
  std::string unit;         // "GFLOPS", "GB/s"
  int64_t cycles = 0;       // cycles that carried a sample for it
  int64_t iterations = 0;   // load operations checked (GEMMs, triads, collectives)
  int64_t miscompares = 0;  // operations whose result differed from the reference
  std::optional<double> perf_baseline;  // median rate over the baseline window (first hour)
  // A loaded entity's: whether its baseline was long enough for the drift judge (false: its rate
  // was measured but drift could not be judged); absent for watched entities.
  std::optional<bool> drift_judged;
  std::optional<double> perf_median;      // over the whole run
  std::optional<double> perf_min_window;  // the lowest window median
  std::optional<double> perf_last_window;
  std::optional<double> temp_steady_c;  // the steady-state reference temperature
  std::optional<double> temp_min_c;     // over the steady state
  std::optional<double> temp_max_c;
  std::optional<double> temp_max_dev_c;  // largest |T - steady| seen
  int throttle_events = 0;
  int faults = 0;
  double observed_s = 0;     // load time this entity was observed
  double unavailable_s = 0;  // of which a fault condition was present
  double availability = 1;   // 1 - unavailable/observed
  bool stable = true;        // no fault
  std::string note;          // e.g. "no temperature sensor: ..." or why there is no load
  std::vector<BurninWindow> windows;
  bool operator==(const BurninEntity&) const = default;
};

// A stop and a later resume.
struct BurninInterruption {
  double at_s = 0;         // load time at the last checkpoint before the stop
  std::string stopped_at;  // UTC of that checkpoint (or of the clean stop)
  std::string resumed_at;  // UTC
  double gap_s = 0;        // wall seconds between the two
  // "signal 15" (a clean stop, checkpointed on the way out), "killed" (no clean stop: SIGKILL, a
  // crash or OOM; the work since the last checkpoint was redone), "reboot" (the node booted in
  // between: its boot id changed).
  std::string how;
  double redone_s = 0;  // load time lost by the stop and measured again (0 for a clean stop)
  bool operator==(const BurninInterruption&) const = default;
};

struct BurninNode {
  std::string node;
  int entities = 0;
  int faults = 0;
  double availability = 1;  // share of load time in which every entity of the node was fault-free
  bool operator==(const BurninNode&) const = default;
};

struct BurninReport {
  std::string profile;    // "compute", "memory", "network", "mixed"
  double duration_s = 0;  // asked for
  double elapsed_s = 0;   // load time done
  bool complete = false;  // elapsed >= duration
  double cycle_s = 0;     // load per cycle, seconds
  double window_s = 0;
  double warmup_s = 0;          // load time before the steady state begins
  double baseline_s = 0;        // the perf baseline window (the first hour, or less for short runs)
  double temp_threshold_c = 2;  // fault when |T - steady| exceeds this
  double drift_threshold = 0.05;  // fault when a window's rate is this far below the baseline
  double checkpoint_interval_s = 0;
  int64_t cycles = 0;
  std::string started_at;            // UTC of the first start
  std::string telemetry_source;      // "nvml", "recorded: FILE", "none: ..."
  std::vector<std::string> planted;  // faults a recorded timeline planted (tests): never a real run
  std::vector<BurninInterruption> interruptions;
  std::vector<BurninFault> faults;  // in time order
  std::vector<BurninEntity> entities;
  std::vector<BurninNode> nodes;
  double entity_hours = 0;       // observed load time summed over entities, hours
  std::optional<double> mtbf_h;  // entity_hours / faults; unset with no fault
  double availability = 1;       // over all entities, load-time weighted
  bool operator==(const BurninReport&) const = default;
};

}  // namespace ys

#endif  // YARDSTICK_BURNIN_REPORT_BURNIN_REPORT_H_
