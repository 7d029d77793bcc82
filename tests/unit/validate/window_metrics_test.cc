// The measurement window, its step numbering, and the derived throughput figures.
#include <gtest/gtest.h>

#include "validate/derived_metrics.h"
#include "validate/measurement_window.h"

namespace ys::validate {
namespace {

TEST(IngestWindowTest, ParseWindow) {
  Result<MeasurementWindow> w = ParseWindow("35:44");
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(w->first_step, 35);
  EXPECT_EQ(w->last_step, 44);
  EXPECT_EQ(w->size(), 10);
  EXPECT_EQ(*ParseWindow("7:7"), (MeasurementWindow{7, 7}));
  for (const char* bad :
       {"", "35", "35-44", "44:35", "0:10", "a:b", "35:44:50", "-1:3", "1:2000000"}) {
    Result<MeasurementWindow> r = ParseWindow(bad);
    EXPECT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.status().message().find("window"), std::string::npos);
  }
  EXPECT_EQ(MeasurementWindow{}, (MeasurementWindow{35, 44}));  // llmb-run's default
}

TEST(IngestWindowTest, FormatSteps) {
  EXPECT_EQ(FormatSteps({}), "");
  EXPECT_EQ(FormatSteps({36}), "36");
  EXPECT_EQ(FormatSteps({36, 40, 41, 42, 44}), "36, 40-42, 44");
  EXPECT_EQ(FormatWindow({35, 44}), "35-44");
}

IterationSample Timed(int64_t step, double t, std::optional<double> tflops) {
  IterationSample s;
  s.step = step;
  s.step_time_s = t;
  s.tflops_per_gpu = tflops;
  return s;
}

TEST(IngestWindowTest, MeanAndSampleStdevOverTheWindowOnly) {
  std::vector<IterationSample> samples;
  samples.push_back(Timed(1, 125.0, 60.0));  // warm-up: outside the window
  samples.push_back(Timed(2, 10.0, 500.0));
  samples.push_back(Timed(3, 12.0, 520.0));
  samples.push_back(Timed(4, 11.0, 510.0));
  samples.push_back(Timed(5, 99.0, 1.0));  // outside
  WindowEvaluation ev = EvaluateWindow(samples, {2, 4});
  EXPECT_TRUE(ev.missing_steps.empty());
  ASSERT_TRUE(ev.step_time_s.has_value());
  EXPECT_EQ(ev.step_time_s->n, 3);
  EXPECT_DOUBLE_EQ(ev.step_time_s->mean, 11.0);
  EXPECT_DOUBLE_EQ(ev.step_time_s->stdev, 1.0);  // sample stdev: sqrt((1+1+0)/2)
  EXPECT_DOUBLE_EQ(ev.tflops_per_gpu->mean, 510.0);
  EXPECT_DOUBLE_EQ(ev.tflops_per_gpu->stdev, 10.0);
}

TEST(IngestWindowTest, MissingStepsAndZeroTflops) {
  std::vector<IterationSample> samples;
  samples.push_back(Timed(35, 9.0, 0.0));
  IterationSample untimed;
  untimed.step = 36;  // iteration line seen, but no timing on it
  samples.push_back(untimed);
  samples.push_back(Timed(38, 9.2, 0.0));
  WindowEvaluation ev = EvaluateWindow(samples, {35, 39});
  EXPECT_EQ(ev.missing_steps, (std::vector<int64_t>{36, 37, 39}));
  EXPECT_EQ(ev.step_time_s->n, 2);
  EXPECT_FALSE(ev.tflops_per_gpu.has_value());  // 0 means not reported (hybrid models)
  EXPECT_EQ(ev.tflops_zero, 2);
}

TEST(IngestWindowTest, TorchtitanThroughputCountsAsTiming) {
  IterationSample s;
  s.step = 1;
  s.tokens_per_s_per_gpu = 1234;
  WindowEvaluation ev = EvaluateWindow({s}, {1, 1});
  EXPECT_TRUE(ev.missing_steps.empty());
  EXPECT_FALSE(ev.step_time_s.has_value());
  EXPECT_DOUBLE_EQ(ev.tokens_per_s_per_gpu->mean, 1234);
}

TEST(IngestDerivedTest, HandComputedThroughput) {
  // seq 8192 x GBS 2048 = 16,777,216 tokens per step; / 14.66 s = 1,144,421.282 tokens/s;
  // / 512 GPUs = 2,235.198 tokens/s/GPU (not 2,235.4). MFU = 537.0 / 989 = 54.297%.
  JobShape shape{.seq_len = 8192, .global_batch_size = 2048, .gpus = 512, .peak_tflops = 989};
  DerivedMetrics d = DeriveMetrics(14.66, 537.0, std::nullopt, shape);
  EXPECT_NEAR(*d.tokens_per_s, 1144421.2824, 1e-3);
  EXPECT_NEAR(*d.tokens_per_s_per_gpu, 2235.1978, 1e-4);
  EXPECT_NEAR(*d.mfu, 0.542973, 1e-6);
  EXPECT_DOUBLE_EQ(*d.tflops_per_gpu, 537.0);
  EXPECT_TRUE(d.missing.empty());
  // The published v25.04.02 Llama3.1 70B H100 row: GBS 1024 on 512 GPUs at 14.66 s is
  // 1,117.6 tokens/s/GPU (the table says about 1,118).
  shape.global_batch_size = 1024;
  EXPECT_NEAR(*DeriveMetrics(14.66, 537.0, std::nullopt, shape).tokens_per_s_per_gpu, 1117.5989,
              1e-4);
}

TEST(IngestDerivedTest, MissingInputsAreNamedNotInvented) {
  DerivedMetrics d = DeriveMetrics(14.66, 537.0, std::nullopt, JobShape{});
  EXPECT_FALSE(d.tokens_per_s.has_value());
  EXPECT_FALSE(d.tokens_per_s_per_gpu.has_value());
  EXPECT_FALSE(d.mfu.has_value());
  ASSERT_EQ(d.missing.size(), 3u);
  EXPECT_NE(d.missing[0].find("--seq"), std::string::npos);
  EXPECT_NE(d.missing[1].find("--gbs"), std::string::npos);
  EXPECT_NE(d.missing[2].find("--peak-tflops"), std::string::npos);
  JobShape no_gpus{.seq_len = 8192, .global_batch_size = 1024};
  d = DeriveMetrics(14.66, std::nullopt, std::nullopt, no_gpus);
  EXPECT_TRUE(d.tokens_per_s.has_value());
  EXPECT_FALSE(d.tokens_per_s_per_gpu.has_value());
  EXPECT_FALSE(d.mfu.has_value());
}

TEST(IngestDerivedTest, MeasuredTokensPerGpuWhenNoStepTime) {
  DerivedMetrics d = DeriveMetrics(std::nullopt, 169.5, 1234.0, JobShape{.gpus = 512});
  EXPECT_DOUBLE_EQ(*d.tokens_per_s_per_gpu, 1234.0);
  EXPECT_DOUBLE_EQ(*d.tokens_per_s, 1234.0 * 512);
}

}  // namespace
}  // namespace ys::validate
