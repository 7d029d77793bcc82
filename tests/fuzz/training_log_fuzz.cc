// Fuzz target: training-log and serving-benchmark ingestion (validate/ingest.cc IngestText), the
// whole path `yardstick ingest` takes over a file's text: binary detection, format detection
// (log_format.cc), the NeMo 2, Megatron (Bridge and LM) and torchtitan line parsers
// (nemo2_log.cc, megatron_log.cc, torchtitan_log.cc, training_log.cc), the serving-benchmark
// JSON reader (inference_result.cc), and the window and shape evaluation behind them.
// Selector byte: 0 auto-detect, 1 nemo2, 2 megatron, 3 torchtitan, 4 inference-json.
#include <nlohmann/json.hpp>

#include "fuzz_target.h"
#include "fuzz_util.h"
#include "validate/ingest.h"
#include "validate/log_format.h"
#include "validate/training_log.h"

YS_FUZZ_TARGET(training_log) {
  using namespace ys::validate;
  std::string_view text = ys::fuzz::AsText(data, size);
  std::optional<int> which = ys::fuzz::TakeSelector(&text, 5);
  if (!which) return 0;
  static constexpr LogFormat kFormats[] = {LogFormat::kAuto, LogFormat::kNemo2,
                                           LogFormat::kMegatron, LogFormat::kTorchtitan,
                                           LogFormat::kInferenceJson};
  IngestOptions options;
  options.format = kFormats[*which];
  (void)IngestText(text, options, "fuzz.log");
  if (*which == 0) (void)DetectLogFormat(text);
  return 0;
}
