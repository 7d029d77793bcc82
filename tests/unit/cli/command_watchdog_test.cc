#include "cli/command_watchdog.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

namespace ys::cli {
namespace {

TEST(CommandWatchdogDeathTest, EndsAHungCommandWithExit2NamingTheStep) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        CommandWatchdog dog("topo", 0.2);
        dog.Step("reading the topology");
        std::this_thread::sleep_for(std::chrono::seconds(30));
      },
      ::testing::ExitedWithCode(2),
      "topo: reading the topology did not finish within --timeout 0.2 s");
}

TEST(CommandWatchdogDeathTest, TheClockRunsOverTheWholeCommand) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  // Steps of 0.1 s each never reach the timeout alone; together they do.
  EXPECT_EXIT(
      {
        CommandWatchdog dog("preflight", 0.5);
        for (int i = 0; i < 100; ++i) {
          dog.Step("check " + std::to_string(i));
          std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
      },
      ::testing::ExitedWithCode(2),
      "preflight: check [0-9]+ did not finish within --timeout 0.5 s");
}

TEST(CommandWatchdogDeathTest, TheCommandChoosesWhatExpiryPrintsAndItsExitCode) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        CommandWatchdog dog("healthcheck", 0.2, [](const std::string& m) {
          std::fprintf(stderr, "UNKNOWN - %s\n", m.c_str());
          return 3;
        });
        std::this_thread::sleep_for(std::chrono::seconds(30));
      },
      ::testing::ExitedWithCode(3), "UNKNOWN - healthcheck: starting up did not finish");
}

TEST(CommandWatchdogTest, AFinishedCommandIsNotEnded) {
  { CommandWatchdog dog("topo", 0.05); }
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  SUCCEED();
}

TEST(CommandWatchdogTest, ReadsTheStepOfAChildsExpiredWatchdog) {
  EXPECT_EQ(
      StepOfExpiredWatchdog("yardstick: error: preflight: check gpu.xid did not finish within "
                            "--timeout 2 s (2 s); stopped\n",
                            "preflight"),
      "check gpu.xid");
  EXPECT_FALSE(StepOfExpiredWatchdog("yardstick: error: /x: a FIFO\n", "preflight"));
  EXPECT_FALSE(StepOfExpiredWatchdog("preflight: x\nother did not finish within --timeout 2 s",
                                     "preflight"));
}

}  // namespace
}  // namespace ys::cli
