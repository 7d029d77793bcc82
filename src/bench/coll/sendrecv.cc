// coll.sendrecv: nccl-tests' sendrecv_perf measurement over every rank of the job
// (bench/coll/internal/sweep.h).
#include "bench/coll/internal/sweep.h"

namespace ys::bench {
namespace {

class SendRecvBenchmark final : public Benchmark {
 public:
  BenchmarkResult Run(const BenchContext& ctx) const override {
    return coll::RunCollectiveSweep(ctx, comm::Collective::kSendRecv);
  }
  bool RunsOnAllRanks() const override { return true; }
};

}  // namespace

YS_REGISTER(SendRecvBenchmark,
            {.id = "coll.sendrecv",
             .summary = "Each rank sends to rank+1 and receives from rank-1 (nccl-tests "
                        "sendrecv_perf): time, algbw, busbw = algbw, data check",
             .uses = {Need::kMpi},
             .codes = coll::kCollectiveCodes,
             .measures = coll::CollectiveMeasures("sendrecv")})

}  // namespace ys::bench
