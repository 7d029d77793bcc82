// Parsed training logs: one sample per training step, keyed by step number, whatever order or
// pairing the framework printed them in.
//
// Steps are 1-based, as Megatron prints them: step k is "iteration k/M" in Megatron-Bridge and
// Megatron-LM and "step: k" in torchtitan, but "iteration k-1/M-1" in NeMo 2, whose iterations
// are 0-based ("iteration 49/49" is step 50 of 50). `ParsedLog::iteration_base` records what the
// log prints for step 1 so that messages can quote the log's own numbers.
//
// Each parser is fed one line at a time (so a log is never held whole in memory) and is also
// available as a pure function over a whole text, which is what the literal-string tests use.
// Parsers never fail: lines they do not recognise are ignored; what they could not attribute is
// said in `notes`.
#ifndef YARDSTICK_VALIDATE_TRAINING_LOG_H_
#define YARDSTICK_VALIDATE_TRAINING_LOG_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "validate/log_format.h"

namespace ys::validate {

struct IterationSample {
  int64_t step = 0;  // 1-based training step
  int64_t line = 0;  // 1-based line of the iteration line in the log
  std::optional<double> step_time_s;
  bool step_time_derived = false;  // torchtitan: tokens per step / (tps x GPUs), not printed
  // As printed. 0 is kept here; the window treats it as "not reported" (hybrid models).
  std::optional<double> tflops_per_gpu;
  int64_t tflops_line = 0;  // the line the TFLOPS came from when it is not the iteration line
  std::optional<double> tokens_per_s_per_gpu;  // torchtitan "tps:"
  std::optional<double> grad_norm;             // may be NaN or inf
  std::optional<double> loss;
  std::optional<double> mfu_reported_pct;  // torchtitan's own "mfu:" (against its own peak)
  bool operator==(const IterationSample&) const = default;
};

// A grad norm that is NaN or infinite: the run is invalid.
struct NonFiniteGradNorm {
  int64_t step = 0;  // 0 when printed before the first iteration line
  int64_t line = 0;
  double value = 0;
  bool operator==(const NonFiniteGradNorm&) const = default;
};

struct ParsedLog {
  LogFormat format = LogFormat::kAuto;
  int iteration_base = 1;                // the number the log prints for step 1 (0 for NeMo 2)
  std::vector<IterationSample> samples;  // ascending step, one per step
  std::optional<int64_t> total_steps;    // from "iteration N/M" (or torchtitan "total steps")
  bool final_marker_seen = false;        // "iteration M/M" (torchtitan: last step or "completed")
  int64_t final_marker_line = 0;
  std::vector<NonFiniteGradNorm> nonfinite_grad_norms;
  // What the log itself says about the job shape, when it says it.
  std::optional<int64_t> global_batch_size;
  std::optional<int64_t> seq_len;
  std::optional<int64_t> tokens_per_step;
  int64_t lines = 0;  // lines fed
  std::vector<std::string> notes;
};

class LogParser {
 public:
  virtual ~LogParser() = default;
  // One line without its terminator; `line_no` is 1-based.
  virtual void Feed(std::string_view line, int64_t line_no) = 0;
  // Call once, after the last line.
  virtual ParsedLog Finish() = 0;
};

std::unique_ptr<LogParser> MakeNemo2Parser();
std::unique_ptr<LogParser> MakeMegatronParser();
std::unique_ptr<LogParser> MakeTorchtitanParser();
// nemo2, megatron or torchtitan; nullptr for auto and inference-json.
std::unique_ptr<LogParser> MakeLogParser(LogFormat format);

// Pure functions over a whole text ('\n', "\r\n" and a lone '\r' end a line).
ParsedLog ParseNemo2Log(std::string_view text);
ParsedLog ParseMegatronLog(std::string_view text);
ParsedLog ParseTorchtitanLog(std::string_view text);
ParsedLog ParseTrainingLog(LogFormat format, std::string_view text);

// Calls `fn(segment, line_no)` for each line of `text`; a lone '\r' (a progress bar redrawing)
// splits a line into segments that share its line number, so numbers match `grep -n`.
template <typename Fn>
void ForEachLine(std::string_view text, Fn&& fn) {
  int64_t line_no = 1;
  size_t start = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size()) {
      if (i > start) fn(text.substr(start, i - start), line_no);
      break;
    }
    char c = text[i];
    if (c == '\n') {
      fn(text.substr(start, i - start), line_no++);
      start = i + 1;
    } else if (c == '\r') {
      bool crlf = i + 1 < text.size() && text[i + 1] == '\n';
      fn(text.substr(start, i - start), line_no);
      if (crlf) {
        ++i;
        ++line_no;
      }
      start = i + 1;
    }
  }
}

// A torchtitan training-step line ("step: N  loss: X ..."), not a validation line
// ("validate step: N"). `line` without colour codes.
bool IsTorchtitanStepLine(std::string_view line);

// The grad norm on a line ("grad norm: 0.042", "grad_norm:  3.4012", "grad norm: nan").
std::optional<double> GradNormOnLine(std::string_view line);

// Keeps the first sample of each step; later ones for the same step are counted and dropped.
class SampleCollector {
 public:
  // The stored sample, or nullptr when `s.step` was already present.
  IterationSample* Add(IterationSample s);
  IterationSample* Find(int64_t step);
  // Moves the samples into `out` (ascending step) and notes duplicates.
  void MoveTo(ParsedLog& out);

 private:
  std::map<int64_t, IterationSample> by_step_;
  int64_t duplicates_ = 0;
  int64_t first_duplicate_step_ = 0;
};

}  // namespace ys::validate

#endif  // YARDSTICK_VALIDATE_TRAINING_LOG_H_
