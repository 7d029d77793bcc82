// The training-log and benchmark-result formats `yardstick ingest` reads, their names, and
// format detection from content.
//
// Detection is by the first line that only one format prints:
//   nemo2       "iteration N/M | ... train_step_timing in s: X"   (NeMo 2, 0-based iterations)
//   megatron    "iteration N/ M | ... elapsed time per iteration (ms): X" or
//               "Step Time : Xs GPU utilization: Y MODEL_TFLOP/s/GPU"  (Megatron-Bridge,
//               Megatron-LM)
//   torchtitan  "step: N  loss: X ... tps: Y  tflops: Z  mfu: W%"        (ANSI colour codes
//   removed)
// The inference JSON format is recognised from the first byte of the file ('{'), not per line.
#ifndef YARDSTICK_VALIDATE_LOG_FORMAT_H_
#define YARDSTICK_VALIDATE_LOG_FORMAT_H_

#include <optional>
#include <string_view>

namespace ys::validate {

enum class LogFormat { kAuto, kNemo2, kMegatron, kTorchtitan, kInferenceJson };

// "auto", "nemo2", "megatron", "torchtitan", "inference-json".
const char* LogFormatName(LogFormat f);
std::optional<LogFormat> ParseLogFormat(std::string_view name);

// The format whose signature this line carries, if any. `line` may carry ANSI colour codes.
std::optional<LogFormat> LineSignature(std::string_view line);

// Line-by-line detection: the first line with a signature decides.
class FormatDetector {
 public:
  void Feed(std::string_view line);
  std::optional<LogFormat> detected() const { return detected_; }

 private:
  std::optional<LogFormat> detected_;
};

// The format of a whole text (the first line with a signature decides), or nullopt.
std::optional<LogFormat> DetectLogFormat(std::string_view text);

}  // namespace ys::validate

#endif  // YARDSTICK_VALIDATE_LOG_FORMAT_H_
