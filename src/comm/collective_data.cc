#include "comm/collective_data.h"

#include <cstring>

namespace ys::comm {
namespace {

// Ranks from this one on contribute 0 to a bf16 reduction (see the header).
constexpr int kBf16ExactRanks = 256;

uint32_t Mix(uint32_t h) {
  h ^= h >> 16;
  h *= 0x7feb352dU;
  h ^= h >> 15;
  h *= 0x846ca68bU;
  h ^= h >> 16;
  return h;
}

// Rank `rank`'s contribution to a reduction at `index`: in {-1, 0, 1}.
float ReductionInput(const CollectiveOp& op, int rank, size_t index, uint32_t seed) {
  if (op.dtype == DataType::kBfloat16 && rank >= kBf16ExactRanks) return 0.0f;
  uint32_t h = Mix(static_cast<uint32_t>(index) * 0x9E3779B1U ^ static_cast<uint32_t>(index >> 32) ^
                   static_cast<uint32_t>(rank) * 0x85EBCA77U ^ seed * 0xC2B2AE3DU);
  return static_cast<float>(static_cast<int>(h % 3) - 1);
}

// Data-movement payload: an integer in [-127, 127].
float MovedInput(int rank, size_t index, uint32_t seed) {
  uint32_t h = Mix(static_cast<uint32_t>(index) * 0x9E3779B1U ^ static_cast<uint32_t>(index >> 32) ^
                   static_cast<uint32_t>(rank) * 0x85EBCA77U ^ seed * 0xC2B2AE3DU);
  return static_cast<float>(static_cast<int>(h % 255) - 127);
}

float SumOverRanks(const CollectiveOp& op, size_t index, uint32_t seed) {
  float sum = 0;
  for (int r = 0; r < op.nranks; ++r) sum += ReductionInput(op, r, index, seed);
  return sum;
}

}  // namespace

CollectiveOp MakeCollectiveOp(Collective c, uint64_t size_bytes, DataType t, int nranks, int root) {
  CollectiveOp op;
  op.collective = c;
  op.dtype = t;
  op.nranks = nranks;
  op.root = root;
  op.counts = CountsFor(c, size_bytes, t, nranks);
  return op;
}

uint16_t FloatToBfloat16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof(bits));
  if ((bits & 0x7f800000U) == 0x7f800000U && (bits & 0x007fffffU) != 0) {
    return static_cast<uint16_t>((bits >> 16) | 0x0040U);  // quiet NaN
  }
  uint32_t rounding = 0x7fffU + ((bits >> 16) & 1U);
  return static_cast<uint16_t>((bits + rounding) >> 16);
}

float Bfloat16ToFloat(uint16_t b) {
  uint32_t bits = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f;
}

float LoadElement(DataType t, const void* buffer, size_t index) {
  if (t == DataType::kBfloat16) {
    uint16_t b;
    std::memcpy(&b, static_cast<const char*>(buffer) + index * 2, 2);
    return Bfloat16ToFloat(b);
  }
  float f;
  std::memcpy(&f, static_cast<const char*>(buffer) + index * 4, 4);
  return f;
}

void StoreElement(DataType t, void* buffer, size_t index, float value) {
  if (t == DataType::kBfloat16) {
    uint16_t b = FloatToBfloat16(value);
    std::memcpy(static_cast<char*>(buffer) + index * 2, &b, 2);
    return;
  }
  std::memcpy(static_cast<char*>(buffer) + index * 4, &value, 4);
}

float InputValue(const CollectiveOp& op, int rank, size_t index, uint32_t seed) {
  return Reduces(op.collective) ? ReductionInput(op, rank, index, seed)
                                : MovedInput(rank, index, seed);
}

void WriteInput(const CollectiveOp& op, int rank, uint32_t seed, void* dst) {
  if (op.collective == Collective::kBroadcast && rank != op.root) return;
  for (size_t i = 0; i < op.counts.send_count; ++i) {
    StoreElement(op.dtype, dst, i, InputValue(op, rank, i, seed));
  }
}

float ExpectedValue(const CollectiveOp& op, int rank, size_t index, uint32_t seed, bool in_place) {
  const size_t chunk = op.counts.param_count;
  switch (op.collective) {
    case Collective::kAllReduce:
      return SumOverRanks(op, index, seed);
    case Collective::kReduce:
      if (rank == op.root) return SumOverRanks(op, index, seed);
      return in_place ? InputValue(op, rank, index, seed) : 0.0f;
    case Collective::kReduceScatter:
      // Rank r receives the sum of everyone's chunk r.
      return SumOverRanks(op, static_cast<size_t>(rank) * chunk + index, seed);
    case Collective::kAllGather:
      // Slot j holds rank j's input.
      return InputValue(op, static_cast<int>(index / chunk), index % chunk, seed);
    case Collective::kAlltoAll: {
      // Slot j holds rank j's chunk addressed to this rank.
      const int from = static_cast<int>(index / chunk);
      return InputValue(op, from, static_cast<size_t>(rank) * chunk + index % chunk, seed);
    }
    case Collective::kBroadcast:
      return InputValue(op, op.root, index, seed);
    case Collective::kSendRecv:
      // A ring: each rank receives from rank - 1.
      return InputValue(op, (rank - 1 + op.nranks) % op.nranks, index, seed);
  }
  return 0.0f;
}

int64_t CountWrong(const CollectiveOp& op, int rank, uint32_t seed, bool in_place,
                   const void* output) {
  int64_t wrong = 0;
  for (size_t i = 0; i < op.counts.recv_count; ++i) {
    // Exact comparison: every expected value is exactly representable (see the header).
    if (LoadElement(op.dtype, output, i) != ExpectedValue(op, rank, i, seed, in_place)) ++wrong;
  }
  return wrong;
}

}  // namespace ys::comm
