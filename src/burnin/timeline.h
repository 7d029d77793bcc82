// A recorded NVML timeline: how a burn-in replays GPU state that changes over time, and plants
// faults, on a machine without GPUs (tests, and field reports replayed).
//
// A timeline file is JSON:
//   {"kind": "yardstick-nvml-timeline",
//    "base": "h200x8-throttle-remap.json",          // a recorded NVML state (gpu_snapshot_json.h),
//                                                   // relative to this file
//    "steps": [                                     // from load time at_s on, set fields of one
//    GPU
//      {"at_s": 30, "gpu": 2, "set": {"temperature_c": 74}},
//      {"at_s": 50, "gpu": 2, "set": {"temperature_c": 68, "clocks_event_reasons": 64}},
//      {"at_s": 60, "kmsg": "NVRM: Xid (PCI:0000:1b:00): 79, pid=..., GPU has fallen off the bus."}
//    ],
//    "plant": [                                     // faults planted into a load's output
//      {"at_s": 70, "entity": "cpu1", "fault": "bit_flip"},
//      {"at_s": 20, "entity": "cpu0", "fault": "slowdown", "drop_pct": 10}  // from 20 s on
//    ]}
// "set" keys are the device keys of the recorded state format with plain values; a step applies
// from its at_s until a later step sets the same key. A plain recorded state file is a timeline
// with no steps. Parsed strictly: an unknown key, a wrong type, a GPU index not in the base, an
// unknown field or fault: Invalid naming the file and the JSON path.
#ifndef YARDSTICK_BURNIN_TIMELINE_H_
#define YARDSTICK_BURNIN_TIMELINE_H_

#include <memory>
#include <string>
#include <vector>

#include "core/status.h"
#include "gpu/gpu_snapshot.h"

namespace ys::burnin {

class Timeline {
 public:
  static Result<Timeline> Load(const std::string& path);

  const std::string& path() const { return path_; }
  // The GPU state at load time `at_s` (every step with step.at_s <= at_s applied in order).
  Result<gpu::GpuSnapshot> StateAt(double at_s) const;
  // Kernel-log lines of the steps with from_s < at_s <= to_s.
  std::vector<std::string> KmsgBetween(double from_s, double to_s) const;
  // Whether a bit flip is planted on `entity` with from_s <= at_s < to_s.
  bool FlipPlanted(const std::string& entity, double from_s, double to_s) const;
  // The share of its measured rate `entity` keeps at `at_s` (1 unless a slowdown is planted from
  // then on): a planted sustained drop, applied to the rate a load reports.
  double RateKept(const std::string& entity, double at_s) const;
  // One line per step and planted fault, for the run document ("at 70 s: bit flip on cpu1").
  std::vector<std::string> Describe() const;

 private:
  struct Impl;
  std::string path_;
  std::shared_ptr<const Impl> impl_;
};

}  // namespace ys::burnin

#endif  // YARDSTICK_BURNIN_TIMELINE_H_
