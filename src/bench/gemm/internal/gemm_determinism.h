// The comparison behind gemm.cpu.determinism, apart from the BLAS calls so that tests can feed
// it buffers (a planted bit flip must be caught).
#ifndef YARDSTICK_BENCH_GEMM_INTERNAL_GEMM_DETERMINISM_H_
#define YARDSTICK_BENCH_GEMM_INTERNAL_GEMM_DETERMINISM_H_

#include <vector>

#include "bench/bitwise_compare.h"
#include "core/run_document.h"

namespace ys::bench {

// One sgemm output: which CPU computed it and which repeat it was there.
struct GemmRunOutput {
  int cpu = 0;
  int repeat = 0;
  std::vector<float> c;
};

struct GemmRunMismatch {
  int cpu = 0;
  int repeat = 0;
  BitMismatch mismatch;
};

// Every output compared bitwise with the first (the reference); one entry per differing output.
std::vector<GemmRunMismatch> CompareGemmRuns(const std::vector<GemmRunOutput>& runs);

// The YS-BENCH-010 finding for the mismatches against `reference`, with the first differing
// element of the first differing run (index, both bit patterns and values) in the evidence.
Finding GemmDeterminismFinding(const GemmRunOutput& reference,
                               const std::vector<GemmRunMismatch>& bad, int n, size_t runs);

}  // namespace ys::bench

#endif  // YARDSTICK_BENCH_GEMM_INTERNAL_GEMM_DETERMINISM_H_
