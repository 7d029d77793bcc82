// The output of NVIDIA's nccl-tests (`all_reduce_perf`, `all_gather_perf`, ..., any `*_perf`
// binary, with or without MPI), read as an operator keeps it: a terminal copy, a Slurm .out file,
// a log captured through `mpirun --tag-output` ("[1,0]<stdout>:" before every line), `srun
// --label` ("0: ") or a "[0] " rank prefix, or a code block pasted into a Markdown note.
//
// What is read (https://github.com/NVIDIA/nccl-tests, src/common.cu):
//   "# nccl-tests version 2.18.0 nccl-headers=22907 nccl-library=22907"   (2.14 and later)
//   "# Collective test starting: all_reduce_perf_mpi"                       (2.14 and later)
//   "# nThread 1 nGpus 8 minBytes 8 ... validation: 1 graph: 0"            ('#' optional)
//   the device list, one line per rank:
//     "#  Rank  0 Group  0 Pid 895544 on h100-2 device  0 [0002:00:01] NVIDIA H100 80GB HBM3"
//     "#   Rank  0 Pid   9192 on pkb-2 device  0 [0x00] Tesla K80"          (before groups)
//   a list an operator shortened: a line "..." (or "# ...") between device lines;
//   the command line that started the binary ("mpirun -np 16 ./all_reduce_perf -g 1", "srun -n
//   8 ...", "./build/sendrecv_perf -b 128M -g 8"): its -np/-n, -g and -t;
//   NCCL's own "... nranks 16 ..." (NCCL_DEBUG=INFO init lines);
//   the column header, which fixes the table's layout:
//     "# size count type redop root time algbw busbw #wrong time algbw busbw #wrong"
//     "# size count type redop time algbw busbw error time algbw busbw error" (before 2.10: no
//     root; "error" is the largest deviation, judged only by the "Out of bounds" line)
//   rows of that layout; "#wrong" is "N/A" when the data check is off (-c 0) or does not apply;
//   "# Out of bounds values : N OK|FAILED" and "# Avg bus bandwidth : X" after each table.
// A file may hold several tables (a script that runs several binaries): each table starts at a
// column header and takes the collective named last before it ("Collective test starting", or a
// command line naming a `*_perf` binary). NCCL INFO/WARN lines and other launcher output between
// the lines are skipped.
#ifndef YARDSTICK_VALIDATE_NCCL_TESTS_LOG_H_
#define YARDSTICK_VALIDATE_NCCL_TESTS_LOG_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace ys::validate {

// One placement (out of place or in place) of one row, as printed.
struct NcclTestsPlace {
  double time_us = 0;
  double algbw_gbps = 0;
  double busbw_gbps = 0;
  // The #wrong column: the count of wrong elements; nullopt when "N/A" (not checked) or when the
  // table has the older "error" column (a deviation, not a count: `max_error` then).
  std::optional<int64_t> wrong;
  std::optional<double> max_error;
};

struct NcclTestsRow {
  uint64_t size_bytes = 0;
  uint64_t count = 0;
  std::string dtype;  // "float", "bfloat16", ...
  std::string redop;  // "sum", "none", ...
  int root = -1;
  NcclTestsPlace out_of_place;
  std::optional<NcclTestsPlace> in_place;  // absent when the table has one placement
  std::vector<std::string> cells;          // the row as printed, one cell per column
  int64_t line = 0;
};

// One line of the device list.
struct NcclTestsRank {
  int rank = 0;
  int group = 0;
  int64_t pid = 0;
  std::string host;
  int device = 0;
  std::string bus_id;  // "0000:04:00", "0x1b"
  std::string gpu;     // "NVIDIA H100 80GB HBM3"
};

// The command line naming a *_perf binary: the launcher's process count (mpirun -np N, srun -n
// N; nullopt when there is no launcher or it does not say), and the binary's -t and -g.
struct NcclTestsLaunch {
  bool launcher = false;  // mpirun, mpiexec or srun on that line
  std::optional<int> processes;
  std::optional<int> threads;
  std::optional<int> gpus;
};

struct NcclTestsTable {
  std::string binary;         // "all_reduce_perf", "all_reduce_perf_mpi"; "" when not named
  std::string collective;     // "all_reduce"
  NcclTestsLaunch launch;     // the last command line before the table
  bool error_column = false;  // the pre-2.10 "error" column instead of "#wrong"
  std::vector<NcclTestsRow> rows;
  std::optional<int64_t> out_of_bounds;  // "# Out of bounds values : N ..."
  bool out_of_bounds_failed = false;     // ... "FAILED"
  std::optional<double> avg_busbw_gbps;  // "# Avg bus bandwidth : X"
  int64_t header_line = 0;
};

struct NcclTestsLog {
  std::string tests_version;      // "2.18.0"; "" when the log does not print it
  std::string nccl_version;       // "2.29.7" (from nccl-library=22907 or "NCCL version 2.12.7+...")
  int threads = 1;                // nThread
  int gpus_per_thread = 1;        // nGpus (-g)
  std::optional<int> validation;  // -c as printed ("validation: 1")
  bool threads_line = false;      // the nThread line was seen
  std::vector<NcclTestsRank> ranks;
  bool rank_list_elided = false;   // a "..." line inside the device list: ranks.size() is short
  std::optional<int> nccl_nranks;  // "nranks N" of an NCCL INFO line (the largest seen)

  std::vector<NcclTestsTable> tables;
  std::string prefix;  // the launcher prefix seen: "mpirun --tag-output", "[N]", "srun --label"
  int64_t lines = 0;
};

// Whether `head` (the start of a file) reads as nccl-tests output: the nThread line, a device
// list line, or the column header, after any launcher prefix.
bool LooksLikeNcclTests(std::string_view head);

// The whole text read. Invalid (naming `name`, the line and what was expected) when the text has
// no table, a row does not fit its header's layout, or a number is malformed.
Result<NcclTestsLog> ParseNcclTestsLog(std::string_view text, std::string_view name);

// The line without a launcher prefix ("[1,0]<stdout>:", "[3] ", "12: "), and which kind it was
// ("" for none). A "<stderr>" line comes back empty: nccl-tests prints its tables on stdout.
std::string_view StripLaunchPrefix(std::string_view line, std::string* kind = nullptr);

// Bytes of one element of nccl-tests' type `dtype` ("float" 4, "bfloat16" 2); 0 when unknown.
size_t NcclTestsElementBytes(std::string_view dtype);

// "all_reduce" from "all_reduce_perf", "all_reduce_perf_mpi", "./build/all_reduce_perf"; "" when
// `word` names no nccl-tests binary.
std::string CollectiveOfBinary(std::string_view word);

}  // namespace ys::validate

#endif  // YARDSTICK_VALIDATE_NCCL_TESTS_LOG_H_
