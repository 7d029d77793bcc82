#include "bench/deterministic_data.h"

namespace ys::bench {
namespace {

uint64_t SplitMix64(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// 53 random bits scaled to [-1, 1).
double Uniform(uint64_t& state) {
  return static_cast<double>(SplitMix64(state) >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

}  // namespace

void FillDeterministic(std::span<float> out, uint64_t seed) {
  for (float& x : out) x = static_cast<float>(Uniform(seed));
}

void FillDeterministic(std::span<double> out, uint64_t seed) {
  for (double& x : out) x = Uniform(seed);
}

}  // namespace ys::bench
