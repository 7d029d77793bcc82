// One timed step of the collective engine (sweep.h): on every rank of the job, this rank's input
// written, one untimed call, a barrier, `iters` timed calls at rotating buffer offsets, then the
// data check with a new seed; the per-rank times and wrong-element counts gathered over the job,
// so that every rank builds the same report.
#ifndef YARDSTICK_BENCH_COLL_INTERNAL_TIMED_STEP_H_
#define YARDSTICK_BENCH_COLL_INTERNAL_TIMED_STEP_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "comm/collectives.h"
#include "core/status.h"

namespace ys::bench::coll {

// Per-rank samples of one step, index = rank of the group (processes in order, each with its local
// ranks); NaN time for ranks outside the group.
struct StepSamples {
  std::vector<double> time_us;
  std::vector<int64_t> wrong;
};

// How many distinct offsets of `op`'s message fit in `buffer_bytes` (at least 1): successive
// calls rotate through them, so that a timed call does not reuse the previous call's cache lines.
size_t RotationSteps(const comm::CollectiveOp& op, size_t buffer_bytes);

// `warmup` calls out of place at rotating offsets, then a synchronisation.
Status WarmUp(comm::CollectiveBackend& b, const comm::CollectiveOp& op, int warmup,
              size_t buffer_bytes);

// Every rank of the job calls this; `b` is null on ranks outside the measured group. A rank's
// failure is the step's error, naming the rank.
Result<StepSamples> MeasureStep(comm::Communicator& world, comm::CollectiveBackend* b,
                                const comm::CollectiveOp& op, bool in_place, int iters,
                                size_t buffer_bytes, uint32_t seed);

}  // namespace ys::bench::coll

#endif  // YARDSTICK_BENCH_COLL_INTERNAL_TIMED_STEP_H_
