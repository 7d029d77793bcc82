// Throughput figures derived from the window's step time and TFLOPS (llama3.1/README.md
// "Derived metrics"):
//   tokens/s         = seq_len x global batch size / step time
//   tokens/s/GPU     = tokens/s / GPUs
//   MFU              = TFLOPS/GPU / peak TFLOPS of the GPU at the run's precision
// The peak is always given by the caller (specs/, or --peak-tflops); nothing here knows a GPU.
// A figure whose inputs are missing stays empty, and `missing` says which input it needed.
#ifndef YARDSTICK_VALIDATE_DERIVED_METRICS_H_
#define YARDSTICK_VALIDATE_DERIVED_METRICS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ys::validate {

// The job shape the derivation needs, with where each value came from ("caller", "llmb-config",
// "log").
struct JobShape {
  std::optional<int64_t> seq_len;
  std::optional<int64_t> global_batch_size;
  std::optional<int64_t> gpus;
  std::optional<double> peak_tflops;
  std::string seq_len_source, global_batch_size_source, gpus_source, peak_tflops_source;
  bool operator==(const JobShape&) const = default;
};

struct DerivedMetrics {
  std::optional<double> step_time_s;  // window mean
  std::optional<double> tokens_per_s;
  std::optional<double> tokens_per_s_per_gpu;
  std::optional<double> tflops_per_gpu;  // window mean of reported (non-zero) TFLOPS
  std::optional<double> mfu;             // fraction, 0.46 = 46%
  std::vector<std::string> missing;      // "tokens/s needs --seq", ...
  bool operator==(const DerivedMetrics&) const = default;
};

// `measured_tokens_per_s_per_gpu`: torchtitan prints tokens/s/GPU itself; it is used when the
// step time is unknown.
DerivedMetrics DeriveMetrics(std::optional<double> step_time_s,
                             std::optional<double> tflops_per_gpu,
                             std::optional<double> measured_tokens_per_s_per_gpu,
                             const JobShape& shape);

}  // namespace ys::validate

#endif  // YARDSTICK_VALIDATE_DERIVED_METRICS_H_
