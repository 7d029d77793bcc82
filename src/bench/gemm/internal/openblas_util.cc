#include "bench/gemm/internal/openblas_util.h"

#include <cblas.h>

namespace ys::bench {

OpenBlasInfo QueryOpenBlas() {
  OpenBlasInfo info;
  if (const char* core = openblas_get_corename()) info.corename = core;
  if (const char* config = openblas_get_config()) info.config = config;
  info.threads = openblas_get_num_threads();
  return info;
}

ScopedOpenBlasThreads::ScopedOpenBlasThreads(int threads) : previous_(openblas_get_num_threads()) {
  openblas_set_num_threads(threads);
}

ScopedOpenBlasThreads::~ScopedOpenBlasThreads() { openblas_set_num_threads(previous_); }

double GemmFlops(const GemmShape& s) {
  return 2.0 * static_cast<double>(s.m) * static_cast<double>(s.n) * static_cast<double>(s.k);
}

std::vector<GemmShape> TransformerShapes(int64_t tokens, int64_t hidden) {
  return {{"qkv", tokens, 3 * hidden, hidden},
          {"mlp_up", tokens, 4 * hidden, hidden},
          {"mlp_down", tokens, hidden, 4 * hidden}};
}

Result<std::vector<GemmShape>> CpuGemmShapes(const BenchContext& ctx) {
  std::vector<GemmShape> out;
  if (const auto& sweep = ctx.options().sizes) {
    for (uint64_t n : sweep->Sizes()) {
      if (n > 32768) {
        return Status::Invalid("--sizes: GEMM dimension " + std::to_string(n) +
                               " is above 32768 (gemm.cpu takes --sizes as M = N = K)");
      }
      out.push_back(
          {"square", static_cast<int64_t>(n), static_cast<int64_t>(n), static_cast<int64_t>(n)});
    }
    return out;
  }
  std::vector<int64_t> squares =
      ctx.quick() ? std::vector<int64_t>{512, 1024} : std::vector<int64_t>{1024, 2048, 4096};
  for (int64_t n : squares) out.push_back({"square", n, n, n});
  for (auto& s : ctx.quick() ? TransformerShapes(512, 1024) : TransformerShapes(2048, 2048)) {
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace ys::bench
