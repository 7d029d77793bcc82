// Roofline prediction of a proxy step from the time of each of its distinct ops measured alone.
//
// Calibration times each distinct GEMM shape and each distinct collective message of the plan
// (ProxyOp::Key) on its own, median of several calls. The proxy then runs the step's ops one
// after another on one stream / thread, so the prediction assumes no overlap:
//   predicted step = Σ over ops of the op's calibrated time   (serial, what the proxy does)
// Beside it the fully-overlapped bound max(Σ GEMM, Σ collectives), what a framework that hides
// every collective behind compute could reach. Gap = measured ÷ predicted − 1: positive when the
// step ran slower than its parts alone (interference, noisy neighbours, cache effects).
//
// Pure: values in, values out.
#ifndef YARDSTICK_WORKLOADS_ROOFLINE_H_
#define YARDSTICK_WORKLOADS_ROOFLINE_H_

#include <map>
#include <string>
#include <vector>

#include "core/status.h"
#include "workloads/proxy_plan.h"

namespace ys::workloads {

// Calibrated seconds per op key. A collective skipped for want of ranks is timed as 0 and listed
// in `skipped` with the reason.
struct OpTimes {
  std::map<std::string, double> seconds;
};

struct ClassPrediction {
  OpClass cls = OpClass::kGemmFwd;
  int count = 0;     // ops per step
  double flops = 0;  // GEMMs
  double bytes = 0;  // collectives (nccl-tests size)
  double predicted_s = 0;
};

struct Roofline {
  double compute_s = 0;                  // Σ GEMM time per step
  double comm_s = 0;                     // Σ collective time per step
  double serial_s = 0;                   // compute + comm: the prediction
  double overlapped_s = 0;               // max(compute, comm)
  double gemm_flops = 0;                 // per step
  double gemm_rate_flops = 0;            // gemm_flops / compute_s: the plan's effective GEMM rate
  std::vector<ClassPrediction> classes;  // in OpClass order, classes with ops only
  std::string assumption;
};

// NotFound naming the first op whose key has no calibrated time.
Result<Roofline> PredictStep(const ProxyPlan& plan, const OpTimes& times);

// measured ÷ predicted − 1; Invalid when predicted is not positive.
Result<double> PredictionGap(double measured_s, double predicted_s);

}  // namespace ys::workloads

#endif  // YARDSTICK_WORKLOADS_ROOFLINE_H_
