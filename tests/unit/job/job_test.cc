// The job machinery: the watchdog, the liveness probe, and a single-process job end to end.
#include "job/job.h"

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "comm/liveness.h"
#include "core/watchdog.h"

namespace ys::job {
namespace {

TEST(WatchdogTest, FiresOnceForAStepThatRunsTooLong) {
  std::atomic<int> fired{0};
  std::string seen;
  {
    Watchdog dog(0.05, [&](const std::string& step, double seconds) {
      seen = step;
      EXPECT_GE(seconds, 0.05);
      ++fired;
    });
    dog.Enter("slow step");
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    dog.Leave();
  }
  EXPECT_EQ(fired.load(), 1);
  EXPECT_EQ(seen, "slow step");
}

TEST(WatchdogTest, QuietForStepsThatEndInTimeAndWhenDisabled) {
  std::atomic<int> fired{0};
  {
    Watchdog dog(0.2, [&](const std::string&, double) { ++fired; });
    for (int i = 0; i < 5; ++i) {
      EXPECT_EQ(InStep(dog, "quick", [] { return 7; }), 7);
      std::this_thread::sleep_for(std::chrono::milliseconds(60));  // between steps: not timed
    }
  }
  {
    Watchdog off(0, [&](const std::string&, double) { ++fired; });
    off.Enter("untimed");
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_EQ(fired.load(), 0);
}

TEST(LivenessTest, AResponderAnswersAndAClosedPortDoesNot) {
  auto responder = comm::LivenessResponder::Start("localhost");
  ASSERT_TRUE(responder.ok()) << responder.status().ToString();
  std::string live = (*responder)->endpoint();
  std::string closed;
  {
    auto gone = comm::LivenessResponder::Start("localhost");
    ASSERT_TRUE(gone.ok());
    closed = (*gone)->endpoint();
  }  // destroyed: its port is closed now
  auto silent =
      comm::UnansweredEndpoints({live, closed, "", "no-port", "localhost:notaport", live}, 2.0);
  EXPECT_EQ(silent, (std::vector<int>{1, 2, 3, 4}));
}

class JobTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("ys-job-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
  host::Host live_ = host::Host::Live();
  comm::SingleProcessCommunicator comm_;
};

TEST_F(JobTest, SingleProcessKeepsTheDocumentAndReturnsTheExitCode) {
  // zz_test.measure is registered by tests/unit/bench/framework_test.cc.
  JobOptions o{.command = "bench",
               .bench = bench::BenchOptions{.filters = {"zz_test.measure"}},
               .timeout_s = 60,
               .out_path = (dir_ / "run.json").string()};
  int emitted = 0;
  o.emit = [&](const RunDocument& doc) {
    ++emitted;
    EXPECT_EQ(doc.benchmarks.size(), 1u);
    EXPECT_TRUE(doc.nodes.empty());  // one process: no per-node breakdown
    EXPECT_FALSE(doc.incomplete);
    return 5;
  };
  auto code = RunJob(o, comm_, live_);
  ASSERT_TRUE(code.ok()) << code.status().ToString();
  EXPECT_EQ(*code, 5);
  EXPECT_EQ(emitted, 1);
  std::ifstream in(dir_ / "run.json");
  auto j = nlohmann::json::parse(in);
  EXPECT_EQ(j["incomplete"], false);
  EXPECT_EQ(j["benchmarks"][0]["id"], "zz_test.measure");
  EXPECT_FALSE(j.contains("ranks"));
}

TEST_F(JobTest, AFilterThatSelectsNothingIsAnErrorBeforeAnythingRuns) {
  JobOptions o{.command = "bench",
               .bench = bench::BenchOptions{.filters = {"nothing.*"}},
               .out_path = (dir_ / "run.json").string()};
  auto code = RunJob(o, comm_, live_);
  EXPECT_EQ(code.status().code(), StatusCode::kInvalidInput);
  EXPECT_FALSE(std::filesystem::exists(dir_ / "run.json"));
}

}  // namespace
}  // namespace ys::job
