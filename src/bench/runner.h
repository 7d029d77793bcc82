// Runs benchmark units: selects them by glob, decides where each runs (collectives on every
// rank; node-local units on each node's first rank), times each, contains failures (an
// exception or an unknown finding code becomes an error for that unit alone).
//
// Every rank calls RunBenchmarks with the same options, in the same order: collective units
// must be entered by all ranks together.
#ifndef YARDSTICK_BENCH_RUNNER_H_
#define YARDSTICK_BENCH_RUNNER_H_

#include <functional>
#include <string_view>
#include <vector>

#include "bench/benchmark.h"

namespace ys::bench {

// Called after each unit on the rank that ran it, e.g. for progress on a terminal.
using OnBenchmarkResult = std::function<void(const BenchmarkResult&)>;

// Whether this rank runs `bench`: every rank for collective and per-rank units, the node's first
// rank (local rank 0; every process without a launcher) for node-local ones.
bool RunsOnThisRank(const Benchmark* bench, const BenchContext& ctx);

std::vector<BenchmarkResult> RunBenchmarks(const BenchContext& ctx, const OnBenchmarkResult& on_result = {});

// Runs one registered benchmark by id on this rank (tests). Error outcome when the id is unknown.
BenchmarkResult RunBenchmark(const BenchContext& ctx, std::string_view id);

}  // namespace ys::bench

#endif  // YARDSTICK_BENCH_RUNNER_H_
