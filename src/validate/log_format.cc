#include "validate/log_format.h"

#include <string>

#include "core/text.h"
#include "validate/log_line.h"
#include "validate/training_log.h"

namespace ys::validate {

const char* LogFormatName(LogFormat f) {
  switch (f) {
    case LogFormat::kAuto:
      return "auto";
    case LogFormat::kNemo2:
      return "nemo2";
    case LogFormat::kMegatron:
      return "megatron";
    case LogFormat::kTorchtitan:
      return "torchtitan";
    case LogFormat::kInferenceJson:
      return "inference-json";
  }
  return "auto";
}

std::optional<LogFormat> ParseLogFormat(std::string_view name) {
  for (LogFormat f : {LogFormat::kAuto, LogFormat::kNemo2, LogFormat::kMegatron,
                      LogFormat::kTorchtitan, LogFormat::kInferenceJson}) {
    if (name == LogFormatName(f)) return f;
  }
  return std::nullopt;
}

std::optional<LogFormat> LineSignature(std::string_view raw) {
  PlainLine plain(raw);
  std::string_view line = plain.view();
  if (line.find("train_step_timing in s:") != std::string_view::npos) return LogFormat::kNemo2;
  if (line.find("elapsed time per iteration (ms):") != std::string_view::npos) {
    return LogFormat::kMegatron;
  }
  if (line.find("Step Time :") != std::string_view::npos &&
      NumberBefore(line, "MODEL_TFLOP/s/GPU").has_value()) {
    return LogFormat::kMegatron;
  }
  if (IsTorchtitanStepLine(line) && (FindWord(line, "tps:") != std::string_view::npos ||
                                     FindWord(line, "tflops:") != std::string_view::npos)) {
    return LogFormat::kTorchtitan;
  }
  return std::nullopt;
}

void FormatDetector::Feed(std::string_view line) {
  if (!detected_) detected_ = LineSignature(line);
}

std::optional<LogFormat> DetectLogFormat(std::string_view text) {
  FormatDetector d;
  for (std::string_view line : SplitLines(text)) {
    d.Feed(line);
    if (d.detected()) break;
  }
  return d.detected();
}

}  // namespace ys::validate
