// Megatron-Bridge and Megatron-LM training logs.
//
// The iteration line carries the step time and the grad norm, and in Megatron-LM (or with
// log_throughput) the TFLOPS too:
//   [2025-12-22 15:18:33] iteration   50/   50 | consumed samples: 25600 | elapsed time per
//   iteration (ms): 9089.0 | throughput per GPU (TFLOP/s/GPU): 663.5 | ... | grad norm: 0.042 |
// Megatron-Bridge prints the TFLOPS of the same step on a line of its own, from another rank:
//   Step Time : 9.09s GPU utilization: 663.5MODEL_TFLOP/s/GPU
// In Megatron-Bridge's training_log() rank 0 prints that line *before* the last rank prints the
// iteration line, so in a log it normally precedes the iteration it belongs to.
//
// llmb-run pairs the k-th TFLOPS line with the k-th timing line, which shifts every later pair
// when one line is missing. Here each TFLOPS line is attached to an adjacent iteration line:
//   1. Orientation. Each TFLOPS line whose "Step Time" agrees (to its 2 printed decimals) with
//      exactly one of its two neighbouring iteration lines votes for that side; warm-up steps make
//      the vote decisive. Ties fall back to where TFLOPS lines sit before the first or after the
//      last iteration line, then to "before" (the print order in Megatron-Bridge).
//   2. Blocks. The lines between two iteration lines form a block. With "before", the last
//      TFLOPS line of the block belongs to the iteration line that closes it; with "after", the
//      first one belongs to the iteration line that opens it. Any other TFLOPS line in the block
//      belongs to an iteration whose line is missing, and is dropped with a note.
//   3. Check. A TFLOPS line whose Step Time disagrees with the chosen iteration's elapsed time is
//      not attached (noted), so a misalignment can never pass silently.
#include <fmt/format.h>

#include <cmath>

#include "core/text.h"
#include "validate/log_line.h"
#include "validate/training_log.h"

namespace ys::validate {
namespace {

struct IterationLine {
  int64_t step = 0;
  int64_t total = 0;
  int64_t line = 0;
  std::optional<double> elapsed_s;
  std::optional<double> inline_tflops;
  std::optional<double> grad_norm;
  std::optional<double> loss;
};

struct TflopsLine {
  double value = 0;
  std::optional<double> step_time_s;  // "Step Time : 9.09s", printed to 2 decimals
  int64_t line = 0;
  size_t block = 0;  // number of iteration lines printed before it
};

// The Step Time is printed with 2 decimals, the elapsed time in ms with 1.
bool SameStepTime(double step_time_s, double elapsed_s) {
  return std::fabs(step_time_s - elapsed_s) <= 0.0051 + 1e-6 * elapsed_s;
}

std::string LineList(const std::vector<int64_t>& lines) {
  std::string s;
  for (size_t i = 0; i < lines.size() && i < 5; ++i) {
    s += (i ? ", " : "") + std::to_string(lines[i]);
  }
  if (lines.size() > 5) s += fmt::format(" and {} more", lines.size() - 5);
  return s;
}

class MegatronParser : public LogParser {
 public:
  void Feed(std::string_view raw, int64_t line_no) override {
    last_line_ = line_no;
    PlainLine plain(raw);
    std::string_view line = plain.view();
    std::optional<IterationMarker> mk = FindIterationMarker(line);
    bool is_iteration = false;
    if (mk) {
      std::string_view rest = Trim(line.substr(mk->end));
      // NeMo 2 prints "Training epoch E, iteration N/M |" too.
      is_iteration = (rest.empty() || rest.front() == '|') &&
                     line.find("Training epoch") == std::string_view::npos &&
                     (Trim(rest.substr(std::min<size_t>(1, rest.size()))).empty() ||
                      line.find("consumed samples") != std::string_view::npos ||
                      line.find("elapsed time per iteration") != std::string_view::npos);
    }
    std::optional<double> grad = GradNormOnLine(line);
    if (is_iteration) {
      IterationLine it;
      it.step = mk->n;
      it.total = mk->m;
      it.line = line_no;
      if (auto ms = NumberAfter(line, "elapsed time per iteration (ms):"))
        it.elapsed_s = *ms / 1000;
      it.inline_tflops = NumberAfter(line, "throughput per GPU (TFLOP/s/GPU):");
      it.grad_norm = grad;
      it.loss = NumberAfter(line, "lm loss:");
      if (auto gbs = LogCount(NumberAfter(line, "global batch size:"))) {
        out_.global_batch_size = gbs;
      }
      if (grad && !std::isfinite(*grad)) {
        out_.nonfinite_grad_norms.push_back({it.step, line_no, *grad});
      }
      iterations_.push_back(it);
      return;
    }
    if (grad && !std::isfinite(*grad)) {
      int64_t step = iterations_.empty() ? 0 : iterations_.back().step;
      out_.nonfinite_grad_norms.push_back({step, line_no, *grad});
    }
    if (line.find("Job throughput") != std::string_view::npos ||
        line.find("Cumulative throughput") != std::string_view::npos) {
      return;  // checkpoint progress summaries, not a step
    }
    std::optional<double> tflops = NumberBefore(line, "MODEL_TFLOP/s/GPU");
    if (!tflops) tflops = NumberBefore(line, "TFLOP/s/GPU");
    if (!tflops) return;
    TflopsLine t;
    t.value = *tflops;
    t.line = line_no;
    t.block = iterations_.size();
    if (auto st = NumberAfter(line, "Step Time :")) t.step_time_s = st;
    tflops_.push_back(t);
  }

  ParsedLog Finish() override {
    out_.format = LogFormat::kMegatron;
    out_.iteration_base = 1;
    out_.lines = last_line_;
    bool before = DecideOrientation();
    std::vector<const TflopsLine*> owner(iterations_.size(), nullptr);
    std::vector<int64_t> orphans, mismatched;
    // Group the TFLOPS lines by block; they are already in file order.
    for (size_t i = 0; i < tflops_.size();) {
      size_t j = i;
      while (j < tflops_.size() && tflops_[j].block == tflops_[i].block) ++j;
      size_t block = tflops_[i].block;
      // "before": the last of the block belongs to iteration line `block`;
      // "after": the first belongs to iteration line `block - 1`.
      size_t chosen = before ? j - 1 : i;
      bool has_target = before ? block < iterations_.size() : block > 0;
      for (size_t k = i; k < j; ++k) {
        if (k != chosen || !has_target) {
          orphans.push_back(tflops_[k].line);
          continue;
        }
        size_t target = before ? block : block - 1;
        const IterationLine& it = iterations_[target];
        if (tflops_[k].step_time_s && it.elapsed_s &&
            !SameStepTime(*tflops_[k].step_time_s, *it.elapsed_s)) {
          mismatched.push_back(tflops_[k].line);
          continue;
        }
        owner[target] = &tflops_[k];
      }
      i = j;
    }
    if (!before) out_.notes.push_back("TFLOPS lines follow their iteration lines in this log");
    if (!orphans.empty()) {
      out_.notes.push_back(fmt::format(
          "{} TFLOPS line(s) have no iteration line of their own (an iteration line is missing or "
          "the log was cut) and were not used: line {}",
          orphans.size(), LineList(orphans)));
    }
    if (!mismatched.empty()) {
      out_.notes.push_back(fmt::format(
          "{} TFLOPS line(s) carry a Step Time that disagrees with the adjacent iteration's "
          "elapsed time and were not used: line {}",
          mismatched.size(), LineList(mismatched)));
    }

    SampleCollector samples;
    for (size_t i = 0; i < iterations_.size(); ++i) {
      const IterationLine& it = iterations_[i];
      IterationSample s;
      s.step = it.step;
      s.line = it.line;
      s.step_time_s = it.elapsed_s;
      s.grad_norm = it.grad_norm;
      s.loss = it.loss;
      if (it.inline_tflops) {
        s.tflops_per_gpu = it.inline_tflops;
      } else if (owner[i]) {
        s.tflops_per_gpu = owner[i]->value;
        s.tflops_line = owner[i]->line;
      }
      if (out_.total_steps && *out_.total_steps != it.total && !total_conflict_noted_) {
        total_conflict_noted_ = true;
        out_.notes.push_back(
            fmt::format("line {}: iteration {}/{} disagrees with the {} steps "
                        "printed before; the largest is used",
                        it.line, it.step, it.total, *out_.total_steps));
      }
      out_.total_steps = std::max(out_.total_steps.value_or(0), it.total);
      if (it.step == it.total && !out_.final_marker_seen) {
        out_.final_marker_seen = true;
        out_.final_marker_line = it.line;
      }
      samples.Add(std::move(s));
    }
    samples.MoveTo(out_);
    return std::move(out_);
  }

 private:
  // True when TFLOPS lines precede their iteration lines.
  bool DecideOrientation() const {
    int votes_before = 0, votes_after = 0;
    bool lead = false, trail = false;
    for (const TflopsLine& t : tflops_) {
      if (t.block == 0) lead = true;
      if (t.block == iterations_.size()) trail = true;
      if (!t.step_time_s) continue;
      bool prev = t.block > 0 && iterations_[t.block - 1].elapsed_s &&
                  SameStepTime(*t.step_time_s, *iterations_[t.block - 1].elapsed_s);
      bool next = t.block < iterations_.size() && iterations_[t.block].elapsed_s &&
                  SameStepTime(*t.step_time_s, *iterations_[t.block].elapsed_s);
      if (next && !prev) ++votes_before;
      if (prev && !next) ++votes_after;
    }
    if (votes_before != votes_after) return votes_before > votes_after;
    if (lead != trail) return lead;
    return true;
  }

  ParsedLog out_;
  std::vector<IterationLine> iterations_;
  std::vector<TflopsLine> tflops_;
  int64_t last_line_ = 0;
  bool total_conflict_noted_ = false;
};

}  // namespace

std::unique_ptr<LogParser> MakeMegatronParser() { return std::make_unique<MegatronParser>(); }

}  // namespace ys::validate
