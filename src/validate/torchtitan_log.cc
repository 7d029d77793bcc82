// torchtitan training logs (usually coloured with ANSI codes, which are removed first):
//   [rank0]:[titan] ... - INFO - step: 35  loss:  7.12345  grad_norm:  0.4123  memory: 61.20GiB
//   (77.45%)  tps: 1,234  tflops: 456.78  mfu: 46.19%
// "tps" is tokens per second per GPU; there is no step time on the line. torchtitan steps are
// 1-based. The run's length comes from "total steps N" in the start-up summary, and the end from
// the last step or "Training completed". "mfu" is "N/A" when quantisation is on.
#include <fmt/format.h>

#include <cmath>

#include "core/text.h"
#include "validate/log_line.h"
#include "validate/training_log.h"

namespace ys::validate {
namespace {

class TorchtitanParser : public LogParser {
 public:
  void Feed(std::string_view raw, int64_t line_no) override {
    last_line_ = line_no;
    PlainLine plain(raw);
    std::string_view line = plain.view();
    if (line.find("Training completed") != std::string_view::npos && completed_line_ == 0) {
      completed_line_ = line_no;
    }
    if (auto v = LogCount(NumberAfter(line, "total steps"))) out_.total_steps = v;
    if (auto v = LogCount(NumberAfter(line, "global batch size"))) out_.global_batch_size = v;
    if (auto v = LogCount(NumberAfter(line, "sequence length"))) out_.seq_len = v;
    if (auto v = LogCount(NumberBefore(line, "tokens per train step"))) out_.tokens_per_step = v;

    std::optional<double> grad = GradNormOnLine(line);
    std::optional<int64_t> step =
        IsTorchtitanStepLine(line) ? LogCount(NumberAfter(line, "step:")) : std::nullopt;
    if (!step) {
      if (grad && !std::isfinite(*grad)) {
        out_.nonfinite_grad_norms.push_back({last_step_, line_no, *grad});
      }
      return;
    }
    IterationSample s;
    s.step = *step;
    s.line = line_no;
    s.tokens_per_s_per_gpu = NumberAfter(line, "tps:", /*allow_commas=*/true);
    s.tflops_per_gpu = NumberAfter(line, "tflops:", /*allow_commas=*/true);
    s.mfu_reported_pct = NumberAfter(line, "mfu:");
    s.loss = NumberAfter(line, "loss:");
    s.grad_norm = grad;
    if (grad && !std::isfinite(*grad)) {
      out_.nonfinite_grad_norms.push_back({s.step, line_no, *grad});
    }
    last_step_ = s.step;
    samples_.Add(std::move(s));
  }

  ParsedLog Finish() override {
    out_.format = LogFormat::kTorchtitan;
    out_.iteration_base = 1;
    out_.lines = last_line_;
    samples_.MoveTo(out_);
    if (out_.total_steps) {
      for (const IterationSample& s : out_.samples) {
        if (s.step == *out_.total_steps) {
          out_.final_marker_seen = true;
          out_.final_marker_line = s.line;
        }
      }
    } else if (completed_line_ > 0) {
      out_.final_marker_seen = true;
      out_.final_marker_line = completed_line_;
      out_.notes.push_back(
          "the log does not print its total steps; 'Training completed' is taken as the end");
    }
    return std::move(out_);
  }

 private:
  ParsedLog out_;
  SampleCollector samples_;
  int64_t last_step_ = 0;
  int64_t last_line_ = 0;
  int64_t completed_line_ = 0;
};

}  // namespace

bool IsTorchtitanStepLine(std::string_view line) {
  size_t at = FindWord(line, "step:");
  return at != std::string_view::npos && !EndsWith(Trim(line.substr(0, at)), "validate") &&
         NumberAfter(line, "step:").has_value() &&
         FindWord(line, "loss:") != std::string_view::npos;
}

std::unique_ptr<LogParser> MakeTorchtitanParser() { return std::make_unique<TorchtitanParser>(); }

}  // namespace ys::validate
