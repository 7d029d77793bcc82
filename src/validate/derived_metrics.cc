#include "validate/derived_metrics.h"

#include <fmt/format.h>

#include <cmath>

#include "core/range_check.h"

namespace ys::validate {

DerivedMetrics DeriveMetrics(std::optional<double> step_time_s,
                             std::optional<double> tflops_per_gpu,
                             std::optional<double> measured_tokens_per_s_per_gpu,
                             const JobShape& shape) {
  DerivedMetrics d;
  d.step_time_s = step_time_s;
  d.tflops_per_gpu = tflops_per_gpu;
  if (step_time_s && *step_time_s > 0) {
    if (shape.seq_len && shape.global_batch_size) {
      d.tokens_per_s = static_cast<double>(*shape.seq_len) *
                       static_cast<double>(*shape.global_batch_size) / *step_time_s;
      if (shape.gpus && *shape.gpus > 0) {
        d.tokens_per_s_per_gpu = *d.tokens_per_s / static_cast<double>(*shape.gpus);
      } else {
        d.missing.push_back("tokens/s/GPU needs the GPU count (--gpus or llmb-config scale)");
      }
    } else {
      if (!shape.seq_len) d.missing.push_back("tokens/s needs the sequence length (--seq)");
      if (!shape.global_batch_size) {
        d.missing.push_back("tokens/s needs the global batch size (--gbs, or printed in the log)");
      }
    }
  } else if (measured_tokens_per_s_per_gpu) {
    d.tokens_per_s_per_gpu = measured_tokens_per_s_per_gpu;
    if (shape.gpus && *shape.gpus > 0) {
      d.tokens_per_s = *measured_tokens_per_s_per_gpu * static_cast<double>(*shape.gpus);
    }
  }
  if (tflops_per_gpu) {
    if (shape.peak_tflops && *shape.peak_tflops > 0) {
      double mfu = *tflops_per_gpu / *shape.peak_tflops;
      if (std::isfinite(mfu) && mfu >= 0) {
        d.mfu = mfu;
      } else {
        d.missing.push_back(fmt::format(
            "MFU: {} TFLOPS/GPU / peak {} TFLOPS is not a finite figure (check the peak)",
            FormatRangeValue(*tflops_per_gpu), FormatRangeValue(*shape.peak_tflops)));
      }
    } else {
      d.missing.push_back("MFU needs the GPU's peak TFLOPS at this precision (--peak-tflops)");
    }
  }
  return d;
}

}  // namespace ys::validate
