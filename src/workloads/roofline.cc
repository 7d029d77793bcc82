#include "workloads/roofline.h"

#include <algorithm>

namespace ys::workloads {

Result<Roofline> PredictStep(const ProxyPlan& plan, const OpTimes& times) {
  Roofline r;
  std::map<OpClass, ClassPrediction> by_class;
  auto add = [&](const ProxyOp& op, int repeat) -> Status {
    auto it = times.seconds.find(op.Key());
    if (it == times.seconds.end())
      return Status::NotFound("no calibrated time for " + op.Key() + " (" + op.name + ")");
    double t = it->second * repeat;
    ClassPrediction& c = by_class[op.cls];
    c.cls = op.cls;
    c.count += repeat;
    c.predicted_s += t;
    if (op.is_gemm) {
      c.flops += op.gemm.Flops() * repeat;
      r.compute_s += t;
      r.gemm_flops += op.gemm.Flops() * repeat;
    } else {
      c.bytes += static_cast<double>(op.bytes) * repeat;
      r.comm_s += t;
    }
    return Status::Ok();
  };
  for (const ProxyOp& op : plan.micro_batch_ops) YS_RETURN_IF_ERROR(add(op, plan.micro_batches));
  for (const ProxyOp& op : plan.step_ops) YS_RETURN_IF_ERROR(add(op, 1));
  r.serial_s = r.compute_s + r.comm_s;
  r.overlapped_s = std::max(r.compute_s, r.comm_s);
  r.gemm_rate_flops = r.compute_s > 0 ? r.gemm_flops / r.compute_s : 0;
  for (auto& [cls, c] : by_class) r.classes.push_back(c);
  r.assumption =
      "no overlap: the proxy runs its ops one after another, so predicted = sum of GEMM times + "
      "sum "
      "of collective times, each op timed alone at its own shape or message size; "
      "max(compute, comm) is the fully-overlapped bound";
  return r;
}

Result<double> PredictionGap(double measured_s, double predicted_s) {
  if (!(predicted_s > 0)) return Status::Invalid("predicted step time must be positive");
  return measured_s / predicted_s - 1.0;
}

}  // namespace ys::workloads
