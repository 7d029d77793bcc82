// The proxy workload units: `proxy.<model>` runs one rank's training step of models/<model>.toml
// (workloads/proxy_plan.h) on every rank of the job together, beside its roofline prediction.
//
// On CPUs (the only backend so far): the model's CPU recipe (CpuRecipe), scaled down by
// CpuScaleFactor, 2 layers (3 for hybrid stacks: one of each kind), one micro batch, fp32
// OpenBLAS GEMMs and MPI collectives; every choice is stated in the evidence. Calibration times
// each distinct op alone, then warm-up steps, then timed steps (20; quick profile 8). Each rank's
// step times are kept; the job's step k takes as long as its slowest rank. Over the timed steps
// the CPU time that processes outside the job took on the job's cores is measured
// (host/foreign_cpu.h).
//
// Measurements: proxy.<model>.step_time (job series), .rank_step_time (param rank),
// .predicted_step_time, .tokens_per_s_per_gpu, .model_tflops_per_gpu (% of the CPU's fp32 peak),
// .foreign_cpu_share; evidence foreign_process.N, the step-time analysis, the plan's notes.
// The quick profile (`yardstick run`) runs proxy.llama3.1_8b only; the other models skip there.
#ifndef YARDSTICK_WORKLOADS_PROXY_PROXY_UNIT_H_
#define YARDSTICK_WORKLOADS_PROXY_PROXY_UNIT_H_

#include <string_view>

#include "bench/benchmark.h"

namespace ys::workloads {

// The model the quick profile runs.
inline constexpr std::string_view kQuickProxyModel = "llama3.1_8b";

BenchmarkResult RunProxy(const bench::BenchContext& ctx, std::string_view model);

// One unit per model file, registered with YS_REGISTER(ProxyBenchmark<kModel>, {...}) and
// needs = {Need::kLiveHost}: on a recorded tree there is nothing to measure.
template <const char* kModel>
class ProxyBenchmark final : public bench::Benchmark {
 public:
  BenchmarkResult Run(const bench::BenchContext& ctx) const override {
    return RunProxy(ctx, kModel);
  }
  bool RunsOnAllRanks() const override { return true; }
};

// What every proxy unit measures (core/figure_spec.h). The time breakdown, the plan's FLOPs and
// tokens and the foreign-CPU method string describe a value: they are not identity.
Measures ProxyMeasures();

}  // namespace ys::workloads

#endif  // YARDSTICK_WORKLOADS_PROXY_PROXY_UNIT_H_
