#include "bench/bitwise_compare.h"

#include <fmt/format.h>

#include <cstring>

namespace ys::bench {
namespace {

uint64_t Bits(const unsigned char* p, size_t elem_bytes) {
  uint64_t v = 0;
  for (size_t i = 0; i < elem_bytes; ++i) v |= static_cast<uint64_t>(p[i]) << (8 * i);
  return v;
}

}  // namespace

std::optional<BitMismatch> FindBitMismatch(const void* expected, const void* actual, size_t count,
                                           size_t elem_bytes) {
  if (elem_bytes == 0 || elem_bytes > 8) return std::nullopt;
  if (std::memcmp(expected, actual, count * elem_bytes) == 0) return std::nullopt;
  const auto* e = static_cast<const unsigned char*>(expected);
  const auto* a = static_cast<const unsigned char*>(actual);
  BitMismatch m;
  for (size_t i = 0; i < count; ++i) {
    const size_t off = i * elem_bytes;
    if (std::memcmp(e + off, a + off, elem_bytes) == 0) continue;
    if (m.differing_elements == 0) {
      m.first_index = i;
      m.expected_bits = Bits(e + off, elem_bytes);
      m.actual_bits = Bits(a + off, elem_bytes);
    }
    ++m.differing_elements;
  }
  return m;
}

std::string DescribeBitMismatch(const BitMismatch& m, size_t elem_bytes) {
  int digits = static_cast<int>(2 * elem_bytes);
  return fmt::format("element {}: expected 0x{:0{}x}, got 0x{:0{}x} ({} element{} differ{})",
                     m.first_index, m.expected_bits, digits, m.actual_bits, digits,
                     m.differing_elements, m.differing_elements == 1 ? "" : "s",
                     m.differing_elements == 1 ? "s" : "");
}

}  // namespace ys::bench
