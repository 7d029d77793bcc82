// One benchmark session on this rank: checks the selection, runs the units (runner.h), and adds
// to the run document the results and the conditions that make the numbers untrustworthy (a
// forced BLAS kernel, other busy processes, a debug build). Every rank of a job calls it with
// the same options.
#ifndef YARDSTICK_BENCH_SESSION_H_
#define YARDSTICK_BENCH_SESSION_H_

#include "bench/benchmark.h"
#include "bench/runner.h"
#include "core/report.h"

namespace ys::bench {

// Invalid when the filters select no benchmark (nothing runs then, on any rank).
Status RunBenchSession(const BenchContext& ctx, RunDocument& doc, const OnBenchmarkResult& on_result = {});

// The ids the options select, sorted.
std::vector<std::string> SelectedBenchmarks(const BenchOptions& options);

}  // namespace ys::bench

#endif  // YARDSTICK_BENCH_SESSION_H_
