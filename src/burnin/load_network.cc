// network.mpi / network.nccl: all_reduce (sum, float32) of a deterministic buffer across every
// rank of the job, each call checked element by element against the exact expected sums
// (comm/collective_data.h, nccl-tests' #wrong), bus bandwidth with nccl-tests' factor 2(n-1)/n.
//
// Every rank must make the same calls: a round is PrepareData, a barrier, one timed all_reduce,
// the check; whether another round follows is decided from the largest elapsed time over the
// ranks (AllReduceMax), so all ranks stop after the same round. The round's time is the slowest
// rank's. At the cycle's end the wrong-element counts are gathered to rank 0 and summed, as the
// collective sweep gathers #wrong; rank 0 alone appends the "net" sample.
//
// On a GPU node without a launcher, one process drives every visible GPU (nccl-tests -g,
// comm::OpenNcclForJob): the all_reduce spans the node's GPUs, each GPU a rank of the check.
//
// A bit flip planted on "net" corrupts one element of rank 0's first checked output of the cycle
// after it was read back (CollectiveBackend::CorruptNextCheck), so the real check catches it.
#include <fmt/format.h>

#include <chrono>

#include "burnin/load_internal.h"
#include "comm/collectives.h"
#include "core/text.h"

namespace ys::burnin {
namespace {

constexpr uint64_t kDefaultMpiBytes = 64ULL << 20;
constexpr uint64_t kDefaultNcclBytes = 256ULL << 20;
constexpr size_t kNetworkFlipElement = 17;

class NetworkLoad final : public Load {
 public:
  NetworkLoad(const LoadContext& ctx, std::unique_ptr<comm::CollectiveBackend> backend,
              comm::CollectiveOp op, std::string name)
      : ctx_(ctx), backend_(std::move(backend)), op_(op), name_(std::move(name)) {}

  std::string_view name() const override { return name_; }

  Status RunCycle(double at_s, double seconds, std::vector<EntitySample>& out) override {
    comm::Communicator& world = *ctx_.comm;
    using Clock = std::chrono::steady_clock;
    CycleTally tally;
    if (world.rank() == 0 && ctx_.timeline != nullptr &&
        ctx_.timeline->FlipPlanted("net", at_s, at_s + seconds)) {
      backend_->CorruptNextCheck(kNetworkFlipElement % std::max<size_t>(1, op_.counts.recv_count));
    }
    const auto start = Clock::now();
    for (;;) {
      ++seed_;
      YS_RETURN_IF_ERROR(comm::PrepareLocalData(*backend_, op_, false, seed_));
      YS_RETURN_IF_ERROR(world.Barrier());
      auto t0 = Clock::now();
      YS_RETURN_IF_ERROR(backend_->Launch(op_, false, 0));
      YS_RETURN_IF_ERROR(backend_->Synchronize());
      double mine = std::chrono::duration<double>(Clock::now() - t0).count();
      auto wrong = comm::CheckLocalData(*backend_, op_, false, seed_);
      if (!wrong.ok()) return wrong.status();
      ++tally.iterations;
      const std::vector<comm::CollectiveBackend*> ranks = backend_->LocalRanks();
      for (size_t i = 0; i < wrong->size(); ++i) {
        if ((*wrong)[i] == 0) continue;
        if (tally.miscompares == 0) {
          tally.detail = fmt::format("all_reduce round {}: rank {}: {} wrong element(s)", seed_,
                                     ranks[i]->rank(), (*wrong)[i]);
        }
        tally.miscompares += (*wrong)[i];
      }
      auto slowest = world.AllReduceMax(mine);
      if (!slowest.ok()) return slowest.status();
      if (*slowest > 0) {
        tally.rates.push_back(
            comm::ComputeBandwidth(comm::Collective::kAllReduce, op_.counts, op_.nranks, *slowest)
                .busbw_gbps);
      }
      auto elapsed =
          world.AllReduceMax(std::chrono::duration<double>(Clock::now() - start).count());
      if (!elapsed.ok()) return elapsed.status();
      if (*elapsed >= seconds) break;
    }
    // Wrong elements of every rank, summed on rank 0 (the first detail kept).
    auto all = world.Gather(fmt::format("{}|{}", tally.miscompares, tally.detail), 0);
    if (!all.ok()) return all.status();
    if (world.rank() != 0) return Status::Ok();
    CycleTally net = tally;
    net.miscompares = 0;
    net.detail.clear();
    for (size_t r = 0; r < all->size(); ++r) {
      const std::string& text = (*all)[r];
      size_t bar = text.find('|');
      auto n = ParseInt(std::string_view(text).substr(0, bar));
      if (bar == std::string::npos || !n) {
        return Status::Internal("malformed all_reduce check result from rank " + std::to_string(r));
      }
      if (*n > 0 && net.detail.empty()) net.detail = text.substr(bar + 1);
      net.miscompares += *n;
    }
    // `miscompares` of "net" counts wrong elements summed over the ranks (nccl-tests' #wrong),
    // so it can exceed the calls checked.
    out.push_back(LoadSample(ctx_, "net", "net", "all_reduce.busbw", "GB/s", net, ""));
    return Status::Ok();
  }

 private:
  const LoadContext ctx_;
  std::unique_ptr<comm::CollectiveBackend> backend_;
  const comm::CollectiveOp op_;
  const std::string name_;
  uint32_t seed_ = 0;
};

}  // namespace

Result<std::unique_ptr<Load>> MakeNetworkLoad(const LoadContext& ctx, bool use_gpu) {
  if (ctx.comm == nullptr || (!use_gpu && ctx.comm->size() < 2)) {
    return Status::Invalid(std::string("--profile network: ") + comm::kNothingToExchange);
  }
  Result<std::unique_ptr<comm::CollectiveBackend>> backend =
      use_gpu ? comm::OpenNcclForJob(*ctx.comm, ctx.launch) : comm::OpenMpiCollectives(*ctx.comm);
  if (!backend.ok()) return backend.status();
  if ((*backend)->size() < 2) {
    return Status::Invalid(std::string("--profile network: ") + comm::kNothingToExchange);
  }
  uint64_t bytes = ctx.allreduce_bytes > 0 ? ctx.allreduce_bytes
                                           : (use_gpu ? kDefaultNcclBytes : kDefaultMpiBytes);
  comm::CollectiveOp op = comm::MakeCollectiveOp(comm::Collective::kAllReduce, bytes,
                                                 comm::DataType::kFloat32, (*backend)->size());
  if (op.counts.recv_count == 0) {
    return Status::Invalid("network: all_reduce of " + std::to_string(bytes) +
                           " bytes has no element");
  }
  YS_RETURN_IF_ERROR((*backend)->Reserve(op.counts.size_bytes()));
  return std::unique_ptr<Load>(std::make_unique<NetworkLoad>(
      ctx, std::move(*backend), op, use_gpu ? "network.nccl" : "network.mpi"));
}

}  // namespace ys::burnin
