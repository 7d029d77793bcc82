// The job machinery: the watchdog, the liveness probe, and a single-process job end to end.
#include "job/job.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>

#include "comm/liveness.h"
#include "core/run_document_json.h"
#include "core/watchdog.h"
#include "report/html/html_report.h"
#include "report/html/report_input.h"

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

// The document rank 0 shows is the one it saved: `run` draws its HTML page from it in memory,
// and that page is the one drawn from the saved file.
TEST_F(JobTest, TheDocumentShownIsTheDocumentSaved) {
  JobOptions o{.command = "bench",
               .bench = bench::BenchOptions{.filters = {"zz_test.measure"}},
               .timeout_s = 60,
               .out_path = (dir_ / "run.json").string()};
  std::optional<RunDocument> shown;
  o.emit = [&](const RunDocument& doc) {
    shown = doc;
    return 0;
  };
  ASSERT_TRUE(RunJob(o, comm_, live_).ok());
  ASSERT_TRUE(shown.has_value());
  std::ifstream in(dir_ / "run.json");
  std::string saved((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(DumpJson(ToJson(*shown)) + "\n", saved);
  auto from_disk = report::html::LoadReportInput((dir_ / "run.json").string());
  ASSERT_TRUE(from_disk.ok()) << from_disk.status().message();
  auto in_memory = report::html::ReportInputOf(*shown, dir_.string());
  ASSERT_TRUE(in_memory.ok()) << in_memory.status().message();
  EXPECT_EQ(report::html::BuildHtmlReport(*in_memory, "x"),
            report::html::BuildHtmlReport(*from_disk, "x"));
}

// Fleet outliers and the caller's conclusions are drawn the same way, in order, on the whole
// document: one process on one node draws no fleet outliers, only the caller's.
TEST_F(JobTest, ConclusionsAreDrawnInOrderOnTheWholeDocument) {
  JobOptions o{.command = "bench",
               .bench = bench::BenchOptions{.filters = {"zz_test.measure"}},
               .timeout_s = 60,
               .out_path = (dir_ / "run.json").string()};
  std::vector<std::string> drawn;
  for (const char* name : {"first", "second"}) {
    o.conclusions.push_back({.name = name, .draw = [&drawn, name](RunDocument& doc) {
                               EXPECT_EQ(doc.benchmarks.size(), 1u) << name;
                               drawn.push_back(name);
                               doc.warnings.push_back(std::string("concluded ") + name);
                             }});
  }
  o.emit = [](const RunDocument& doc) {
    EXPECT_TRUE(std::none_of(doc.checks.begin(), doc.checks.end(),
                             [](const CheckResult& c) { return c.unit_id == "fleet.outliers"; }));
    return 0;
  };
  ASSERT_TRUE(RunJob(o, comm_, live_).ok());
  EXPECT_EQ(drawn, (std::vector<std::string>{"first", "second"}));
  std::ifstream in(dir_ / "run.json");
  auto j = nlohmann::json::parse(in);
  std::vector<std::string> warnings = j["warnings"];
  EXPECT_NE(std::find(warnings.begin(), warnings.end(), "concluded second"), warnings.end());
}

}  // namespace
}  // namespace ys::job
