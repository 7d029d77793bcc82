// The arithmetic of the collective benchmarks, defined once and identical to nccl-tests
// (docs/design.md §measurement; docs/gpu-diagnostics.md §collectives):
//
//   - a requested size S in bytes becomes count = S / element size, and each collective derives
//     its per-rank send, receive and "parameter" counts from it (nccl-tests GetCollByteCount):
//     all_gather, reduce_scatter and alltoall split the array over the ranks and round the
//     per-rank chunk down to a multiple of 16 bytes;
//   - the printed size is max(send, receive) bytes, the printed count the parameter count;
//   - algbw = bytes / 1e9 / seconds (decimal GB/s) where bytes = count x element size, times the
//     number of ranks for all_gather, reduce_scatter and alltoall;
//   - busbw = algbw x factor: all_reduce 2(n-1)/n; all_gather, reduce_scatter, alltoall (n-1)/n;
//     broadcast, reduce, sendrecv 1. With one rank the factor of the first four is 0.
//
// Pure functions on values; no communication.
#ifndef YARDSTICK_COMM_COLLECTIVE_MATH_H_
#define YARDSTICK_COMM_COLLECTIVE_MATH_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ys::comm {

enum class Collective {
  kAllReduce,
  kAllGather,
  kReduceScatter,
  kAlltoAll,
  kBroadcast,
  kReduce,
  kSendRecv
};
inline constexpr std::array<Collective, 7> kAllCollectives = {
    Collective::kAllReduce, Collective::kAllGather, Collective::kReduceScatter,
    Collective::kAlltoAll,  Collective::kBroadcast, Collective::kReduce,
    Collective::kSendRecv};

// "all_reduce", "all_gather", "reduce_scatter", "alltoall", "broadcast", "reduce", "sendrecv"
// (the nccl-tests binary names without _perf; also the unit ids' suffixes).
const char* CollectiveName(Collective c);
std::optional<Collective> ParseCollective(std::string_view name);

// Whether the collective combines values (sum) rather than only moving them.
bool Reduces(Collective c);
// Whether the collective has a root rank (broadcast, reduce).
bool HasRoot(Collective c);
// The redop column as nccl-tests prints it: "sum" for the reductions and sendrecv (whose test
// loops over the reduction operators), "none" for the others.
const char* RedOpColumn(Collective c);
// The root column: the root for broadcast and reduce, -1 for the others.
int RootColumn(Collective c, int root);

enum class DataType { kFloat32, kBfloat16 };
// nccl-tests' names: "float", "bfloat16".
const char* DataTypeName(DataType t);
// "float", "float32", "fp32"; "bfloat16", "bf16".
std::optional<DataType> ParseDataType(std::string_view name);
size_t ElementSize(DataType t);

// Counts in elements for one rank; bytes are counts x element size.
struct CollectiveCounts {
  size_t send_count = 0;
  size_t recv_count = 0;
  size_t param_count = 0;          // the count passed to the collective call
  size_t send_inplace_offset = 0;  // in-place: input at recv buffer + offset x rank
  size_t recv_inplace_offset = 0;  // in-place: output at recv buffer + offset x rank
  size_t element_size = 0;

  size_t send_bytes() const { return send_count * element_size; }
  size_t recv_bytes() const { return recv_count * element_size; }
  // The size column: max(send, receive) bytes.
  size_t size_bytes() const { return send_bytes() > recv_bytes() ? send_bytes() : recv_bytes(); }
};

// nccl-tests setupArgs + <Coll>GetCollByteCount for a requested size in bytes.
CollectiveCounts CountsFor(Collective c, uint64_t size_bytes, DataType t, int nranks);

// The busbw factor: 2(n-1)/n, (n-1)/n or 1.
double BusBandwidthFactor(Collective c, int nranks);

// Bytes that algbw divides by time: param_count x element size, x nranks for all_gather,
// reduce_scatter and alltoall (nccl-tests <Coll>GetBw).
double AlgorithmBytes(Collective c, const CollectiveCounts& counts, int nranks);

struct Bandwidth {
  double algbw_gbps = 0;  // GB/s, 1 GB = 1e9 bytes
  double busbw_gbps = 0;
};
// algbw and busbw for one operation taking `seconds` (> 0).
Bandwidth ComputeBandwidth(Collective c, const CollectiveCounts& counts, int nranks,
                           double seconds);

// nccl-tests getFloatStr: `value` right-aligned in `width` characters with 2 decimals, else 1,
// else 0, else in exponent notation.
std::string FormatNcclFloat(double value, int width);

}  // namespace ys::comm

#endif  // YARDSTICK_COMM_COLLECTIVE_MATH_H_
