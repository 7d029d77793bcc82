// NeMo 2 (0-based iterations) and torchtitan (ANSI colours, tps) logs.
#include <gtest/gtest.h>

#include <cmath>

#include "validate/training_log.h"

namespace ys::validate {
namespace {

constexpr std::string_view kNemoExcerpt =
    "[NeMo I 2025-04-14 10:00:00 nemo_logging:393] Experiments will be logged at /results\n"
    "Training epoch 0, iteration 0/2 | lr: 1.5e-05 | global_batch_size: 128 | global_step: 0 | "
    "peak_memory_usage: 70833405952 | memory_allocated: 44271689728 | reduced_train_loss: 12.00 | "
    "train_step_timing in s: 48.31 | TFLOPS_per_GPU: 617.8 | consumed_samples: 128\n"
    "Training epoch 0, iteration 1/2 | lr: 3e-05 | global_batch_size: 128 | global_step: 1 | "
    "peak_memory_usage: 70833405952 | memory_allocated: 44271689728 | reduced_train_loss: 11.99 | "
    "train_step_timing in s: 12.27 | TFLOPS_per_GPU: 617.8 | consumed_samples: 256\n"
    "Training epoch 0, iteration 2/2 | lr: 4.5e-05 | global_batch_size: 128 | global_step: 2 | "
    "peak_memory_usage: 70833405952 | memory_allocated: 44271689728 | reduced_train_loss: 11.96 | "
    "train_step_timing in s: 12.39 | consumed_samples: 384\n";

TEST(IngestNemo2Test, ZeroBasedIterationsBecomeOneBasedSteps) {
  ParsedLog log = ParseNemo2Log(kNemoExcerpt);
  EXPECT_EQ(log.format, LogFormat::kNemo2);
  EXPECT_EQ(log.iteration_base, 0);
  ASSERT_EQ(log.samples.size(), 3u);
  EXPECT_EQ(log.samples[0].step, 1);  // "iteration 0/2"
  EXPECT_EQ(log.samples[2].step, 3);  // "iteration 2/2", the last of 3 steps
  EXPECT_EQ(log.total_steps, 3);
  EXPECT_TRUE(log.final_marker_seen);
  EXPECT_EQ(log.final_marker_line, 4);
  EXPECT_DOUBLE_EQ(*log.samples[1].step_time_s, 12.27);
  EXPECT_DOUBLE_EQ(*log.samples[1].tflops_per_gpu, 617.8);
  EXPECT_FALSE(log.samples[2].tflops_per_gpu.has_value());  // FLOPs callback off on that line
  EXPECT_DOUBLE_EQ(*log.samples[2].loss, 11.96);
  EXPECT_EQ(log.global_batch_size, 128);
}

TEST(IngestNemo2Test, LastIterationMissingMeansNoFinalMarker) {
  std::string text(kNemoExcerpt.substr(0, kNemoExcerpt.find("Training epoch 0, iteration 2/2")));
  ParsedLog log = ParseNemo2Log(text);
  EXPECT_EQ(log.samples.size(), 2u);
  EXPECT_EQ(log.total_steps, 3);
  EXPECT_FALSE(log.final_marker_seen);
}

TEST(IngestNemo2Test, ProgressBarCarriageReturnsSplitSegmentsNotLineNumbers) {
  std::string text =
      "Epoch 0:  10%|#    | 1/10\rTraining epoch 0, iteration 0/0 | train_step_timing in s: 3.5\n";
  ParsedLog log = ParseNemo2Log(text);
  ASSERT_EQ(log.samples.size(), 1u);
  EXPECT_EQ(log.samples[0].line, 1);
  EXPECT_TRUE(log.final_marker_seen);
}

TEST(IngestNemo2Test, NonFiniteGradNorm) {
  ParsedLog log = ParseNemo2Log(
      "Training epoch 0, iteration 5/9 | grad_norm: inf | train_step_timing in s: 3.5\n");
  ASSERT_EQ(log.nonfinite_grad_norms.size(), 1u);
  EXPECT_EQ(log.nonfinite_grad_norms[0].step, 6);
  EXPECT_TRUE(std::isinf(log.nonfinite_grad_norms[0].value));
}

// torchtitan metrics.py output, colours and all.
constexpr std::string_view kTitanExcerpt =
    "[rank0]:[titan] 2025-11-20 08:00:12,005 - root - INFO - Trainer is initialized with local "
    "batch size 1, global batch size 512, gradient accumulation steps 1, sequence length 4096, "
    "total steps 3 (warmup 2)\n"
    "[rank0]:[titan] 2025-11-20 08:00:15,000 - root - INFO - \x1b[31mstep:  1  \x1b[32mloss: "
    "11.83000  \x1b[38;2;180;60;0mgrad_norm:  2.2727  \x1b[38;2;54;234;195mmemory: "
    "61.20GiB(77.45%)  \x1b[34mtps: 612  \x1b[36mtflops: 84.06  \x1b[35mmfu: 8.50%\x1b[39m\n"
    "[rank0]:[titan] 2025-11-20 08:00:18,000 - root - INFO - \x1b[31mstep:  2  \x1b[32mloss: "
    "11.76000  \x1b[38;2;180;60;0mgrad_norm:  2.0833  \x1b[38;2;54;234;195mmemory: "
    "61.20GiB(77.45%)  \x1b[34mtps: 1,234  \x1b[36mtflops: 1,169.50  \x1b[35mmfu: N/A\x1b[39m\n"
    "[rank0]:[titan] 2025-11-20 08:00:19,000 - root - INFO - \x1b[33mvalidate step:  2  "
    "\x1b[32mloss:  2.1000  \x1b[34mtps: 9,999\x1b[39m\n"
    "[rank0]:[titan] 2025-11-20 08:00:21,000 - root - INFO - \x1b[31mstep:  3  \x1b[32mloss: "
    "11.69000  \x1b[38;2;180;60;0mgrad_norm:    nan  \x1b[38;2;54;234;195mmemory: "
    "61.20GiB(77.45%)  \x1b[34mtps: 1,240  \x1b[36mtflops: 170.33  \x1b[35mmfu: 17.22%\x1b[39m\n"
    "[rank0]:[titan] 2025-11-20 08:00:24,000 - root - INFO - Training completed\n";

TEST(IngestTorchtitanTest, ColouredStepLines) {
  ParsedLog log = ParseTorchtitanLog(kTitanExcerpt);
  EXPECT_EQ(log.format, LogFormat::kTorchtitan);
  EXPECT_EQ(log.iteration_base, 1);
  ASSERT_EQ(log.samples.size(), 3u);  // the validation line is not a training step
  EXPECT_EQ(log.total_steps, 3);
  EXPECT_EQ(log.global_batch_size, 512);
  EXPECT_EQ(log.seq_len, 4096);
  EXPECT_TRUE(log.final_marker_seen);
  EXPECT_EQ(log.final_marker_line, 5);
  const IterationSample& s2 = log.samples[1];
  EXPECT_DOUBLE_EQ(*s2.tokens_per_s_per_gpu, 1234);
  EXPECT_DOUBLE_EQ(*s2.tflops_per_gpu, 1169.5);
  EXPECT_FALSE(s2.mfu_reported_pct.has_value());  // "N/A" under quantisation
  EXPECT_FALSE(s2.step_time_s.has_value());       // torchtitan prints none
  EXPECT_DOUBLE_EQ(*log.samples[0].mfu_reported_pct, 8.5);
  ASSERT_EQ(log.nonfinite_grad_norms.size(), 1u);
  EXPECT_EQ(log.nonfinite_grad_norms[0].step, 3);
}

TEST(IngestTorchtitanTest, CompletionWithoutTotalSteps) {
  ParsedLog log = ParseTorchtitanLog(
      "step:  1  loss: 11.8  tps: 612  tflops: 84.06  mfu: 8.50%\nTraining completed\n");
  EXPECT_FALSE(log.total_steps.has_value());
  EXPECT_TRUE(log.final_marker_seen);
  EXPECT_EQ(log.final_marker_line, 2);
  ParsedLog cut = ParseTorchtitanLog("step:  1  loss: 11.8  tps: 612  tflops: 84.06\n");
  EXPECT_FALSE(cut.final_marker_seen);
}

// A count no int64_t holds (found by fuzzing: converting it was undefined behaviour) is no count.
TEST(IngestTorchtitanTest, CountsBeyondInt64AreIgnored) {
  ParsedLog log = ParseTorchtitanLog(
      "[rank0]:[titan] INFO - global batch size 1e30, sequence length inf, total steps 9.3e18\n"
      "[rank0]:[titan] INFO - step: 1.11111e23  loss: 1.0  tps: 612  tflops: 84.06  mfu: 8.50%\n");
  EXPECT_FALSE(log.global_batch_size.has_value());
  EXPECT_FALSE(log.seq_len.has_value());
  EXPECT_FALSE(log.total_steps.has_value());
  EXPECT_TRUE(log.samples.empty());
}

TEST(IngestNemo2Test, GlobalBatchSizeBeyondInt64IsIgnored) {
  ParsedLog log = ParseNemo2Log(
      "Training epoch 0, iteration 0/2 | global_batch_size: 1e30 | train_step_timing in s: 1.5\n");
  EXPECT_FALSE(log.global_batch_size.has_value());
}

}  // namespace
}  // namespace ys::validate
