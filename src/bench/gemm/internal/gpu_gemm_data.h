// Inputs and checks of gemm.gpu, apart from the GPU so that they are tested here: the element
// encodings (bf16, fp16, fp32 for TF32, fp8 E4M3), a seeded tile of random inputs, and the
// double-precision reference that bounds each sampled output element.
//
// Inputs are random like real activations and weights (a bit pattern of zeros would draw less
// power and flatter the clock): sign * (1 + mantissa) * 2^-e, e in {1, 2, 3}, every mantissa bit
// random, exactly representable in the format, so that products are exact and the only errors
// are the accumulation and the output rounding. A buffer repeats one tile of such elements.
#ifndef YARDSTICK_BENCH_GEMM_INTERNAL_GPU_GEMM_DATA_H_
#define YARDSTICK_BENCH_GEMM_INTERNAL_GPU_GEMM_DATA_H_

#include <cstdint>
#include <vector>

#include "gpu/cublaslt.h"

namespace ys::bench {

// Elements in one input tile (a buffer repeats it).
inline constexpr size_t kGemmTileElements = size_t{1} << 22;

// A tile of kGemmTileElements encoded elements of the precision's input type.
std::vector<unsigned char> MakeGemmInputTile(gpu::GemmPrecision p, uint64_t seed);

// Value of one encoded input element (A, B) and one output element (D).
double DecodeGemmInput(gpu::GemmPrecision p, const unsigned char* element);
double DecodeGemmOutput(gpu::GemmPrecision p, const unsigned char* element);
// The raw decoders, exposed for tests.
double DecodeBf16(uint16_t bits);
double DecodeFp16(uint16_t bits);
double DecodeE4m3(uint8_t bits);

// The allowed |D - reference| for one element: accumulation and (for TF32) input rounding relative
// to sum |a*b|, plus the output rounding relative to |reference|.
double GemmErrorBound(gpu::GemmPrecision p, double sum_abs_products, double reference);

struct ReferenceCheck {
  int checked = 0;
  int outside = 0;                         // elements beyond the bound
  double worst_ratio = 0;                  // max |D - ref| / bound
  int64_t first_row = -1, first_col = -1;  // first element beyond the bound
};

// Compares `samples` output elements spread over D (m x n, column-major, ld m) with the reference
// sum_k A(k, i) * B(k, j), where A and B are buffers repeating the tiles `a_tile` and `b_tile`
// (A stored k x m with ld k, B k x n with ld k, as gpu::GemmPlan lays them out).
ReferenceCheck CheckAgainstReference(gpu::GemmPrecision p, const gpu::GemmShape& shape,
                                     const std::vector<unsigned char>& a_tile,
                                     const std::vector<unsigned char>& b_tile,
                                     const std::vector<unsigned char>& d, int samples);

// Elements (of the output type) that differ bytewise between two outputs of the same size.
uint64_t CountDifferentElements(gpu::GemmPrecision p, const std::vector<unsigned char>& x,
                                const std::vector<unsigned char>& y);

}  // namespace ys::bench

#endif  // YARDSTICK_BENCH_GEMM_INTERNAL_GPU_GEMM_DATA_H_
