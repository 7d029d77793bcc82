#include "validate/log_line.h"

#include <gtest/gtest.h>

#include <cmath>

#include "validate/log_format.h"

namespace ys::validate {
namespace {

TEST(IngestLogLineTest, StripsAnsiColours) {
  EXPECT_EQ(StripAnsi("\x1b[31mstep:  1  \x1b[38;2;180;60;0mgrad_norm:  2.27\x1b[39m"),
            "step:  1  grad_norm:  2.27");
  EXPECT_EQ(StripAnsi("plain"), "plain");
  EXPECT_EQ(StripAnsi("cut \x1b["), "cut ");  // an escape cut at the end of the line
  EXPECT_EQ(StripAnsi("\x1b]0;title\x07text"), "text");
}

TEST(IngestLogLineTest, NumberAfterKey) {
  std::string_view line =
      " [2025-12-22 15:18:33] iteration       50/      50 | consumed samples:        25600 | "
      "elapsed time per iteration (ms): 9089.0 | learning rate: 3.000000E-05 | global batch "
      "size:   512 | lm loss: 8.114214E+00 | loss scale: 1.0 | grad norm: 0.042 |";
  EXPECT_DOUBLE_EQ(*NumberAfter(line, "elapsed time per iteration (ms):"), 9089.0);
  EXPECT_DOUBLE_EQ(*NumberAfter(line, "learning rate:"), 3.0e-5);
  EXPECT_DOUBLE_EQ(*NumberAfter(line, "global batch size:"), 512);
  EXPECT_DOUBLE_EQ(*NumberAfter(line, "lm loss:"), 8.114214);
  EXPECT_DOUBLE_EQ(*NumberAfter(line, "grad norm:"), 0.042);
  EXPECT_FALSE(NumberAfter(line, "throughput per GPU (TFLOP/s/GPU):").has_value());
  // "loss:" must start a word: "lm loss:" matches, "xloss:" does not.
  EXPECT_FALSE(NumberAfter("xloss: 3", "loss:").has_value());
  EXPECT_DOUBLE_EQ(*NumberAfter("a loss: x | loss: 4", "loss:"), 4);  // first with a number
}

TEST(IngestLogLineTest, NonFiniteAndCommaNumbers) {
  EXPECT_TRUE(std::isnan(*NumberAfter("grad norm: nan |", "grad norm:")));
  EXPECT_TRUE(std::isnan(*NumberAfter("grad norm: NaN", "grad norm:")));
  EXPECT_TRUE(std::isinf(*NumberAfter("grad_norm:     inf  memory", "grad_norm:")));
  EXPECT_FALSE(NumberAfter("grad norm: nanny", "grad norm:").has_value());
  EXPECT_DOUBLE_EQ(*NumberAfter("tps: 1,234  tflops: 1,169.50", "tps:", true), 1234);
  EXPECT_DOUBLE_EQ(*NumberAfter("tps: 1,234  tflops: 1,169.50", "tflops:", true), 1169.5);
  // Without allow_commas the number stops at the comma.
  EXPECT_DOUBLE_EQ(*NumberAfter("tps: 1,234", "tps:"), 1);
  EXPECT_FALSE(ParseLogNumber("1,23", true).has_value());
  EXPECT_FALSE(ParseLogNumber("12abc").has_value());
  EXPECT_DOUBLE_EQ(*ParseLogNumber("-2.5e3"), -2500);
}

TEST(IngestLogLineTest, NumberBeforeUnit) {
  EXPECT_DOUBLE_EQ(*NumberBefore("Step Time : 9.09s GPU utilization: 663.5MODEL_TFLOP/s/GPU",
                                 "MODEL_TFLOP/s/GPU"),
                   663.5);
  EXPECT_DOUBLE_EQ(*NumberBefore("GPU utilization: 257.1 MODEL_TFLOP/s/GPU ,", "MODEL_TFLOP/s/GPU"),
                   257.1);
  // The Megatron-LM field has the number after the unit, not before.
  EXPECT_FALSE(
      NumberBefore("throughput per GPU (TFLOP/s/GPU): 401.2 |", "TFLOP/s/GPU").has_value());
  EXPECT_FALSE(NumberBefore("663.5MODEL_TFLOP/s/GPU", "TFLOP/s/GPU").has_value());
}

TEST(IngestLogLineTest, IterationMarker) {
  auto m = FindIterationMarker(" [x] iteration       50/      50 | consumed");
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->n, 50);
  EXPECT_EQ(m->m, 50);
  m = FindIterationMarker("Training epoch 0, iteration 49/49 | lr: 7.496e-06");
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->n, 49);
  EXPECT_EQ(m->m, 49);
  EXPECT_FALSE(FindIterationMarker("number of skipped iterations:   0 |").has_value());
  EXPECT_FALSE(FindIterationMarker("(after 1 iterations) memory (GB)").has_value());
  EXPECT_FALSE(FindIterationMarker("iteration 3/4x").has_value());
  EXPECT_FALSE(FindIterationMarker("reiteration 3/4").has_value());
}

TEST(IngestFormatTest, NamesRoundTrip) {
  for (LogFormat f : {LogFormat::kAuto, LogFormat::kNemo2, LogFormat::kMegatron,
                      LogFormat::kTorchtitan, LogFormat::kInferenceJson}) {
    EXPECT_EQ(ParseLogFormat(LogFormatName(f)), f);
  }
  EXPECT_FALSE(ParseLogFormat("nemo").has_value());
}

TEST(IngestFormatTest, DetectsEachFormatFromItsLines) {
  EXPECT_EQ(DetectLogFormat("setup\nTraining epoch 0, iteration 0/49 | lr: 1e-05 | "
                            "train_step_timing in s: 12.39 | TFLOPS_per_GPU: 617.8\n"),
            LogFormat::kNemo2);
  EXPECT_EQ(DetectLogFormat(" [2025-12-22 15:18:33] iteration        1/      50 | consumed "
                            "samples:          512 | elapsed time per iteration (ms): 9089.0 |\n"),
            LogFormat::kMegatron);
  EXPECT_EQ(DetectLogFormat("Step Time : 9.09s GPU utilization: 663.5MODEL_TFLOP/s/GPU\n"),
            LogFormat::kMegatron);
  EXPECT_EQ(
      DetectLogFormat("[rank0]:[titan] - INFO - \x1b[31mstep:  1  \x1b[32mloss: 11.83000  "
                      "\x1b[34mtps: 612  \x1b[36mtflops: 84.06  \x1b[35mmfu: 8.50%\x1b[39m\n"),
      LogFormat::kTorchtitan);
  EXPECT_FALSE(DetectLogFormat("[rank0]: validate step:  5  loss:  2.1  tps: 99\n").has_value());
  EXPECT_FALSE(DetectLogFormat("hello\nworld\n").has_value());
  EXPECT_FALSE(DetectLogFormat("").has_value());
}

TEST(IngestLogLineTest, LogCountIsAWholeNumberAnInt64Holds) {
  EXPECT_EQ(LogCount(512.0), 512);
  EXPECT_EQ(LogCount(0x1p62), int64_t{1} << 62);
  EXPECT_FALSE(LogCount(0x1p63).has_value());
  EXPECT_FALSE(LogCount(1e30).has_value());
  EXPECT_FALSE(LogCount(INFINITY).has_value());
  EXPECT_FALSE(LogCount(NAN).has_value());
  EXPECT_FALSE(LogCount(0.0).has_value());
  EXPECT_FALSE(LogCount(3.5).has_value());
  EXPECT_FALSE(LogCount(std::nullopt).has_value());
}

}  // namespace
}  // namespace ys::validate
