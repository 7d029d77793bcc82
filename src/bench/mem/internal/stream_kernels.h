// McCalpin's STREAM (https://www.cs.virginia.edu/stream/), its four kernels, byte counts and
// validation, run on threads pinned to given CPUs with first-touch placement.
//
// Arithmetic, as stream.c counts it: per element, copy (c = a) and scale (b = s*c) move 2 arrays
// of 8 bytes (16 B), add (c = a + b) and triad (a = b + s*c) move 3 (24 B); write-allocate
// traffic is not counted. Rates are in GB/s (1e9 bytes/s). STREAM's "best rate" is from the
// shortest time of the timed iterations; we keep every sample so the median is reported too.
//
// This file is compiled with -O3 (CMakeLists.txt), as stream.c is usually built, so that the
// kernels vectorise; bench/stream_vs_peer.sh builds stream.c with the same flags.
#ifndef YARDSTICK_BENCH_MEM_INTERNAL_STREAM_KERNELS_H_
#define YARDSTICK_BENCH_MEM_INTERNAL_STREAM_KERNELS_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/status.h"

namespace ys::bench {

enum class StreamKernel { kCopy = 0, kScale = 1, kAdd = 2, kTriad = 3 };
inline constexpr std::array<StreamKernel, 4> kStreamKernels = {
    StreamKernel::kCopy, StreamKernel::kScale, StreamKernel::kAdd, StreamKernel::kTriad};
inline constexpr double kStreamScalar = 3.0;  // stream.c's scalar

const char* StreamKernelName(StreamKernel k);  // "copy", "scale", "add", "triad"
// Arrays each kernel reads or writes per element: 2 for copy and scale, 3 for add and triad.
int StreamArraysTouched(StreamKernel k);
// STREAM's rule: each array at least four times the last-level caches of the CPUs that run.
inline constexpr int kStreamCacheMultiple = 4;
// Bytes STREAM counts for one kernel pass over `elements` doubles.
uint64_t StreamBytes(StreamKernel k, uint64_t elements);
// Bytes per array: `cache_multiple` times `llc_bytes` (STREAM's rule: at least four), rounded up
// to a whole MiB.
uint64_t StreamArrayBytes(uint64_t llc_bytes, int cache_multiple = kStreamCacheMultiple);

// The values every element of a, b, c holds after `iterations` passes of the four kernels from
// STREAM's start (a = 2, b = 2, c = 0: stream.c sets a = 1 and doubles it before timing).
struct StreamValues {
  double a = 0, b = 0, c = 0;
};
StreamValues ExpectedStreamValues(int iterations);

// One array that failed validation.
struct StreamMismatch {
  std::string array;            // "a", "b" or "c"
  uint64_t wrong_elements = 0;  // elements off by more than the relative epsilon
  uint64_t first_index = 0;
  double expected = 0, actual = 0;  // at first_index
  double avg_rel_error = 0;         // stream.c's test: mean |x - expected| / expected
};
// stream.c's checkSTREAMresults: an array fails when its average relative error exceeds 1e-13
// (double). We also fail an array when any single element is off by more than 1e-13 relative,
// which stream.c only counts after the average test failed: one corrupt element in a large
// array can hide under the average. Empty when all three arrays are right.
std::vector<StreamMismatch> ValidateStream(std::span<const double> a, std::span<const double> b,
                                           std::span<const double> c, int iterations);

// Seconds per kernel per timed iteration (warm-up iterations excluded).
struct StreamRun {
  std::array<std::vector<double>, 4> seconds;  // indexed by StreamKernel
  std::vector<StreamMismatch> mismatches;      // validation after all iterations
};

// Allocates three arrays of `elements` doubles without touching them, has thread i (pinned to
// cpus[i]) initialise its contiguous share of each (so its pages are placed on its NUMA node),
// then runs `warmup` + `iters` iterations of copy, scale, add, triad, each kernel timed by thread
// 0 from before the barrier that starts it to after the barrier that ends it on all threads (as
// stream.c times an OpenMP parallel loop), and validates the arrays. The barriers spin before
// they sleep, as OpenMP's threads wait, so the timed span holds the kernel and about a
// microsecond of synchronisation, not a futex wake-up (bench/stream_vs_peer.sh states the
// method side by side with stream.c's). Error when memory cannot be allocated or a thread cannot
// be pinned.
Result<StreamRun> RunStream(const std::vector<int>& cpus, uint64_t elements, int warmup, int iters);

}  // namespace ys::bench

#endif  // YARDSTICK_BENCH_MEM_INTERNAL_STREAM_KERNELS_H_
