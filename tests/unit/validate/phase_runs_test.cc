// A phase's folder: every serving export in it read (a sweep's per-point folders too), other
// files left alone, and a folder without one named with what it holds.
#include "validate/phase_runs.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace ys::validate {
namespace {

namespace fs = std::filesystem;

const std::string kPhaseRunsReal = std::string(YS_FIXTURES_DIR) + "/real/serving/";

ServingPhase QwenPhase() {
  ServingPhase p;
  p.id = "qwen3_chat_c8";
  p.gpus = 1;
  return p;
}

std::string FreshRuns(const std::string& name) {
  std::string dir = ::testing::TempDir() + "/phase_runs_" + name;
  fs::remove_all(dir);
  fs::create_directories(dir + "/qwen3_chat_c8");
  return dir;
}

TEST(PhaseRunsTest, ReadsEveryServingExportOfTheFolder) {
  const std::string runs = FreshRuns("sweep");
  fs::create_directories(runs + "/qwen3_chat_c8/c8");
  fs::copy_file(kPhaseRunsReal + "aiperf/aiperf_plot_fixture_qwen3_0.6b_c8.json",
                runs + "/qwen3_chat_c8/c8/profile_export_aiperf.json");
  fs::copy_file(kPhaseRunsReal + "sglang/h200_llama_3_3_70b_online_output.jsonl",
                runs + "/qwen3_chat_c8/rates.jsonl");
  std::ofstream(runs + "/qwen3_chat_c8/server.log") << "INFO: Uvicorn running\n";
  auto run = ReadPhaseRun(runs, QwenPhase());
  ASSERT_TRUE(run.ok()) << run.status().message();
  EXPECT_TRUE(run->problem.empty()) << run->problem;
  ASSERT_EQ(run->files.size(), 2u);
  EXPECT_EQ(run->points.size(), 8u);  // 1 AIPerf point and the 7 rates of the JSON Lines
  EXPECT_EQ(run->format, "aiperf-json, inference-json");
  EXPECT_EQ(run->points[0].tool, "aiperf");
}

// AIPerf writes its JSON and CSV side by side: one run, read once.
TEST(PhaseRunsTest, TwoExportsOfOneRunInOneFolderAreOnePoint) {
  const std::string runs = FreshRuns("twice");
  for (const char* name : {"profile_export_aiperf.json", "copy_of_export.json"}) {
    fs::copy_file(kPhaseRunsReal + "aiperf/aiperf_plot_fixture_qwen3_0.6b_c8.json",
                  runs + "/qwen3_chat_c8/" + name);
  }
  fs::create_directories(runs + "/qwen3_chat_c8/again");
  fs::copy_file(kPhaseRunsReal + "aiperf/aiperf_plot_fixture_qwen3_0.6b_c8.json",
                runs + "/qwen3_chat_c8/again/profile_export_aiperf.json");
  auto run = ReadPhaseRun(runs, QwenPhase());
  ASSERT_TRUE(run.ok()) << run.status().message();
  EXPECT_EQ(run->files.size(), 3u);
  EXPECT_EQ(run->points.size(), 2u);  // another folder is another run, even with equal figures
}

TEST(PhaseRunsTest, AFolderWithoutAnExportNamesWhatItHolds) {
  const std::string runs = FreshRuns("empty");
  std::ofstream(runs + "/qwen3_chat_c8/server.log") << "INFO: started\n";
  auto run = ReadPhaseRun(runs, QwenPhase());
  ASSERT_TRUE(run.ok());
  EXPECT_NE(run->problem.find("no serving output in " + runs +
                              "/qwen3_chat_c8 (it holds "
                              "server.log)"),
            std::string::npos)
      << run->problem;
  auto missing = ReadPhaseRun(runs + "/nowhere", QwenPhase());
  ASSERT_TRUE(missing.ok());
  EXPECT_NE(missing->problem.find("is not a folder"), std::string::npos);
}

TEST(PhaseRunsTest, AClaimedExportThatCannotBeReadIsAnError) {
  const std::string runs = FreshRuns("bad");
  std::ofstream(runs + "/qwen3_chat_c8/profile_export_aiperf.json")
      << R"({"aiperf_version": "0.3", "request_count": {"unit": "requests", "avg": -3}})";
  auto run = ReadPhaseRun(runs, QwenPhase());
  ASSERT_FALSE(run.ok());
  EXPECT_NE(run.status().message().find("profile_export_aiperf.json"), std::string::npos)
      << run.status().message();
}

}  // namespace
}  // namespace ys::validate
