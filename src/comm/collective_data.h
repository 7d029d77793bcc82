// The data check of the collective benchmarks: what each rank puts in, what each rank must get
// out, and how many elements differ (nccl-tests' `#wrong` column).
//
// nccl-tests crafts floating-point inputs whose results are exactly predictable; we do the same
// with small integers: a reduction sums values in {-1, 0, 1}, so every partial sum in any order
// is an integer of magnitude at most the number of ranks and exact in float (up to 2^24 ranks)
// and in bfloat16 (ranks from 256 on contribute 0 in bf16 so the sums stay within 256); the
// collectives that only move data carry integers in [-127, 127], exact in both types. The
// comparison is therefore exact, element by element, with no tolerance. Values depend on the
// rank, the element's index and a seed that changes per check, so a misrouted chunk, a stale
// buffer or a missing contribution shows.
#ifndef YARDSTICK_COMM_COLLECTIVE_DATA_H_
#define YARDSTICK_COMM_COLLECTIVE_DATA_H_

#include <cstddef>
#include <cstdint>

#include "comm/collective_math.h"

namespace ys::comm {

// One collective call as the benchmark issues it.
struct CollectiveOp {
  Collective collective = Collective::kAllReduce;
  DataType dtype = DataType::kFloat32;
  int nranks = 1;
  int root = 0;  // broadcast, reduce
  CollectiveCounts counts;
};
CollectiveOp MakeCollectiveOp(Collective c, uint64_t size_bytes, DataType t, int nranks,
                              int root = 0);

// Element `index` of rank `rank`'s input in check round `seed`.
float InputValue(const CollectiveOp& op, int rank, size_t index, uint32_t seed);

// Writes rank `rank`'s input, op.counts.send_count elements of op.dtype, to `dst`. Broadcast's
// non-root ranks have no input (nccl-tests leaves them untouched): nothing is written.
void WriteInput(const CollectiveOp& op, int rank, uint32_t seed, void* dst);

// What element `index` of rank `rank`'s output must hold after the collective: op.counts.
// recv_count elements. Out of place the receive buffer was zeroed before the call, so a reduce
// leaves zeros on the non-root ranks; in place those ranks keep their input.
float ExpectedValue(const CollectiveOp& op, int rank, size_t index, uint32_t seed, bool in_place);

// The number of the op.counts.recv_count elements at `output` that differ from ExpectedValue.
int64_t CountWrong(const CollectiveOp& op, int rank, uint32_t seed, bool in_place,
                   const void* output);

// bfloat16 <-> float (round to nearest even; NaN stays NaN).
uint16_t FloatToBfloat16(float f);
float Bfloat16ToFloat(uint16_t b);

// Element `index` of a buffer of op.dtype, as a float.
float LoadElement(DataType t, const void* buffer, size_t index);
void StoreElement(DataType t, void* buffer, size_t index, float value);

}  // namespace ys::comm

#endif  // YARDSTICK_COMM_COLLECTIVE_DATA_H_
