// The serving proxy units: `serving.<model>` serves a synthetic request stream on this CPU with
// continuous batching, on real arithmetic, and prints what it measured beside the serving model's
// prediction for this CPU (predict/serve_model.h), as the training proxy
// (workloads/proxy/proxy_unit.h) prints its step beside the roofline.
//
// What runs: models/<model>.toml scaled down as the training proxy scales it (CpuScaleFactor of
// its CPU recipe, CpuScaledSpec; the vocabulary divided by the same factor), 2 layers, fp32
// OpenBLAS GEMMs with a KV cache per sequence (workloads/serving/internal/cpu_serving_engine.h); a
// closed-loop stream at a fixed concurrency, ISL and OSL, prefill first
// (workloads/serving_batcher.h). Defaults: concurrency 8, ISL 128, OSL 32, 32 counted requests
// after 8 warm-up ones; the site file's [unit."serving.<model>"] table sets concurrency, isl, osl,
// requests. One process on one node (Reach kNode: the node's first rank runs it) with one BLAS
// thread (the scaled GEMMs are too small to share across cores); the run stops admitting requests
// after 10 s (quick profile) or 60 s.
//
// Before and after the stream the engine times the CPU's rates at the serving shapes
// (workloads/serving/internal/serving_prediction.h); the prediction follows from them. The stated
// error of that prediction on this CPU is read from calibration/serve_cpu.toml and the unit says
// whether TTFT, TPOT and output tokens/s lie within it.
//
// Measurements: serving.<model>.ttft and .tpot (per counted request, seconds; params mean and
// p99), .output_tokens_per_s, .tokens_per_s_per_user, .requests_completed, .predicted_ttft,
// .predicted_tpot, .predicted_output_tokens_per_s (params: measured_over_predicted, the stated
// error and whether it is within, the model's terms). The quick profile runs serving.llama3.1_8b.
#ifndef YARDSTICK_WORKLOADS_SERVING_SERVING_UNIT_H_
#define YARDSTICK_WORKLOADS_SERVING_SERVING_UNIT_H_

#include <string_view>
#include <vector>

#include "bench/benchmark.h"

namespace ys::workloads {

inline constexpr std::string_view kQuickServingModel = "llama3.1_8b";

BenchmarkResult RunServingProxy(const bench::BenchContext& ctx, std::string_view model);

// One unit per model file: YS_REGISTER(ServingBenchmark<kModel>, {..., .needs =
// {Need::kLiveHost}, .params = ServingParams(), .measures = ServingMeasures()}).
template <const char* kModel>
class ServingBenchmark final : public bench::Benchmark {
 public:
  BenchmarkResult Run(const bench::BenchContext& ctx) const override {
    return RunServingProxy(ctx, kModel);
  }
};

std::vector<ParamSpec> ServingParams();
Measures ServingMeasures();

}  // namespace ys::workloads

#endif  // YARDSTICK_WORKLOADS_SERVING_SERVING_UNIT_H_
