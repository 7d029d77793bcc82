// What a burn-in shows on a terminal while it runs (core/progress.h): after every cycle a transient
// line (cycle, load, time left), and every few seconds a status line that stays, with the current
// figures, so that a person watching a long burn-in sees it is alive and how the node holds up.
#ifndef YARDSTICK_BURNIN_STATUS_LINE_H_
#define YARDSTICK_BURNIN_STATUS_LINE_H_

#include <chrono>
#include <string>
#include <string_view>

#include "burnin/observation.h"

namespace ys::burnin {

// "burn-in: 40 of 600 s, 560 s left; sgemm 812 GFLOPS (min 790, 4 cpus); 71 C max; 0 miscompares"
// from one cycle's gathered samples: per load metric the median rate over the entities, the
// lowest and the count; the hottest entity; the miscompares of the cycle.
std::string StatusLine(const CycleObservation& obs, double elapsed_s, double duration_s);

// Shows `obs` on the process's progress reporter: the transient line every cycle, the status line
// when `every_s` have passed since `last` (then `last` is set to now).
class StatusTicker {
 public:
  explicit StatusTicker(double every_s = 5) : every_s_(every_s) {}
  void Cycle(const CycleObservation& obs, std::string_view load, int cycle, double elapsed_s,
             double duration_s);

 private:
  double every_s_;
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

}  // namespace ys::burnin

#endif  // YARDSTICK_BURNIN_STATUS_LINE_H_
