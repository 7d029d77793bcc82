// coll.reduce: nccl-tests' reduce_perf measurement over every rank of the job
// (bench/coll/internal/sweep.h).
#include "bench/coll/internal/sweep.h"

namespace ys::bench {
namespace {

class ReduceBenchmark final : public Benchmark {
 public:
  BenchmarkResult Run(const BenchContext& ctx) const override {
    return coll::RunCollectiveSweep(ctx, comm::Collective::kReduce);
  }
  bool RunsOnAllRanks() const override { return true; }
};

}  // namespace

YS_REGISTER(ReduceBenchmark, {.id = "coll.reduce",
                              .summary = "Sum across ranks onto the root (nccl-tests reduce_perf): "
                                         "time, algbw, busbw = algbw, data check",
                              .uses = {Need::kMpi},
                              .codes = coll::kCollectiveCodes,
                              .measures = coll::CollectiveMeasures("reduce")})

}  // namespace ys::bench
