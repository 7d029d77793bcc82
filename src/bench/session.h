// A benchmark session: what the options select, and the conditions that make this session's
// numbers untrustworthy (a forced BLAS kernel, ...). The job (job/job.h) runs the units.
#ifndef YARDSTICK_BENCH_SESSION_H_
#define YARDSTICK_BENCH_SESSION_H_

#include "bench/benchmark.h"
#include "bench/runner.h"
#include "core/run_document.h"

namespace ys::bench {

// Invalid when the filters select no benchmark (the same answer on every rank).
Status CheckSelection(const BenchOptions& options);

// Warnings for the run document.
std::vector<std::string> SessionWarnings(const BenchContext& ctx);

// The ids the options select, sorted.
std::vector<std::string> SelectedBenchmarks(const BenchOptions& options);

}  // namespace ys::bench

#endif  // YARDSTICK_BENCH_SESSION_H_
