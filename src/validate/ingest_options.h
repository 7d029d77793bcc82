// What the caller tells ingestion: the format (or auto), the window, and the job shape that
// turns step times into tokens/s and TFLOPS into MFU.
#ifndef YARDSTICK_VALIDATE_INGEST_OPTIONS_H_
#define YARDSTICK_VALIDATE_INGEST_OPTIONS_H_

#include <cstdint>
#include <optional>

#include "validate/llmb_config.h"
#include "validate/log_format.h"
#include "validate/measurement_window.h"

namespace ys::validate {

inline constexpr uint64_t kDefaultMaxLogBytes = uint64_t{2} << 30;  // 2 GiB

struct IngestOptions {
  LogFormat format = LogFormat::kAuto;
  MeasurementWindow window;
  // Given values win over what the log or its llmb-config says; a disagreement is noted.
  std::optional<int64_t> seq_len;
  std::optional<int64_t> global_batch_size;
  std::optional<int64_t> gpus;
  // Serving: the concurrency the load generator held, for the points whose file does not say.
  std::optional<int64_t> concurrency;
  std::optional<double> peak_tflops;  // of the GPU at the run's precision; feeds MFU
  // IngestLog: read llmb-config_<JOBID>.yaml beside a "log-<exp>_<JOBID>_<retry>.out".
  bool read_llmb_config = true;
  // A config the caller already read (IngestText; IngestLog when set).
  std::optional<LlmbConfig> config;
  uint64_t max_bytes = kDefaultMaxLogBytes;  // larger files are refused
};

}  // namespace ys::validate

#endif  // YARDSTICK_VALIDATE_INGEST_OPTIONS_H_
