#include "workloads/proxy/internal/proxy_executor.h"

#include <cblas.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <span>

#include "bench/deterministic_data.h"
#include "core/run_document.h"

namespace ys::workloads {
namespace {

double Seconds(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

comm::Collective ToCollective(PlanCollective c) {
  switch (c) {
    case PlanCollective::kAllGather:
      return comm::Collective::kAllGather;
    case PlanCollective::kReduceScatter:
      return comm::Collective::kReduceScatter;
    case PlanCollective::kAllToAll:
      return comm::Collective::kAlltoAll;
  }
  return comm::Collective::kAllGather;
}

int RecipeSize(const predict::Parallelism& p, CommGroup g) {
  switch (g) {
    case CommGroup::kTp:
      return p.tp;
    case CommGroup::kDp:
      return p.DataParallel();
    case CommGroup::kEp:
      return p.ep;
  }
  return 1;
}

}  // namespace

int GroupSizeFor(int ranks, int recipe) {
  for (int g = std::min(ranks, std::max(1, recipe)); g > 1; --g)
    if (ranks % g == 0) return g;
  return 1;
}

ProxyBuffers ProxyBufferSizes(const ProxyPlan& plan) {
  ProxyBuffers out;
  std::map<CommGroup, double> largest;
  for (const auto* list : {&plan.micro_batch_ops, &plan.step_ops}) {
    for (const ProxyOp& op : *list) {
      if (op.is_gemm) {
        // In double: the operands of an absurd shape overflow 64 bits.
        const GemmShape3& s = op.gemm;
        const double batch = static_cast<double>(s.batch);
        out.a = std::max(out.a, batch * s.m * s.k);
        out.b = std::max(out.b, batch * s.k * s.n);
        out.c = std::max(out.c, batch * s.m * s.n);
      } else {
        largest[op.group] = std::max(largest[op.group], static_cast<double>(op.bytes));
      }
    }
  }
  for (const auto& [group, bytes] : largest) out.collective_bytes += 2 * bytes;  // send + receive
  return out;
}

Status CheckProxyMemory(const ProxyPlan& plan, const std::string& where, double budget_bytes,
                        const std::string& budget_why) {
  ProxyBuffers need = ProxyBufferSizes(plan);
  if (need.Bytes() <= budget_bytes) return Status::Ok();
  constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
  return Status::Invalid(fmt::format(
      "{}: the proxy needs {:.4g} GiB of buffers on this rank (GEMM operands of {:.4g}, {:.4g} and "
      "{:.4g} fp32 elements, collectives {:.4g} GiB), more than the budget of {:.4g} GiB ({}); the "
      "model's shape is too large to run",
      where, need.Bytes() / kGiB, need.a, need.b, need.c, need.collective_bytes / kGiB,
      budget_bytes / kGiB, budget_why));
}

Result<std::unique_ptr<ProxyExecutor>> ProxyExecutor::Open(const ProxyPlan& plan,
                                                           comm::Communicator& comm) {
  std::unique_ptr<ProxyExecutor> x(new ProxyExecutor(plan));
  size_t a = 0, b = 0, c = 0;
  std::map<CommGroup, uint64_t> max_bytes;
  std::map<CommGroup, int> ops;
  for (const auto* list : {&plan.micro_batch_ops, &plan.step_ops}) {
    for (const ProxyOp& op : *list) {
      if (op.is_gemm) {
        const GemmShape3& s = op.gemm;
        a = std::max<size_t>(a, s.batch * s.m * s.k);
        b = std::max<size_t>(b, s.batch * s.k * s.n);
        c = std::max<size_t>(c, s.batch * s.m * s.n);
      } else {
        max_bytes[op.group] = std::max(max_bytes[op.group], op.bytes);
        ops[op.group] += list == &plan.micro_batch_ops ? plan.micro_batches : 1;
      }
    }
  }
  x->a_.resize(a);
  x->b_.resize(b);
  x->c_.resize(c);
  bench::FillDeterministic(std::span<float>(x->a_), 1);
  bench::FillDeterministic(std::span<float>(x->b_), 2);
  const int n = comm.size();
  for (CommGroup g : {CommGroup::kTp, CommGroup::kDp, CommGroup::kEp}) {
    int recipe = RecipeSize(plan.parallelism, g);
    int size = GroupSizeFor(n, recipe);
    x->sizes_[g] = size;
    if (ops[g] == 0) continue;
    if (size == 1) {
      x->notes_.push_back(fmt::format(
          "{} group: recipe {} ranks, the job gives 1: its {} collectives per step are skipped "
          "(counted as 0 s)",
          CommGroupName(g), recipe, ops[g]));
      continue;
    }
    if (!x->data_) {
      auto data = comm::OpenMpiCollectives(comm);
      if (!data.ok()) return data.status();
      x->data_ = std::move(*data);
    }
    auto sub = x->data_->Split(comm.rank() / size, comm.rank());
    if (!sub.ok()) return sub.status();
    YS_RETURN_IF_ERROR((*sub)->Reserve(max_bytes[g]));
    x->groups_[g] = std::move(*sub);
    if (size < recipe)
      x->notes_.push_back(fmt::format("{} group: {} of the recipe's {} ranks (the job has {})",
                                      CommGroupName(g), size, recipe, n));
  }
  return x;
}

Status ProxyExecutor::RunOp(const ProxyOp& op) {
  if (op.is_gemm) {
    const GemmShape3& s = op.gemm;
    for (int64_t i = 0; i < s.batch; ++i) {
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, s.m, s.n, s.k, 1.0f,
                  a_.data() + i * s.m * s.k, s.k, b_.data() + i * s.k * s.n, s.n, 0.0f,
                  c_.data() + i * s.m * s.n, s.n);
    }
    return Status::Ok();
  }
  auto it = groups_.find(op.group);
  if (it == groups_.end()) return Status::Ok();  // a group of one rank: skipped, stated
  comm::CollectiveBackend& g = *it->second;
  comm::CollectiveOp cop = comm::MakeCollectiveOp(ToCollective(op.collective), op.bytes,
                                                  comm::DataType::kFloat32, g.size());
  YS_RETURN_IF_ERROR(g.Launch(cop, /*in_place=*/false, 0));
  return g.Synchronize();
}

Result<OpTimes> ProxyExecutor::Calibrate(int warmup, int iters) {
  OpTimes times;
  for (const auto* list : {&plan_.micro_batch_ops, &plan_.step_ops}) {
    for (const ProxyOp& op : *list) {
      std::string key = op.Key();
      if (times.seconds.count(key)) continue;
      for (int i = 0; i < warmup; ++i) YS_RETURN_IF_ERROR(RunOp(op));
      std::vector<double> t;
      for (int i = 0; i < std::max(1, iters); ++i) {
        auto t0 = std::chrono::steady_clock::now();
        YS_RETURN_IF_ERROR(RunOp(op));
        t.push_back(Seconds(t0));
      }
      times.seconds[key] = groups_.count(op.group) || op.is_gemm ? MedianOf(t) : 0.0;
    }
  }
  return times;
}

Result<double> ProxyExecutor::Step(std::map<OpClass, double>* per_class) {
  auto step0 = std::chrono::steady_clock::now();
  auto run = [&](const ProxyOp& op) -> Status {
    auto t0 = std::chrono::steady_clock::now();
    YS_RETURN_IF_ERROR(RunOp(op));
    if (per_class) (*per_class)[op.cls] += Seconds(t0);
    return Status::Ok();
  };
  for (int mb = 0; mb < plan_.micro_batches; ++mb)
    for (const ProxyOp& op : plan_.micro_batch_ops) YS_RETURN_IF_ERROR(run(op));
  for (const ProxyOp& op : plan_.step_ops) YS_RETURN_IF_ERROR(run(op));
  return Seconds(step0);
}

}  // namespace ys::workloads
