// Bitwise comparison of two result buffers, for the determinism checks (identical inputs must
// give bit-identical outputs: the silent-data-corruption test gpu-burn and Imbue run). A
// mismatch reports the first differing element with both bit patterns, so an operator can tell
// a flipped bit from a different rounding.
#ifndef YARDSTICK_BENCH_BITWISE_COMPARE_H_
#define YARDSTICK_BENCH_BITWISE_COMPARE_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace ys::bench {

struct BitMismatch {
  size_t first_index = 0;      // element index
  uint64_t expected_bits = 0;  // the element's bytes as an unsigned integer (little end first)
  uint64_t actual_bits = 0;
  size_t differing_elements = 0;
};

// Compares `count` elements of `elem_bytes` (1..8) each; nullopt when the buffers are equal
// byte for byte (memcmp). The caller guarantees both hold count * elem_bytes bytes.
std::optional<BitMismatch> FindBitMismatch(const void* expected, const void* actual, size_t count,
                                           size_t elem_bytes);

inline std::optional<BitMismatch> FindBitMismatch(std::span<const float> expected,
                                                  std::span<const float> actual) {
  return FindBitMismatch(expected.data(), actual.data(), std::min(expected.size(), actual.size()),
                         sizeof(float));
}

// "element 17: expected 0x3f800000, got 0x3f800001 (3 elements differ)"
std::string DescribeBitMismatch(const BitMismatch& m, size_t elem_bytes);

}  // namespace ys::bench

#endif  // YARDSTICK_BENCH_BITWISE_COMPARE_H_
