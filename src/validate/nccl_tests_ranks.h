// How many ranks an nccl-tests table measured, and what says so. An nccl-tests log states it in
// several places, none of them always present: the device list (one line per rank, often
// shortened by the operator with "..."), NCCL's "nranks N" lines, the launcher's command line
// (mpirun -np, srun -n, the binary's -t and -g), the "nThread T nGpus G" line (per process), and
// the columns themselves: busbw / algbw is the collective's factor, 2(n-1)/n for all_reduce and
// (n-1)/n for all_gather, reduce_scatter and alltoall (nccl-tests doc/PERFORMANCE.md), from which
// n follows. Broadcast, reduce and sendrecv have factor 1: their columns say nothing of n.
#ifndef YARDSTICK_VALIDATE_NCCL_TESTS_RANKS_H_
#define YARDSTICK_VALIDATE_NCCL_TESTS_RANKS_H_

#include <optional>
#include <string>
#include <string_view>

#include "validate/nccl_tests_log.h"

namespace ys::validate {

// An nccl-tests collective: its busbw/algbw factor on n ranks, whether its size column is the
// per-rank count times the ranks, whether it reduces and whether it has a root.
struct NcclTestsShape {
  const char* name;
  bool per_rank_count;
  bool reduces;
  bool rooted;
  double (*factor)(double n);
  bool factor_depends_on_ranks;
};
// Every collective nccl-tests has a binary for; nullptr for a name that is not one.
const NcclTestsShape* FindNcclTestsShape(std::string_view collective);
const NcclTestsShape* NcclTestsShapesBegin();
const NcclTestsShape* NcclTestsShapesEnd();

struct NcclTestsRankCount {
  int n = 0;           // 0: nothing in the log says
  std::string source;  // "the device list (16 lines)", "busbw/algbw 1.984 at 8589934592 B", ...
};

// n from the largest row's busbw/algbw for `collective` (whose factor must depend on n), when
// the ratio gives a whole n >= 2 within the rounding of the printed columns.
std::optional<NcclTestsRankCount> RanksFromRatio(const NcclTestsTable& t,
                                                 std::string_view collective);

// The count for table `t` of collective `collective` ("" when not known yet), from the first
// source that says it: the device list (its distinct ranks, or its last rank index + 1 when
// shortened; never fewer than one process's nThread x nGpus), NCCL's nranks, the command line
// (processes x threads x GPUs, or one process's threads x GPUs without a launcher), then
// busbw/algbw, then the nThread line of a log that shows no launcher (one process). A count of 1 is
// kept: one rank moves no data between GPUs.
NcclTestsRankCount ResolveNcclTestsRanks(const NcclTestsLog& log, const NcclTestsTable& t,
                                         std::string_view collective);

}  // namespace ys::validate

#endif  // YARDSTICK_VALIDATE_NCCL_TESTS_RANKS_H_
