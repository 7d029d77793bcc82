// coll.alltoall: nccl-tests' alltoall_perf measurement over every rank of the job
// (bench/coll/internal/sweep.h).
#include "bench/coll/internal/sweep.h"

namespace ys::bench {
namespace {

class AlltoAllBenchmark final : public Benchmark {
 public:
  BenchmarkResult Run(const BenchContext& ctx) const override {
    return coll::RunCollectiveSweep(ctx, comm::Collective::kAlltoAll);
  }
  bool RunsOnAllRanks() const override { return true; }
};

}  // namespace

YS_REGISTER(AlltoAllBenchmark,
            {.id = "coll.alltoall",
             .summary = "Each rank sends a distinct chunk to every rank (nccl-tests "
                        "alltoall_perf): time, algbw, busbw = algbw x (n-1)/n, data check",
             .uses = {Need::kMpi},
             .codes = coll::kCollectiveCodes,
             .measures = coll::CollectiveMeasures("alltoall")})

}  // namespace ys::bench
