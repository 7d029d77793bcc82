// coll.all_reduce: nccl-tests' all_reduce_perf measurement over every rank of the job
// (bench/coll/internal/sweep.h).
#include "bench/coll/internal/sweep.h"

namespace ys::bench {
namespace {

class AllReduceBenchmark final : public Benchmark {
 public:
  BenchmarkResult Run(const BenchContext& ctx) const override {
    return coll::RunCollectiveSweep(ctx, comm::Collective::kAllReduce);
  }
  bool RunsOnAllRanks() const override { return true; }
};

}  // namespace

YS_REGISTER(AllReduceBenchmark,
            {.id = "coll.all_reduce",
             .summary = "Sum across all ranks, result on every rank (nccl-tests all_reduce_perf): "
                        "time, algbw, busbw = algbw x 2(n-1)/n, data check",
             .uses = {Need::kMpi},
             .codes = coll::kCollectiveCodes,
             .measures = coll::CollectiveMeasures("all_reduce")})

}  // namespace ys::bench
