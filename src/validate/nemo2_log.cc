// NeMo 2 training logs. Everything is on the iteration line:
//   Training epoch 0, iteration 49/49 | lr: 7.496e-06 | global_batch_size: 128 | global_step: 49 |
//   ... | reduced_train_loss: 11.96 | train_step_timing in s: 12.39 | consumed_samples: 6400 |
//   TFLOPS_per_GPU: 456.7
// Iterations are 0-based: "iteration k/M" is step k+1 of M+1, and "iteration M/M" is the last.
#include <fmt/format.h>

#include <cmath>

#include "core/text.h"
#include "validate/log_line.h"
#include "validate/training_log.h"

namespace ys::validate {
namespace {

class Nemo2Parser : public LogParser {
 public:
  void Feed(std::string_view raw, int64_t line_no) override {
    last_line_ = line_no;
    PlainLine plain(raw);
    std::string_view line = plain.view();
    std::optional<IterationMarker> mk = FindIterationMarker(line);
    // An iteration line has fields after the marker ("| lr: ..."), or nothing (cut short).
    bool is_iteration = false;
    if (mk) {
      std::string_view rest = Trim(line.substr(mk->end));
      // Megatron prints "iteration N/ M |" too; NeMo's line says "Training epoch" or carries
      // its own fields.
      is_iteration = (rest.empty() || rest.front() == '|') &&
                     (line.find("Training epoch") != std::string_view::npos ||
                      line.find("train_step_timing") != std::string_view::npos ||
                      line.find("global_step:") != std::string_view::npos);
    }
    std::optional<double> grad = GradNormOnLine(line);
    if (!is_iteration) {
      if (grad && !std::isfinite(*grad)) {
        out_.nonfinite_grad_norms.push_back({last_step_, line_no, *grad});
      }
      return;
    }
    IterationSample s;
    s.step = mk->n + 1;
    s.line = line_no;
    s.step_time_s = NumberAfter(line, "train_step_timing in s:");
    s.tflops_per_gpu = NumberAfter(line, "TFLOPS_per_GPU:");
    s.loss = NumberAfter(line, "reduced_train_loss:");
    s.grad_norm = grad;
    if (grad && !std::isfinite(*grad)) {
      out_.nonfinite_grad_norms.push_back({s.step, line_no, *grad});
    }
    if (auto gbs = LogCount(NumberAfter(line, "global_batch_size:"))) {
      out_.global_batch_size = gbs;
    }
    if (out_.total_steps && *out_.total_steps != mk->m + 1 && !total_conflict_noted_) {
      total_conflict_noted_ = true;
      out_.notes.push_back(
          fmt::format("line {}: iteration {}/{} disagrees with the {} steps "
                      "printed before; the largest is used",
                      line_no, mk->n, mk->m, *out_.total_steps));
    }
    out_.total_steps = std::max(out_.total_steps.value_or(0), mk->m + 1);
    if (mk->n == mk->m && !out_.final_marker_seen) {
      out_.final_marker_seen = true;
      out_.final_marker_line = line_no;
    }
    last_step_ = s.step;
    samples_.Add(std::move(s));
  }

  ParsedLog Finish() override {
    out_.format = LogFormat::kNemo2;
    out_.iteration_base = 0;
    out_.lines = last_line_;
    samples_.MoveTo(out_);
    return std::move(out_);
  }

 private:
  ParsedLog out_;
  SampleCollector samples_;
  int64_t last_step_ = 0;
  int64_t last_line_ = 0;
  bool total_conflict_noted_ = false;
};

}  // namespace

std::unique_ptr<LogParser> MakeNemo2Parser() { return std::make_unique<Nemo2Parser>(); }

}  // namespace ys::validate
