// An nccl-tests log (validate/nccl_tests_log.h) as the run document `yardstick bench` writes for
// its coll.* units, so that `compare`, `merge`, `diagnose`, `history` and `predict --measured`
// take it like a bench run:
//
//   - one benchmark result per table, id coll.<collective>, with per row and placement the
//     measurements coll.<c>.busbw, .algbw (GB/s) and .time_us (us), parameters size, count,
//     dtype, inplace, backend (nccl), library ("NCCL 2.18.3", or "NCCL" when the log does not
//     say), device (gpu), ranks, gpus_per_process (one process driving several GPUs, -g/-t) and
//     value, as the bench writes them; and per dtype coll.<c>.avg_busbw. Each value is the
//     figure the log printed (the average over ranks, nccl-tests -a 1); the log holds no per-rank
//     times, so each measurement has that one sample;
//   - the table as printed (the bench's columns) and its footer lines;
//   - a #wrong above 0, or "Out of bounds values : N FAILED", is YS-BENCH-001 (fail); a table
//     without a data check (-c 0, #wrong "N/A") says so in its evidence;
//   - the ranks from validate/nccl_tests_ranks.h, with the source named (evidence "ranks_from");
//     one rank moved no data between GPUs: its busbw and algbw are not kept (time only), and a
//     placement that is no bandwidth (time 0, an absurd rate) keeps its time only;
//   - the bandwidth judged by validate/nccl_tests_verdict.h (YS-BENCH-004/005, warn); when it
//     cannot be judged and nothing failed or warned, the result is error (INCONCLUSIVE) with the
//     reason: a clean data check alone is no pass;
//   - the device list gives the host (rank 0's hostname), and with several processes every
//     rank (hostname, device) and every node with its ranks; the GPU model goes into the
//     evidence ("gpus": "16 x NVIDIA H100 80GB HBM3").
// The collective is the one the log names (the *_perf binary); else `collective` when given;
// else it is told from the columns where only one fits (a root: broadcast or reduce; per-rank
// counts and the busbw/algbw ratio for the others). Invalid, naming the table's line and the
// candidates, when it cannot be told.
#ifndef YARDSTICK_VALIDATE_NCCL_TESTS_RUN_H_
#define YARDSTICK_VALIDATE_NCCL_TESTS_RUN_H_

#include <optional>
#include <string>
#include <string_view>

#include "core/run_document.h"
#include "core/status.h"
#include "validate/nccl_tests_log.h"

namespace ys::validate {

Result<RunDocument> NcclTestsRunDocument(const NcclTestsLog& log, std::string_view name,
                                         const std::string& collective = "");

// The same from the text of a log: parse, then build.
Result<RunDocument> IngestNcclTestsText(std::string_view text, std::string_view name,
                                        const std::string& collective = "");

// The run document of the file at `path` when it is an nccl-tests log: always when `forced`,
// else when its first 64 KiB read as one (LooksLikeNcclTests); nullopt when it is not one (or
// cannot be opened: the training-log reader then reports that). Invalid as above, or when the
// file is over kMaxNcclTestsLogBytes.
inline constexpr size_t kMaxNcclTestsLogBytes = size_t{64} << 20;
Result<std::optional<RunDocument>> IngestNcclTestsFile(const std::string& path, bool forced,
                                                       const std::string& collective = "");

}  // namespace ys::validate

#endif  // YARDSTICK_VALIDATE_NCCL_TESTS_RUN_H_
