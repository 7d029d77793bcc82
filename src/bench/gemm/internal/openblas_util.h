// What the CPU GEMM units share: the OpenBLAS build in use, its thread count, GEMM arithmetic.
#ifndef YARDSTICK_BENCH_GEMM_INTERNAL_OPENBLAS_UTIL_H_
#define YARDSTICK_BENCH_GEMM_INTERNAL_OPENBLAS_UTIL_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "bench/benchmark.h"
#include "bench/deterministic_data.h"

namespace ys::bench {

// openblas_get_corename(), openblas_get_config(), openblas_get_num_threads().
struct OpenBlasInfo {
  std::string corename;  // "Haswell" (OPENBLAS_CORETYPE forces it)
  std::string config;    // "OpenBLAS 0.3.21 DYNAMIC_ARCH NO_AFFINITY Haswell MAX_THREADS=64"
  int threads = 0;
};
OpenBlasInfo QueryOpenBlas();

// Sets OpenBLAS's thread count for its lifetime and restores the previous count after.
// openblas_set_num_threads is process-wide: no other thread may call BLAS meanwhile.
class ScopedOpenBlasThreads {
 public:
  explicit ScopedOpenBlasThreads(int threads);
  ~ScopedOpenBlasThreads();
  ScopedOpenBlasThreads(const ScopedOpenBlasThreads&) = delete;
  ScopedOpenBlasThreads& operator=(const ScopedOpenBlasThreads&) = delete;

 private:
  int previous_;
};

// C (m x n) = A (m x k) . B (k x n), row-major, no transposes.
struct GemmShape {
  std::string name;  // "square", "qkv", "mlp_up", "mlp_down"
  int64_t m = 0, n = 0, k = 0;
};
// 2 m n k: one multiply and one add per term of each of the m n dot products of length k.
double GemmFlops(const GemmShape& s);

// Scaled-down transformer layer (stated in each measurement's params): tokens x hidden input,
//   qkv      tokens x 3*hidden x hidden   (the fused Q, K, V projection)
//   mlp_up   tokens x 4*hidden x hidden
//   mlp_down tokens x hidden   x 4*hidden
std::vector<GemmShape> TransformerShapes(int64_t tokens, int64_t hidden);

// The shapes gemm.cpu runs: full profile squares 1024, 2048, 4096 and the transformer shapes at
// tokens 2048, hidden 2048; quick profile squares 512, 1024 and tokens 512, hidden 1024. With
// --sizes, squares of each size of the sweep (taken as M = N = K) and no transformer shapes.
// Invalid when a size is above 32768 (three such fp64 matrices need 24 GiB).
Result<std::vector<GemmShape>> CpuGemmShapes(const BenchContext& ctx);

}  // namespace ys::bench

#endif  // YARDSTICK_BENCH_GEMM_INTERNAL_OPENBLAS_UTIL_H_
