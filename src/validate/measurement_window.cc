#include "validate/measurement_window.h"

#include <fmt/format.h>

#include "core/text.h"

namespace ys::validate {

Result<MeasurementWindow> ParseWindow(std::string_view spec) {
  std::vector<std::string_view> parts = Split(spec, ':');
  auto bad = [&] {
    return Status::Invalid(fmt::format(
        "window '{}': expected FIRST:LAST, two step numbers with 1 <= FIRST <= LAST (e.g. 35:44)",
        spec));
  };
  if (parts.size() != 2) return bad();
  std::optional<int64_t> a = ParseInt(parts[0]);
  std::optional<int64_t> b = ParseInt(parts[1]);
  if (!a || !b || *a < 1 || *b < *a) return bad();
  if (*b - *a + 1 > kMaxWindowSteps) {
    return Status::Invalid(fmt::format("window '{}': {} steps; at most {} are averaged", spec,
                                       *b - *a + 1, kMaxWindowSteps));
  }
  return MeasurementWindow{*a, *b};
}

std::string FormatWindow(const MeasurementWindow& w) {
  return fmt::format("{}-{}", w.first_step, w.last_step);
}

std::string FormatSteps(const std::vector<int64_t>& steps) {
  std::string out;
  for (size_t i = 0; i < steps.size();) {
    size_t j = i;
    while (j + 1 < steps.size() && steps[j + 1] == steps[j] + 1) ++j;
    if (!out.empty()) out += ", ";
    out += j == i ? fmt::format("{}", steps[i]) : fmt::format("{}-{}", steps[i], steps[j]);
    i = j + 1;
  }
  return out;
}

WindowEvaluation EvaluateWindow(const std::vector<IterationSample>& samples,
                                const MeasurementWindow& window) {
  WindowEvaluation ev;
  std::vector<double> times, tflops, tps;
  size_t k = 0;
  for (int64_t step = window.first_step; step <= window.last_step; ++step) {
    while (k < samples.size() && samples[k].step < step) ++k;
    const IterationSample* s =
        (k < samples.size() && samples[k].step == step) ? &samples[k] : nullptr;
    bool timed = s && (s->step_time_s || s->tokens_per_s_per_gpu);
    if (!timed) {
      ev.missing_steps.push_back(step);
      continue;
    }
    if (s->step_time_s) times.push_back(*s->step_time_s);
    if (s->tokens_per_s_per_gpu) tps.push_back(*s->tokens_per_s_per_gpu);
    if (!s->tflops_per_gpu) {
      ++ev.tflops_missing;
    } else if (*s->tflops_per_gpu == 0) {
      ++ev.tflops_zero;
    } else {
      tflops.push_back(*s->tflops_per_gpu);
    }
  }
  if (!times.empty()) ev.step_time_s = ComputeStats(std::move(times));
  if (!tflops.empty()) ev.tflops_per_gpu = ComputeStats(std::move(tflops));
  if (!tps.empty()) ev.tokens_per_s_per_gpu = ComputeStats(std::move(tps));
  return ev;
}

}  // namespace ys::validate
