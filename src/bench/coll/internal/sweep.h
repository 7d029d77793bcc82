// The collective benchmark engine: one piece serving the seven units coll.all_reduce ...
// coll.sendrecv. It follows nccl-tests' method (docs/gpu-diagnostics.md
// §collectives):
//
//   - sizes from --sizes; warm-up out of place at every size first (-w), then per size an
//     out-of-place and an in-place measurement;
//   - a measurement: this rank's input written, one untimed call, a barrier, then `iters` calls
//     back to back (each at a rotating buffer offset) and one synchronisation under a host
//     wall-clock timer: time per op = elapsed / iters on each rank, averaged over the ranks
//     (nccl-tests -a 1) before algbw and busbw (comm/collective_math.h) are computed. The
//     per-rank times are kept, so a slow rank shows (YS-BENCH-002);
//   - then a data check: new input, one call, every output element compared exactly; the wrong
//     elements are summed over the ranks (`#wrong`; any makes the unit fail, YS-BENCH-001);
//   - the table has nccl-tests' columns and footer lines (Out of bounds values, Avg bus
//     bandwidth = mean busbw over every row, both placements).
// --pairwise adds the same measurement (out of place) at the largest size over every pair of
// ranks (ring neighbours on large jobs), each pair a sub-communicator, the pairs of one round at
// once, each round three times with the median kept per pair; it flags a pair far below the
// others (YS-BENCH-003).
//
// Backends: --backend cpu = MPI on host buffers, gpu = NCCL on device buffers, auto = NCCL when
// every rank can use it, else MPI (the reason is kept as evidence). Every rank of the job calls
// RunCollectiveSweep with the same options; each returns the same result.
#ifndef YARDSTICK_BENCH_COLL_INTERNAL_SWEEP_H_
#define YARDSTICK_BENCH_COLL_INTERNAL_SWEEP_H_

#include <functional>
#include <string>
#include <vector>

#include "bench/benchmark.h"
#include "comm/collectives.h"

namespace ys::bench::coll {

// The finding codes the sweep raises; each of the seven units declares them.
inline const std::vector<FindingCodeInfo> kCollectiveCodes = {
    {"YS-BENCH-001", Severity::kFail, "collective data check found wrong elements"},
    {"YS-BENCH-002", Severity::kWarn, "one rank's collective time far above the other ranks'"},
    {"YS-BENCH-003", Severity::kWarn,
     "pairwise collective: a pair or ring neighbour far below the others"}};

struct SweepHooks {
  // Called on every rank once the backend is open, before anything is measured (tests inject a
  // fault here).
  std::function<void(comm::CollectiveBackend&)> on_backend;
};

BenchmarkResult RunCollectiveSweep(const BenchContext& ctx, comm::Collective c,
                                   const SweepHooks& hooks = {});

// --- The pieces below are exposed for tests. ---

// One placement (out of place or in place) at one size.
struct PlaceResult {
  double time_us = 0;                // per op, averaged over the group's ranks
  comm::Bandwidth bw;                // from time_us
  int64_t wrong = 0;                 // summed over the group's ranks
  std::vector<double> rank_time_us;  // index = rank in the group
  std::vector<int64_t> rank_wrong;
};

struct SweepRow {
  comm::CollectiveOp op;
  PlaceResult out_of_place;
  PlaceResult in_place;
};

// Fills time_us, bw and wrong of `p` from its per-rank vectors.
void Summarise(const comm::CollectiveOp& op, PlaceResult& p);

// nccl-tests' "Avg bus bandwidth": the mean busbw over every row, both placements.
double AverageBusBandwidth(const std::vector<SweepRow>& rows);
// nccl-tests' "Out of bounds values": the number of (rank, row, placement) with a wrong element.
int OutOfBoundsValues(const std::vector<SweepRow>& rows);

// The nccl-tests table: size, count, type, redop, root, then time, algbw, busbw, #wrong out of
// place and the same in place; footer "# Out of bounds values : N OK|FAILED" and
// "# Avg bus bandwidth    : X".
ResultTable MakeSweepTable(std::string title, const std::vector<SweepRow>& rows);

// YS-BENCH-002: ranks (with 3 or more ranks) whose time exceeds kSlowRankFactor x the median
// rank's in at least half of the rows. Returns the findings.
inline constexpr double kSlowRankFactor = 1.5;
std::vector<Finding> SlowRankFindings(const std::string& coll_name,
                                      const std::vector<SweepRow>& rows,
                                      const std::vector<std::string>& hostnames);

// YS-BENCH-001: one finding per rank that received a wrong element.
std::vector<Finding> WrongDataFindings(const std::string& coll_name,
                                       const std::vector<SweepRow>& rows,
                                       const std::vector<std::string>& hostnames,
                                       const std::string& backend);

// --pairwise: the rounds of disjoint pairs. Up to kExhaustivePairRanks ranks every pair (a
// round-robin schedule, n-1 rounds for even n, n for odd); above, ring neighbours (i, i+1 mod n)
// in two or three rounds.
inline constexpr int kExhaustivePairRanks = 16;
std::vector<std::vector<std::pair<int, int>>> PairRounds(int nranks);

struct PairResult {
  int a = 0, b = 0;  // world ranks, a < b
  PlaceResult result;
};
// YS-BENCH-003: pairs (of 3 or more) whose busbw is below kSlowPairFraction x the median pair's.
inline constexpr double kSlowPairFraction = 0.5;
std::vector<Finding> SlowPairFindings(const std::string& coll_name,
                                      const std::vector<PairResult>& pairs,
                                      const std::vector<std::string>& hostnames);

// What the seven collective units measure (core/figure_spec.h): nccl-tests' busbw, algbw and
// time per size and placement, their pairwise forms, and the average bus bandwidth; `op` is the
// collective ("all_reduce").
Measures CollectiveMeasures(std::string_view op);

}  // namespace ys::bench::coll

#endif  // YARDSTICK_BENCH_COLL_INTERNAL_SWEEP_H_
