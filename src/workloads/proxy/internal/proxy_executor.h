// Runs a proxy plan on this rank's CPU: GEMMs through OpenBLAS sgemm (fp32), collectives through
// the MPI data plane (comm/collectives.h) in sub-groups of the job's ranks.
//
// Groups: each recipe group (TP, DP, EP) maps onto the job's ranks on its own, as far as the job
// goes: size = the largest divisor of the job's size that is at most the recipe's group size,
// consecutive ranks. Groups overlap (the proxy runs its ops one after another, so they never
// contend). A group of one rank runs no collective: its ops take no time and are listed as
// skipped with the reason.
//
// Not thread safe; every rank of the job makes the same calls in the same order.
#ifndef YARDSTICK_WORKLOADS_PROXY_INTERNAL_PROXY_EXECUTOR_H_
#define YARDSTICK_WORKLOADS_PROXY_INTERNAL_PROXY_EXECUTOR_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "comm/collectives.h"
#include "comm/communicator.h"
#include "workloads/proxy_plan.h"
#include "workloads/roofline.h"

namespace ys::workloads {

// The largest divisor of `ranks` that is at most `recipe` (at least 1).
int GroupSizeFor(int ranks, int recipe);

// What ProxyExecutor::Open allocates for a plan on one rank, counted in double so that no shape
// overflows: the three GEMM operand buffers (fp32 elements, the largest A, B and C of any op) and
// each group's largest collective message, send and receive.
struct ProxyBuffers {
  double a = 0, b = 0, c = 0;  // elements
  double collective_bytes = 0;
  double Bytes() const { return (a + b + c) * sizeof(float) + collective_bytes; }
};
ProxyBuffers ProxyBufferSizes(const ProxyPlan& plan);

// Invalid, naming `where` (the model file), what the plan's buffers need and the budget
// (`budget_why` says where it came from), when they exceed `budget_bytes`. Called before Open so
// that a huge shape in a model file is a clear error, not an allocation failure.
Status CheckProxyMemory(const ProxyPlan& plan, const std::string& where, double budget_bytes,
                        const std::string& budget_why);

class ProxyExecutor {
 public:
  // Opens the MPI data plane when the job has more than one rank; every rank must call it.
  static Result<std::unique_ptr<ProxyExecutor>> Open(const ProxyPlan& plan,
                                                     comm::Communicator& comm);

  // Times each distinct op of the plan alone: `warmup` calls, then the median of `iters`.
  Result<OpTimes> Calibrate(int warmup, int iters);
  // One training step; adds each op's seconds to `per_class` (may be null).
  Result<double> Step(std::map<OpClass, double>* per_class);

  int group_size(CommGroup g) const { return sizes_.at(g); }
  // "tp: 1 rank, its 48 collectives skipped", ...
  const std::vector<std::string>& notes() const { return notes_; }
  std::string library() const { return data_ ? data_->library() : "none (one rank)"; }

 private:
  explicit ProxyExecutor(const ProxyPlan& plan) : plan_(plan) {}
  Status RunOp(const ProxyOp& op);

  const ProxyPlan& plan_;
  std::vector<float> a_, b_, c_;
  std::unique_ptr<comm::CollectiveBackend> data_;
  std::map<CommGroup, std::unique_ptr<comm::CollectiveBackend>> groups_;
  std::map<CommGroup, int> sizes_;
  std::vector<std::string> notes_;
};

}  // namespace ys::workloads

#endif  // YARDSTICK_WORKLOADS_PROXY_INTERNAL_PROXY_EXECUTOR_H_
