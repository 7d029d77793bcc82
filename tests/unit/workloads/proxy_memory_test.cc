// The proxy's buffers are counted before they are allocated: a model file with a huge dimension
// is refused naming the file, what the buffers need and the budget (it was std::bad_alloc).
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "testing/text_edit.h"
#include "workloads/proxy/internal/proxy_executor.h"
#include "workloads/proxy_plan.h"

namespace ys::workloads {
namespace {

std::string ModelText() {
  std::ifstream in(std::string(YS_SOURCE_DIR) + "/models/llama3.1_8b.toml");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Result<ProxyPlan> CpuPlan(const predict::ModelSpec& spec) {
  auto recipe = CpuRecipe(spec, nullptr);
  if (!recipe.ok()) return recipe.status();
  return PlanProxyStep(
      spec, *recipe,
      {.scale = CpuScaleFactor(spec, *recipe), .layers = 2, .micro_batches = 1, .dtype_bytes = 4});
}

TEST(ProxyMemoryTest, TheShippedModelFitsAModestBudget) {
  auto spec = predict::ParseModelSpec(ModelText(), "m.toml");
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  auto plan = CpuPlan(*spec);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  ProxyBuffers b = ProxyBufferSizes(*plan);
  EXPECT_GT(b.Bytes(), 0);
  EXPECT_LT(b.Bytes(), 1e9);
  EXPECT_TRUE(CheckProxyMemory(*plan, "m.toml", 4e9, "test").ok());
}

TEST(ProxyMemoryTest, AHugeDimensionIsRefusedBeforeAllocating) {
  auto spec = predict::ParseModelSpec(
      ys::testing::Replace(ModelText(), "hidden_size = 4096", "hidden_size = 4194304"), "m.toml");
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  auto plan = CpuPlan(*spec);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  ProxyBuffers b = ProxyBufferSizes(*plan);
  EXPECT_TRUE(std::isfinite(b.Bytes()));
  EXPECT_GT(b.Bytes(), 64e9);
  Status s = CheckProxyMemory(*plan, "m.toml", 8e9, "half of MemAvailable");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kInvalidInput);
  EXPECT_NE(s.message().find("m.toml: the proxy needs "), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("more than the budget of 7.451 GiB (half of MemAvailable)"),
            std::string::npos)
      << s.message();
}

// Products of the largest dimensions stay within 64 bits: past 2^40 elements per activation the
// plan is refused rather than wrapped.
TEST(ProxyMemoryTest, ActivationsPastTwoToTheFortyAreRefused) {
  std::string text =
      ys::testing::Replace(ModelText(), "hidden_size = 4096", "hidden_size = 4194304");
  text = ys::testing::Replace(text, "seq_length = 8192", "seq_length = 4194304");
  auto spec = predict::ParseModelSpec(text, "m.toml");
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  auto recipe = CpuRecipe(*spec, nullptr);
  ASSERT_TRUE(recipe.ok());
  auto plan = PlanProxyStep(*spec, *recipe, {});
  ASSERT_FALSE(plan.ok());
  EXPECT_NE(plan.status().message().find("is beyond 2^40 elements per activation"),
            std::string::npos)
      << plan.status().message();
}

}  // namespace
}  // namespace ys::workloads
