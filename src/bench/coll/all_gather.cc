// coll.all_gather: nccl-tests' all_gather_perf measurement over every rank of the job
// (bench/coll/internal/sweep.h).
#include "bench/coll/internal/sweep.h"

namespace ys::bench {
namespace {

class AllGatherBenchmark final : public Benchmark {
 public:
  BenchmarkResult Run(const BenchContext& ctx) const override {
    return coll::RunCollectiveSweep(ctx, comm::Collective::kAllGather);
  }
  bool RunsOnAllRanks() const override { return true; }
};

}  // namespace

YS_REGISTER(AllGatherBenchmark,
            {.id = "coll.all_gather",
             .summary = "Every rank's chunk gathered on every rank (nccl-tests all_gather_perf): "
                        "time, algbw, busbw = algbw x (n-1)/n, data check",
             .uses = {Need::kMpi},
             .codes = coll::kCollectiveCodes,
             .measures = coll::CollectiveMeasures("all_gather")})

}  // namespace ys::bench
