#include <gtest/gtest.h>

#include <string>

#include "checks/cpu/cpu_test_util.h"
#include "host/busy_core_clock.h"

namespace ys {
namespace {

using testing::EvidenceValue;
using testing::FindFinding;
using testing::HasFinding;
using testing::RunOnFixture;
using testing::TempHost;

constexpr const char* kId = "cpu.busy_clock";

TEST(BusyClockTest, RecordedHealthyClockPasses) {
  CheckResult r = RunOnFixture(kId, "healthy-8gpu");
  EXPECT_OUTCOME(r, Outcome::kPass);
  EXPECT_EQ(EvidenceValue(r, "cpu0"), "3752 MHz");
  EXPECT_EQ(EvidenceValue(r, "cpu7"), "3748 MHz");
  EXPECT_NE(EvidenceValue(r, "rated maximum").find("3800 MHz from cpufreq cpuinfo_max_freq"),
            std::string::npos);
  EXPECT_NE(EvidenceValue(r, "method").find("recorded"), std::string::npos);
  EXPECT_NE(EvidenceValue(r, "caveat").find("SMT"), std::string::npos);
  EXPECT_NE(r.summary.find("99% of 3800 MHz"), std::string::npos) << r.summary;
}

TEST(BusyClockTest, MisconfiguredNodeRunsAt3GHzOfA38GHzPart) {
  CheckResult r = RunOnFixture(kId, "h100-misconfigured");
  EXPECT_OUTCOME(r, Outcome::kFail);
  const Finding* f = FindFinding(r, "YS-CPU-016");
  ASSERT_NE(f, nullptr) << testing::Describe(r);
  EXPECT_NE(f->message.find("3000 MHz is 79% of the rated maximum 3800 MHz"), std::string::npos)
      << f->message;
  EXPECT_NE(f->expected_recovery.find("4%"), std::string::npos);
  bool has_cpu = false;
  for (const auto& [k, v] : f->evidence) has_cpu |= (k == "cpu5" && v == "3002 MHz");
  EXPECT_TRUE(has_cpu);
}

TEST(BusyClockTest, SiteThresholdDecides) {
  checks::SiteExpectations strict;
  strict.params.Set("cpu.busy_clock", "min_busy_clock_ratio", 0.995);
  EXPECT_TRUE(HasFinding(RunOnFixture(kId, "healthy-8gpu", strict), "YS-CPU-016"));
  checks::SiteExpectations lenient;
  lenient.params.Set("cpu.busy_clock", "min_busy_clock_ratio", 0.75);
  EXPECT_OUTCOME(RunOnFixture(kId, "h100-misconfigured", lenient), Outcome::kPass);
}

TEST(BusyClockTest, SkipsOnARecordedTreeWithoutARecording) {
  CheckResult r = RunOnFixture(kId, "container-topo-missing");
  EXPECT_OUTCOME(r, Outcome::kSkip);
  EXPECT_NE(r.summary.find(".yardstick/busy-clock"), std::string::npos) << r.summary;
}

TEST(BusyClockTest, SkipsWhenTheSiteTurnsItOff) {
  checks::SiteExpectations off;
  off.params.Set("cpu.busy_clock", "busy_clock_cpus", 0);
  EXPECT_OUTCOME(RunOnFixture(kId, "healthy-8gpu", off), Outcome::kSkip);
}

TEST(BusyClockTest, WithoutCpufreqTheModelNameBaseClockIsTheReference) {
  TempHost t("healthy-8gpu");
  t.Remove("/sys/devices/system/cpu/cpufreq");
  t.Write(
      "/proc/cpuinfo",
      "processor\t: 0\nmodel name\t: Intel(R) Xeon(R) Gold 6148 CPU @ 2.40GHz\nflags\t: fpu\n\n");
  t.Write("/.yardstick/busy-clock", "cpu0 3600.0\n");
  CheckResult r = t.Run(kId);
  EXPECT_OUTCOME(r, Outcome::kPass);
  EXPECT_NE(EvidenceValue(r, "rated maximum").find("base clock"), std::string::npos);
  t.Write("/.yardstick/busy-clock", "cpu0 1800.0\n");
  EXPECT_TRUE(HasFinding(t.Run(kId), "YS-CPU-016"));
}

TEST(BusyClockTest, VmWithoutAnyRatedClockReportsTheMeasurementOnly) {
  TempHost t("grace-vm-smmu");
  t.Write("/.yardstick/busy-clock", "cpu0 3390.5\ncpu1 3388.0\ncpu2 3391.1\n");
  CheckResult r = t.Run(kId);
  EXPECT_OUTCOME(r, Outcome::kPass);
  EXPECT_NE(r.summary.find("not compared"), std::string::npos) << r.summary;
  EXPECT_EQ(EvidenceValue(r, "median"), "3390 MHz");
  EXPECT_NE(EvidenceValue(r, "caveat").find("steal"), std::string::npos);
}

TEST(BusyClockTest, MalformedFilesGiveAnErrorWithThePath) {
  std::vector<testing::FileEdit> edits;
  for (const char* bad : {"", "garbage\n", "cpu0\n", "cpu0 -5\n", "cpu0 nan\n", "cpu0 1e9\n",
                          "cpuX 3000\n", "cpu0 3000\ncpu0 3001\n", "cpu0 3000 MHz\n"}) {
    edits.push_back({"/.yardstick/busy-clock", bad});
  }
  edits.push_back({"/sys/devices/system/cpu/cpufreq/policy0/cpuinfo_max_freq", "lots\n"});
  testing::ExpectErrorNamingPath(kId, "healthy-8gpu", edits);
}

// Runs on this machine: the outcome depends on the machine, the shape does not.
TEST(BusyClockTest, LiveCheckMeasuresThisMachine) {
  checks::SiteExpectations e;
  e.params.Set("cpu.busy_clock", "busy_clock_cpus", 2);
  e.params.Set("cpu.busy_clock", "busy_clock_ms", 10);
  CheckResult r = testing::RunOnHost(kId, host::Host::Live(), e);
  ASSERT_NE(r.outcome, Outcome::kError) << testing::Describe(r);
  ASSERT_NE(r.outcome, Outcome::kSkip) << testing::Describe(r);
  EXPECT_NE(EvidenceValue(r, "method").find("measured live"), std::string::npos);
  EXPECT_FALSE(EvidenceValue(r, "median").empty());
}

}  // namespace
}  // namespace ys
