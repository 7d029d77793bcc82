// Deterministic benchmark inputs: the same values on every run and machine, so that results can
// be compared bitwise (GEMM determinism) and data read back can be checked (storage).
#ifndef YARDSTICK_BENCH_DETERMINISTIC_DATA_H_
#define YARDSTICK_BENCH_DETERMINISTIC_DATA_H_

#include <cstdint>
#include <span>

namespace ys::bench {

// Uniform values in [-1, 1) from splitmix64 seeded with `seed`.
void FillDeterministic(std::span<float> out, uint64_t seed);
void FillDeterministic(std::span<double> out, uint64_t seed);

}  // namespace ys::bench

#endif  // YARDSTICK_BENCH_DETERMINISTIC_DATA_H_
