// calibration/serve_cpu.toml: the shipped file parses; literal strings for a good file, an unknown
// key, a p90 below its median and a missing table; the prediction error's definition.
#include "workloads/serving_calibration.h"

#include <gtest/gtest.h>

namespace ys::workloads {
namespace {

constexpr char kGoodServeCpu[] = R"(
[provenance]
machine = "test VM"
cpu_model = "Test CPU"
date = "2025-01-01"
method = "bench/serving_proxy.sh"
[error]
runs = 12
ttft_median = 0.03
ttft_p90 = 0.08
tpot_median = 0.02
tpot_p90 = 0.05
output_tokens_per_s_median = 0.02
output_tokens_per_s_p90 = 0.06
)";

TEST(ServingCalibrationTest, ParsesAGoodFile) {
  auto c = ParseServeCpuCalibration(kGoodServeCpu, "s.toml");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->cpu_model, "Test CPU");
  EXPECT_EQ(c->runs, 12);
  EXPECT_DOUBLE_EQ(c->ttft.p90, 0.08);
  EXPECT_DOUBLE_EQ(c->tpot.median, 0.02);
  EXPECT_DOUBLE_EQ(c->output_tokens_per_s.p90, 0.06);
}

TEST(ServingCalibrationTest, MalformedFilesNameWhatIsWrong) {
  std::string unknown = std::string(kGoodServeCpu) + "extra = 1\n";
  auto a = ParseServeCpuCalibration(unknown, "s.toml");
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.status().message().find("extra"), std::string::npos) << a.status().message();
  std::string inverted = kGoodServeCpu;
  inverted.replace(inverted.find("ttft_p90 = 0.08"), 15, "ttft_p90 = 0.01");
  auto b = ParseServeCpuCalibration(inverted, "s.toml");
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.status().message().find("ttft_p90"), std::string::npos) << b.status().message();
  auto c = ParseServeCpuCalibration("[provenance]\nmachine = \"x\"\n", "s.toml");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("[error]"), std::string::npos) << c.status().message();
}

TEST(ServingCalibrationTest, ShippedFileParses) {
  auto c = LoadServeCpuCalibration(ServeCpuCalibrationPath(YS_SOURCE_DIR));
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_GT(c->runs, 0);
  EXPECT_GE(c->ttft.p90, c->ttft.median);
}

TEST(ServingCalibrationTest, PredictionError) {
  EXPECT_DOUBLE_EQ(*ServingPredictionError(0.9, 1.0), 0.1);
  EXPECT_DOUBLE_EQ(*ServingPredictionError(1.2, 1.0), 0.2);
  EXPECT_FALSE(ServingPredictionError(1.0, 0.0).has_value());
}

}  // namespace
}  // namespace ys::workloads
