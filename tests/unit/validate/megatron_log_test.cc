// Megatron-Bridge and Megatron-LM logs, and the pairing of Megatron-Bridge TFLOPS lines with
// their iterations (llmb-run pairs them by position, which misaligns when a line is missing).
#include <gtest/gtest.h>

#include <cmath>

#include "validate/training_log.h"

namespace ys::validate {
namespace {

const IterationSample* Step(const ParsedLog& log, int64_t step) {
  for (const IterationSample& s : log.samples) {
    if (s.step == step) return &s;
  }
  return nullptr;
}

// As Megatron-Bridge prints it: rank 0's "Step Time" line, then the last rank's iteration line.
constexpr std::string_view kBridgeExcerpt =
    "training ...\n"
    "Step Time : 125.37s GPU utilization: 62.8MODEL_TFLOP/s/GPU\n"
    " [2025-12-22 15:02:05] iteration        1/       4 | consumed samples:          512 | "
    "elapsed time per iteration (ms): 125370.4 | learning rate: 3.000000E-06 | global batch "
    "size:   512 | lm loss: 1.144000E+01 | loss scale: 1.0 | grad norm: 0.857 | number of "
    "skipped iterations:   0 | number of nan iterations:   0 |\n"
    "[Rank 0] (after 1 iterations) memory (GB) | mem-allocated-gigabytes: 41.2\n"
    "Step Time : 9.09s GPU utilization: 663.5MODEL_TFLOP/s/GPU\n"
    " [2025-12-22 15:02:14] iteration        2/       4 | consumed samples:         1024 | "
    "elapsed time per iteration (ms): 9089.0 | learning rate: 6.000000E-06 | global batch size: "
    "  512 | lm loss: 1.138000E+01 | loss scale: 1.0 | grad norm: 0.818 | number of skipped "
    "iterations:   0 | number of nan iterations:   0 |\n"
    "Step Time : 9.10s GPU utilization: 662.8MODEL_TFLOP/s/GPU\n"
    " [2025-12-22 15:02:23] iteration        3/       4 | consumed samples:         1536 | "
    "elapsed time per iteration (ms): 9101.0 | learning rate: 9.000000E-06 | global batch size: "
    "  512 | lm loss: 1.132000E+01 | loss scale: 1.0 | grad norm: 0.783 | number of skipped "
    "iterations:   0 | number of nan iterations:   0 |\n"
    "Step Time : 9.05s GPU utilization: 666.4MODEL_TFLOP/s/GPU\n"
    " [2025-12-22 15:02:32] iteration        4/       4 | consumed samples:         2048 | "
    "elapsed time per iteration (ms): 9050.0 | learning rate: 1.200000E-05 | global batch size: "
    "  512 | lm loss: 1.126000E+01 | loss scale: 1.0 | grad norm: 0.750 | number of skipped "
    "iterations:   0 | number of nan iterations:   0 |\n"
    "[after training is done] datetime: 2025-12-22 15:02:33\n";

std::string Without(std::string_view text, std::string_view needle_line_start) {
  std::string out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    std::string_view line = text.substr(pos, end - pos + 1);
    if (line.find(needle_line_start) == std::string_view::npos) out += line;
    pos = end + 1;
  }
  return out;
}

TEST(IngestMegatronTest, BridgeExcerptEverySampleKeyedByIteration) {
  ParsedLog log = ParseMegatronLog(kBridgeExcerpt);
  EXPECT_EQ(log.format, LogFormat::kMegatron);
  EXPECT_EQ(log.iteration_base, 1);
  ASSERT_EQ(log.samples.size(), 4u);
  EXPECT_EQ(log.total_steps, 4);
  EXPECT_TRUE(log.final_marker_seen);
  EXPECT_EQ(log.final_marker_line, 10);
  EXPECT_EQ(log.global_batch_size, 512);
  EXPECT_DOUBLE_EQ(*Step(log, 1)->step_time_s, 125.3704);
  EXPECT_DOUBLE_EQ(*Step(log, 1)->tflops_per_gpu, 62.8);
  EXPECT_DOUBLE_EQ(*Step(log, 2)->step_time_s, 9.089);
  EXPECT_DOUBLE_EQ(*Step(log, 2)->tflops_per_gpu, 663.5);
  EXPECT_EQ(Step(log, 2)->tflops_line, 5);
  EXPECT_DOUBLE_EQ(*Step(log, 3)->tflops_per_gpu, 662.8);
  EXPECT_DOUBLE_EQ(*Step(log, 4)->tflops_per_gpu, 666.4);
  EXPECT_DOUBLE_EQ(*Step(log, 4)->grad_norm, 0.75);
  EXPECT_DOUBLE_EQ(*Step(log, 4)->loss, 11.26);
  EXPECT_TRUE(log.nonfinite_grad_norms.empty());
  EXPECT_TRUE(log.notes.empty()) << log.notes.front();
}

TEST(IngestMegatronTest, MissingTflopsLineLeavesOnlyThatIterationWithout) {
  // Iteration 3's TFLOPS line is missing. Pairing by position would give iteration 3 the value
  // of iteration 4 (666.4) and iteration 4 nothing.
  ParsedLog log = ParseMegatronLog(Without(kBridgeExcerpt, "Step Time : 9.10s"));
  ASSERT_EQ(log.samples.size(), 4u);
  EXPECT_DOUBLE_EQ(*Step(log, 2)->tflops_per_gpu, 663.5);
  EXPECT_FALSE(Step(log, 3)->tflops_per_gpu.has_value());
  EXPECT_DOUBLE_EQ(*Step(log, 3)->step_time_s, 9.101);
  EXPECT_DOUBLE_EQ(*Step(log, 4)->tflops_per_gpu, 666.4);
  EXPECT_TRUE(log.notes.empty());
}

TEST(IngestMegatronTest, MissingTimingLineDropsTheOrphanTflops) {
  // Iteration 3's line is missing: its TFLOPS line has no iteration of its own. Pairing by
  // position would give iteration 4 the value 662.8.
  ParsedLog log = ParseMegatronLog(Without(kBridgeExcerpt, "iteration        3/"));
  ASSERT_EQ(log.samples.size(), 3u);
  EXPECT_EQ(Step(log, 3), nullptr);
  EXPECT_DOUBLE_EQ(*Step(log, 2)->tflops_per_gpu, 663.5);
  EXPECT_DOUBLE_EQ(*Step(log, 4)->tflops_per_gpu, 666.4);
  ASSERT_EQ(log.notes.size(), 1u);
  EXPECT_NE(log.notes[0].find("no iteration line of their own"), std::string::npos);
  EXPECT_NE(log.notes[0].find("line 7"), std::string::npos) << log.notes[0];
}

TEST(IngestMegatronTest, TflopsLinesAfterTheirIterationsAreRecognised) {
  // The other order (ranks' output interleaved the other way): the warm-up step's time decides.
  constexpr std::string_view kAfter =
      "iteration        1/       3 | elapsed time per iteration (ms): 125370.4 | grad norm: 0.8 |\n"
      "Step Time : 125.37s GPU utilization: 62.8MODEL_TFLOP/s/GPU\n"
      "iteration        2/       3 | elapsed time per iteration (ms): 9089.0 | grad norm: 0.8 |\n"
      "iteration        3/       3 | elapsed time per iteration (ms): 9050.0 | grad norm: 0.7 |\n"
      "Step Time : 9.05s GPU utilization: 666.4MODEL_TFLOP/s/GPU\n";
  ParsedLog log = ParseMegatronLog(kAfter);
  ASSERT_EQ(log.samples.size(), 3u);
  EXPECT_DOUBLE_EQ(*Step(log, 1)->tflops_per_gpu, 62.8);
  EXPECT_FALSE(Step(log, 2)->tflops_per_gpu.has_value());
  EXPECT_DOUBLE_EQ(*Step(log, 3)->tflops_per_gpu, 666.4);
  ASSERT_FALSE(log.notes.empty());
  EXPECT_NE(log.notes[0].find("follow their iteration lines"), std::string::npos);
}

TEST(IngestMegatronTest, TflopsWhoseStepTimeDisagreesIsNotAttached) {
  constexpr std::string_view kText =
      "Step Time : 125.37s GPU utilization: 62.8MODEL_TFLOP/s/GPU\n"
      "iteration        1/       2 | elapsed time per iteration (ms): 125370.4 |\n"
      "Step Time : 12.00s GPU utilization: 500.0MODEL_TFLOP/s/GPU\n"
      "iteration        2/       2 | elapsed time per iteration (ms): 9089.0 |\n";
  ParsedLog log = ParseMegatronLog(kText);
  ASSERT_EQ(log.samples.size(), 2u);
  EXPECT_FALSE(Step(log, 2)->tflops_per_gpu.has_value());
  ASSERT_EQ(log.notes.size(), 1u);
  EXPECT_NE(log.notes[0].find("disagrees"), std::string::npos);
}

TEST(IngestMegatronTest, MegatronLmThroughputOnTheIterationLine) {
  constexpr std::string_view kText =
      "7:  [2025-06-03 09:00:42] iteration        1/       2 | consumed samples:          128 | "
      "elapsed time per iteration (ms): 42110.0 | throughput per GPU (TFLOP/s/GPU): 20.1 | "
      "learning rate: 1.500000E-04 | global batch size:   128 | lm loss: 1.075000E+01 | loss "
      "scale: 1.0 | grad norm: 1.154 | number of skipped iterations:   0 | number of nan "
      "iterations:   0 |\n"
      "7:  [2025-06-03 09:00:44] iteration        2/       2 | consumed samples:          256 | "
      "elapsed time per iteration (ms): 2110.0 | throughput per GPU (TFLOP/s/GPU): 401.2 | "
      "learning rate: 1.500000E-04 | global batch size:   128 | lm loss: 1.070000E+01 | loss "
      "scale: 1.0 | grad norm: 1.111 | number of skipped iterations:   0 | number of nan "
      "iterations:   0 |\n";
  ParsedLog log = ParseMegatronLog(kText);
  ASSERT_EQ(log.samples.size(), 2u);
  EXPECT_DOUBLE_EQ(*Step(log, 2)->step_time_s, 2.11);
  EXPECT_DOUBLE_EQ(*Step(log, 2)->tflops_per_gpu, 401.2);
  EXPECT_EQ(Step(log, 2)->tflops_line, 0);  // on the iteration line itself
  EXPECT_TRUE(log.final_marker_seen);
  EXPECT_EQ(log.global_batch_size, 128);
}

TEST(IngestMegatronTest, NanGradNormIsRecordedWithItsIteration) {
  constexpr std::string_view kText =
      "iteration       39/      50 | elapsed time per iteration (ms): 9089.0 | grad norm: 0.042 |\n"
      "iteration       40/      50 | elapsed time per iteration (ms): 9090.0 | loss scale: 1.0 | "
      "grad norm: nan | number of skipped iterations:   1 | number of nan iterations:   1 |\n";
  ParsedLog log = ParseMegatronLog(kText);
  ASSERT_EQ(log.nonfinite_grad_norms.size(), 1u);
  EXPECT_EQ(log.nonfinite_grad_norms[0].step, 40);
  EXPECT_EQ(log.nonfinite_grad_norms[0].line, 2);
  EXPECT_TRUE(std::isnan(log.nonfinite_grad_norms[0].value));
  EXPECT_FALSE(log.final_marker_seen);
}

TEST(IngestMegatronTest, LineCutShortStillCountsAsSeenWithoutTiming) {
  constexpr std::string_view kText =
      "iteration       40/      50 | elapsed time per iteration (ms): 9089.0 |\n"
      "Step Time : 9.09s GPU utilization: 663.5MODEL_TFLOP/s/GPU\n"
      " [2025-12-22 15:11:53] iteration       41/      50 | consumed samples:";
  ParsedLog log = ParseMegatronLog(kText);
  ASSERT_EQ(log.samples.size(), 2u);
  EXPECT_FALSE(Step(log, 41)->step_time_s.has_value());
  EXPECT_EQ(log.lines, 3);
}

TEST(IngestMegatronTest, RepeatedIterationKeepsTheFirst) {
  constexpr std::string_view kText =
      "iteration        1/       1 | elapsed time per iteration (ms): 1000.0 |\n"
      "iteration        1/       1 | elapsed time per iteration (ms): 2000.0 |\n";
  ParsedLog log = ParseMegatronLog(kText);
  ASSERT_EQ(log.samples.size(), 1u);
  EXPECT_DOUBLE_EQ(*log.samples[0].step_time_s, 1.0);
  ASSERT_EQ(log.notes.size(), 1u);
  EXPECT_NE(log.notes[0].find("repeat"), std::string::npos);
}

TEST(IngestMegatronTest, CheckpointThroughputSummaryIsNotAStep) {
  constexpr std::string_view kText =
      "iteration        1/       1 | elapsed time per iteration (ms): 1000.0 |\n"
      "Saved checkpoint\tIteration: 1\tJob throughput: 401.2 MODEL_TFLOP/s/GPU\tCumulative "
      "throughput: 400.0 MODEL_TFLOP/s/GPU\n";
  ParsedLog log = ParseMegatronLog(kText);
  EXPECT_FALSE(log.samples[0].tflops_per_gpu.has_value());
  EXPECT_TRUE(log.notes.empty());
}

TEST(IngestMegatronTest, GarbageAndEmptyTextGiveNoSamples) {
  EXPECT_TRUE(ParseMegatronLog("").samples.empty());
  EXPECT_TRUE(ParseMegatronLog("iteration\niteration x/y |\n/ / / |\n").samples.empty());
}

}  // namespace
}  // namespace ys::validate
