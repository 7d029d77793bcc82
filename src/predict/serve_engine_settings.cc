#include "predict/serve_engine_settings.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace ys::predict {
namespace {

constexpr double kBenchKvFraction = 0.95;  // calc_engine_setting's kv_cache_gpu_mem_fraction
constexpr double kBenchMaxRequests = 4096;
constexpr double kBenchMaxTokens = 32768;

// `v` rounded up to a multiple of `step`.
int RoundUpTo(double v, int step) { return step * static_cast<int>(std::ceil(v / step)); }

}  // namespace

BenchEngineSettings FinetuneBenchSettings(double kv_cache_max_requests, int isl, int osl, int pp) {
  BenchEngineSettings s;
  s.kv_cache_max_requests = kv_cache_max_requests;
  const double raw_bs = std::min(kv_cache_max_requests, kBenchMaxRequests) / pp;
  const double raw_tokens =
      std::min(raw_bs * (1 + static_cast<double>(isl) / osl), kBenchMaxTokens);
  if (raw_bs < 256) {
    s.max_batch_size = std::max(64, RoundUpTo(raw_bs, 32));
  } else {
    s.max_batch_size = RoundUpTo(raw_bs, raw_bs < 1024 ? 128 : 256);
  }
  if (raw_tokens < 4096) {
    s.max_num_tokens = std::max(2048, RoundUpTo(raw_tokens, 256));
  } else {
    s.max_num_tokens = RoundUpTo(raw_tokens, raw_tokens < 8192 ? 512 : 1024);
  }
  return s;
}

Result<BenchEngineSettings> TrtllmBenchEngineSettings(const ServeWork& w,
                                                      double device_memory_bytes, int tp, int pp,
                                                      int isl, int osl) {
  if (tp < 1 || pp < 1 || isl < 1 || osl < 1) {
    return Status::Invalid(
        fmt::format("trtllm-bench settings: tp {} pp {} isl {} osl {}: expected 1 or more each", tp,
                    pp, isl, osl));
  }
  const double kv_heads = std::max(1, w.kv_heads);
  const double kv_per_token = w.kv_split_by_tp
                                  ? w.kv_bytes_per_token * std::max<double>(tp, kv_heads) / kv_heads
                                  : w.kv_bytes_per_token;
  // Every parameter at the serving dtype's width (the embedding and head included).
  const double params =
      (w.body_bytes + w.routed_bytes) / w.bytes_per_param + (w.head_bytes + w.embed_bytes) / 2;
  // The heuristic's widths: 2, 1 and 0.5 bytes (nvfp4's block scales not counted).
  const double engine = params * (w.bytes_per_param < 1 ? 0.5 : w.bytes_per_param);
  const double total = device_memory_bytes * tp * pp;
  const double requests = kBenchKvFraction * (total - engine) / (kv_per_token * (isl + osl));
  if (!(engine < total) || !(requests >= 1)) {
    return Status::Invalid(fmt::format(
        "trtllm-bench settings: an engine of {:.3g} GB on {} GPUs of {:.3g} GB holds {:.3g} "
        "requests of {} tokens (trtllm-bench refuses fewer than 1)",
        engine / 1e9, tp * pp, device_memory_bytes / 1e9, requests, isl + osl));
  }
  return FinetuneBenchSettings(requests, isl, osl, pp);
}

}  // namespace ys::predict
