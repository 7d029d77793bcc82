// coll.reduce_scatter: nccl-tests' reduce_scatter_perf measurement over every rank of the job
// (bench/coll/internal/sweep.h).
#include "bench/coll/internal/sweep.h"

namespace ys::bench {
namespace {

class ReduceScatterBenchmark final : public Benchmark {
 public:
  BenchmarkResult Run(const BenchContext& ctx) const override {
    return coll::RunCollectiveSweep(ctx, comm::Collective::kReduceScatter);
  }
  bool RunsOnAllRanks() const override { return true; }
};

}  // namespace

YS_REGISTER(ReduceScatterBenchmark,
            {.id = "coll.reduce_scatter",
             .summary = "Sum across ranks, one chunk per rank (nccl-tests reduce_scatter_perf): "
                        "time, algbw, busbw = algbw x (n-1)/n, data check",
             .uses = {Need::kMpi},
             .codes = coll::kCollectiveCodes,
             .measures = coll::CollectiveMeasures("reduce_scatter")})

}  // namespace ys::bench
