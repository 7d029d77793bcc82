#include "validate/run_discovery.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "testing/check_test_util.h"

namespace ys::validate {
namespace {

namespace fs = std::filesystem;

Suite TwoWorkloads() {
  Suite s;
  s.chip = "h100";
  s.workloads = {
      {"llama3.1_70b_bf16", "llama3.1", "70b", "bf16", 512, 8192, 2048, "megatron_bridge"},
      {"qwen3_235b_bf16", "qwen3", "235b", "bf16", 512, 4096, 16384, "megatron_bridge"}};
  return s;
}

class RunDiscoveryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("ys-runs-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  void Write(const std::string& rel, const std::string& text = "x\n") {
    fs::path p = dir_ / rel;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
  }
  static std::string Config(const std::string& job, const std::string& model,
                            const std::string& size, int scale) {
    return "job_info:\n  job_id: '" + job +
           "'\nworkload_info:\n  framework: megatron_bridge\n"
           "model_info:\n  model_name: " +
           model + "\n  model_size: " + size +
           "\n  dtype: bf16\n  scale: " + std::to_string(scale) + "\n  gpu_type: h100\n";
  }
  fs::path dir_;
};

TEST_F(RunDiscoveryTest, LlmbLayoutNewestRetryAndNewestJob) {
  std::string exp = "workloads/pretrain_llama3.1/experiments/e1/";
  Write(exp + "llmb-config_100.yaml", Config("100", "llama3.1", "70b", 512));
  Write(exp + "log-e1_100_0.out");
  Write(exp + "log-e1_100_1.out");
  Write(exp + "sbatch_e1.out");
  std::string exp2 = "workloads/pretrain_llama3.1/experiments/e2/";
  Write(exp2 + "llmb-config_99.yaml", Config("99", "llama3.1", "70b", 512));
  Write(exp2 + "log-e2_99_0.out");
  auto d = DiscoverRuns(TwoWorkloads(), dir_.string());
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  ASSERT_EQ(d->runs.count("llama3.1_70b_bf16"), 1u);
  const auto& run = d->runs.at("llama3.1_70b_bf16");
  EXPECT_EQ(fs::path(run.log).filename(), "log-e1_100_1.out");
  EXPECT_EQ(run.how, "llmb-config_100.yaml model_info");
  ASSERT_EQ(run.superseded.size(), 2u);  // retry 0 of job 100, and job 99
  EXPECT_EQ(run.side_files.size(), 2u);  // its config and sbatch output
  EXPECT_EQ(d->runs.count("qwen3_235b_bf16"), 0u);
}

TEST_F(RunDiscoveryTest, PlainFoldersAndIgnoredLogs) {
  Write("qwen3_235b_bf16/train.log");
  Write("something_else/train.log");
  std::string exp = "workloads/pretrain_llama3.1/experiments/e1/";
  Write(exp + "llmb-config_7.yaml", Config("7", "llama3.1", "70b", 256));  // another scale
  Write(exp + "log-e1_7_0.out");
  auto d = DiscoverRuns(TwoWorkloads(), dir_.string());
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ(d->runs.at("qwen3_235b_bf16").how, "folder name");
  EXPECT_EQ(d->runs.count("llama3.1_70b_bf16"), 0u);
  ASSERT_EQ(d->ignored.size(), 2u);
  std::string all = d->ignored[0] + d->ignored[1];
  EXPECT_NE(all.find("at 256 GPUs, the suite runs it at 512"), std::string::npos) << all;
  EXPECT_NE(all.find("matches no workload"), std::string::npos) << all;
}

TEST_F(RunDiscoveryTest, MalformedConfigAndMissingDirectory) {
  std::string exp = "workloads/x/experiments/e1/";
  Write(exp + "llmb-config_5.yaml", "model_info:\n\tmodel_name: tabbed\n");
  Write(exp + "log-e1_5_0.out");
  auto d = DiscoverRuns(TwoWorkloads(), dir_.string());
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.status().message().find("llmb-config_5.yaml"), std::string::npos)
      << d.status().message();
  EXPECT_FALSE(DiscoverRuns(TwoWorkloads(), (dir_ / "absent").string()).ok());
}

}  // namespace
}  // namespace ys::validate
