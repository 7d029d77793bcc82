// Runs benchmark units through the one unit runner (core/unit_runner.h): selects them by glob,
// decides where each runs (collectives on every rank; node-local units on each node's first
// rank) and answers their needs from the bench context; the runner skips a unit with the reason
// when a need is not met, times it and contains failures (an exception or an unknown finding
// code becomes an error for that unit alone).
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

// Ok when the bench context provides `need`. Need::kGpu: the operator allows the GPU backend
// ("--backend cpu" otherwise) and the CUDA driver loads (its status text otherwise).
// Need::kLiveHost: "not the live host: nothing to measure". Need::kMpi: more than one rank.
Status BenchContextProvides(const BenchContext& ctx, Need need);

std::vector<BenchmarkResult> RunBenchmarks(const BenchContext& ctx,
                                           const OnBenchmarkResult& on_result = {});

// Runs one registered benchmark by id on this rank (tests). Error outcome when the id is unknown.
BenchmarkResult RunBenchmark(const BenchContext& ctx, std::string_view id);

}  // namespace ys::bench

#endif  // YARDSTICK_BENCH_RUNNER_H_
