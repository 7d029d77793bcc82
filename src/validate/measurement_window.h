// The measurement window: which training steps are averaged.
//
// Steps are 1-based as Megatron prints them. The default skips 34 steps of warm-up (input
// prefetch, allocation, JIT) and averages steps 35-44 of 50, as llmb-run does
// (pretrain_log_parser.py MIN_ITERATION=35, MAX_ITERATION=44). For NeMo 2, whose iterations are
// 0-based, step k is printed "iteration k-1": the default window is printed iterations 34-43.
#ifndef YARDSTICK_VALIDATE_MEASUREMENT_WINDOW_H_
#define YARDSTICK_VALIDATE_MEASUREMENT_WINDOW_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/run_document.h"
#include "core/status.h"
#include "validate/training_log.h"

namespace ys::validate {

struct MeasurementWindow {
  int64_t first_step = 35;
  int64_t last_step = 44;
  int64_t size() const { return last_step - first_step + 1; }
  bool Contains(int64_t step) const { return step >= first_step && step <= last_step; }
  bool operator==(const MeasurementWindow&) const = default;
};

inline constexpr int64_t kMaxWindowSteps = 1'000'000;

// "35:44" (both inclusive, 1 <= A <= B). Invalid says what was expected.
Result<MeasurementWindow> ParseWindow(std::string_view spec);

// "35-44"
std::string FormatWindow(const MeasurementWindow& w);

// Ascending steps with runs collapsed: {36, 40, 41, 42} -> "36, 40-42".
std::string FormatSteps(const std::vector<int64_t>& steps);

struct WindowEvaluation {
  // Window steps without a timing sample (a step time, or torchtitan's tps).
  std::vector<int64_t> missing_steps;
  std::optional<SampleStats> step_time_s;
  // Over window steps with a non-zero TFLOPS. A printed 0 is "not reported" (Megatron-Bridge
  // prints 0 MODEL_TFLOP/s/GPU for hybrid models such as Nemotron-H), never a zero throughput.
  std::optional<SampleStats> tflops_per_gpu;
  int64_t tflops_zero = 0;                          // window steps whose TFLOPS was printed as 0
  int64_t tflops_missing = 0;                       // timed window steps with no TFLOPS at all
  std::optional<SampleStats> tokens_per_s_per_gpu;  // torchtitan's tps over the window
};

// `samples` ascending by step, one per step (as ParsedLog holds them).
WindowEvaluation EvaluateWindow(const std::vector<IterationSample>& samples,
                                const MeasurementWindow& window);

}  // namespace ys::validate

#endif  // YARDSTICK_VALIDATE_MEASUREMENT_WINDOW_H_
