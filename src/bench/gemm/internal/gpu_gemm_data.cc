#include "bench/gemm/internal/gpu_gemm_data.h"

#include <cmath>
#include <cstring>

namespace ys::bench {
namespace {

uint64_t Next(uint64_t& s) {  // splitmix64: seedable, good bits
  uint64_t z = (s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

double DecodeFp32(const unsigned char* e) {
  float f;
  std::memcpy(&f, e, 4);
  return f;
}

uint16_t Load16(const unsigned char* e) {
  uint16_t v;
  std::memcpy(&v, e, 2);
  return v;
}

}  // namespace

double DecodeBf16(uint16_t bits) {
  uint32_t w = static_cast<uint32_t>(bits) << 16;
  float f;
  std::memcpy(&f, &w, 4);
  return f;
}

double DecodeFp16(uint16_t bits) {
  int sign = bits >> 15, exp = (bits >> 10) & 0x1f, mant = bits & 0x3ff;
  double v;
  if (exp == 0) {
    v = std::ldexp(mant, -24);  // subnormal: mant * 2^-10 * 2^-14
  } else if (exp == 31) {
    v = mant == 0 ? INFINITY : NAN;
  } else {
    v = std::ldexp(1024 + mant, exp - 25);  // (1 + mant/1024) * 2^(exp-15)
  }
  return sign ? -v : v;
}

double DecodeE4m3(uint8_t bits) {
  int sign = bits >> 7, exp = (bits >> 3) & 0xf, mant = bits & 0x7;
  if (exp == 15 && mant == 7) return NAN;  // E4M3 has no infinity
  double v = exp == 0 ? std::ldexp(mant, -9) : std::ldexp(8 + mant, exp - 10);
  return sign ? -v : v;
}

double DecodeGemmInput(gpu::GemmPrecision p, const unsigned char* e) {
  switch (p) {
    case gpu::GemmPrecision::kBf16:
      return DecodeBf16(Load16(e));
    case gpu::GemmPrecision::kFp16:
      return DecodeFp16(Load16(e));
    case gpu::GemmPrecision::kTf32:
      return DecodeFp32(e);
    case gpu::GemmPrecision::kFp8E4m3:
      return DecodeE4m3(*e);
  }
  return NAN;
}

double DecodeGemmOutput(gpu::GemmPrecision p, const unsigned char* e) {
  switch (p) {
    case gpu::GemmPrecision::kFp16:
      return DecodeFp16(Load16(e));
    case gpu::GemmPrecision::kTf32:
      return DecodeFp32(e);
    case gpu::GemmPrecision::kBf16:
    case gpu::GemmPrecision::kFp8E4m3:
      return DecodeBf16(Load16(e));  // FP8 GEMMs write BF16 here
  }
  return NAN;
}

std::vector<unsigned char> MakeGemmInputTile(gpu::GemmPrecision p, uint64_t seed) {
  const size_t width = gpu::GemmInputBytes(p);
  std::vector<unsigned char> tile(kGemmTileElements * width);
  uint64_t state = seed;
  for (size_t i = 0; i < kGemmTileElements; ++i) {
    uint64_t r = Next(state);
    uint32_t sign = r & 1, e = 1 + static_cast<uint32_t>((r >> 1) % 3);
    uint64_t mant = r >> 8;
    unsigned char* out = tile.data() + i * width;
    switch (p) {
      case gpu::GemmPrecision::kBf16: {
        uint16_t v = static_cast<uint16_t>(sign << 15 | (127 - e) << 7 | (mant & 0x7f));
        std::memcpy(out, &v, 2);
        break;
      }
      case gpu::GemmPrecision::kFp16: {
        uint16_t v = static_cast<uint16_t>(sign << 15 | (15 - e) << 10 | (mant & 0x3ff));
        std::memcpy(out, &v, 2);
        break;
      }
      case gpu::GemmPrecision::kTf32: {
        uint32_t v = sign << 31 | (127 - e) << 23 | static_cast<uint32_t>(mant & 0x7fffff);
        std::memcpy(out, &v, 4);
        break;
      }
      case gpu::GemmPrecision::kFp8E4m3:
        *out = static_cast<unsigned char>(sign << 7 | (7 - e) << 3 | (mant & 0x7));
        break;
    }
  }
  return tile;
}

double GemmErrorBound(gpu::GemmPrecision p, double sum_abs_products, double reference) {
  // Relative to sum |a*b|: FP32 accumulation over K terms (worst case well under 2^-9 for the
  // K used here), plus for TF32 the rounding of both inputs to 10 mantissa bits, and for FP8 the
  // tensor core's narrower partial sums; relative to |ref|: one rounding to the output type.
  double accumulate = 0, output = 0;
  switch (p) {
    case gpu::GemmPrecision::kBf16:
      accumulate = 0x1p-9;
      output = 0x1p-8;
      break;
    case gpu::GemmPrecision::kFp16:
      accumulate = 0x1p-9;
      output = 0x1p-10;
      break;
    case gpu::GemmPrecision::kTf32:
      accumulate = 0x1p-8;
      output = 0x1p-22;
      break;
    case gpu::GemmPrecision::kFp8E4m3:
      accumulate = 0x1p-8;
      output = 0x1p-8;
      break;
  }
  return accumulate * sum_abs_products + output * std::fabs(reference) + 1e-30;
}

ReferenceCheck CheckAgainstReference(gpu::GemmPrecision p, const gpu::GemmShape& shape,
                                     const std::vector<unsigned char>& a_tile,
                                     const std::vector<unsigned char>& b_tile,
                                     const std::vector<unsigned char>& d, int samples) {
  ReferenceCheck out;
  const size_t in_width = gpu::GemmInputBytes(p), out_width = gpu::GemmOutputBytes(p);
  const size_t a_elems = a_tile.size() / in_width, b_elems = b_tile.size() / in_width;
  if (a_elems == 0 || b_elems == 0 || d.size() < static_cast<size_t>(shape.m * shape.n) * out_width)
    return out;
  uint64_t state = 0x5eed;
  for (int s = 0; s < samples; ++s) {
    // Corners first (a layout mistake shows there), then spread positions.
    int64_t i, j;
    if (s < 4) {
      i = (s & 1) ? shape.m - 1 : 0;
      j = (s & 2) ? shape.n - 1 : 0;
    } else {
      i = static_cast<int64_t>(Next(state) % static_cast<uint64_t>(shape.m));
      j = static_cast<int64_t>(Next(state) % static_cast<uint64_t>(shape.n));
    }
    double ref = 0, sum_abs = 0;
    for (int64_t kk = 0; kk < shape.k; ++kk) {
      size_t ai = static_cast<size_t>(i * shape.k + kk) % a_elems;
      size_t bi = static_cast<size_t>(j * shape.k + kk) % b_elems;
      double prod = DecodeGemmInput(p, a_tile.data() + ai * in_width) *
                    DecodeGemmInput(p, b_tile.data() + bi * in_width);
      ref += prod;
      sum_abs += std::fabs(prod);
    }
    double got = DecodeGemmOutput(p, d.data() + static_cast<size_t>(j * shape.m + i) * out_width);
    double bound = GemmErrorBound(p, sum_abs, ref);
    double ratio = std::isfinite(got) ? std::fabs(got - ref) / bound : INFINITY;
    ++out.checked;
    out.worst_ratio = std::max(out.worst_ratio, ratio);
    if (!(ratio <= 1.0)) {
      if (out.outside++ == 0) {
        out.first_row = i;
        out.first_col = j;
      }
    }
  }
  return out;
}

uint64_t CountDifferentElements(gpu::GemmPrecision p, const std::vector<unsigned char>& x,
                                const std::vector<unsigned char>& y) {
  const size_t w = gpu::GemmOutputBytes(p);
  if (x.size() != y.size()) return std::max(x.size(), y.size()) / w;
  uint64_t diff = 0;
  for (size_t i = 0; i + w <= x.size(); i += w)
    diff += std::memcmp(x.data() + i, y.data() + i, w) != 0;
  return diff;
}

}  // namespace ys::bench
