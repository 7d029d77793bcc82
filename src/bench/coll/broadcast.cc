// coll.broadcast: nccl-tests' broadcast_perf measurement over every rank of the job
// (bench/coll/internal/sweep.h).
#include "bench/coll/internal/sweep.h"

namespace ys::bench {
namespace {

class BroadcastBenchmark final : public Benchmark {
 public:
  BenchmarkResult Run(const BenchContext& ctx) const override {
    return coll::RunCollectiveSweep(ctx, comm::Collective::kBroadcast);
  }
  bool RunsOnAllRanks() const override { return true; }
};

}  // namespace

YS_REGISTER(BroadcastBenchmark,
            {.id = "coll.broadcast",
             .summary = "Root's buffer copied to every rank (nccl-tests broadcast_perf): time, "
                        "algbw, busbw = algbw, data check",
             .uses = {Need::kMpi},
             .codes = coll::kCollectiveCodes,
             .measures = coll::CollectiveMeasures("broadcast")})

}  // namespace ys::bench
