#include <gtest/gtest.h>

#include <chrono>
#include <cmath>

#include "host/busy_core_clock.h"

namespace ys::host {
namespace {

TEST(BusyClockParseTest, ParsesRecordedLines) {
  auto m = ParseBusyClock("# header\n\ncpu0 3751.2\ncpu12   3600\r\n  cpu4 2999.95 \n");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  ASSERT_EQ(m->size(), 3u);
  EXPECT_DOUBLE_EQ(m->at(0), 3751.2);
  EXPECT_DOUBLE_EQ(m->at(12), 3600);
  EXPECT_DOUBLE_EQ(m->at(4), 2999.95);
}

TEST(BusyClockParseTest, RejectsMalformedInput) {
  for (const char* bad :
       {"", "# only a comment\n", "garbage", "cpu0", "cpu0 ", "cpu 3000", "cpu-1 3000", "cpuA 3000",
        "core0 3000", "cpu0 0", "cpu0 -3000", "cpu0 nan", "cpu0 inf", "cpu0 100000", "cpu0 1e300",
        "cpu0 3000 MHz", "cpu0 3000\ncpu0 3100", "cpu99999999999999999999 3000", "cpu0 3,000"}) {
    auto m = ParseBusyClock(bad);
    EXPECT_FALSE(m.ok()) << "\"" << bad << "\"";
  }
  auto m = ParseBusyClock("cpu0 3000\ncpu1 fast\n");
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("line 2"), std::string::npos) << m.status().message();
}

TEST(BusyClockParseTest, FormatRoundTrips) {
  std::map<int, double> in = {{0, 3751.24}, {7, 2999.96}, {63, 812.0}};
  std::string text = FormatBusyClock(in);
  EXPECT_EQ(text.rfind("# ", 0), 0u);
  EXPECT_NE(text.find("cpu7 3000.0\n"), std::string::npos) << text;
  auto back = ParseBusyClock(text);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ASSERT_EQ(back->size(), in.size());
  for (const auto& [cpu, v] : in) EXPECT_NEAR(back->at(cpu), v, 0.05);
}

Topology TwoSockets() {
  // 2 packages x 4 cores x 2 threads; cpu n's sibling is n + 8.
  Topology t;
  for (int pkg = 0; pkg < 2; ++pkg) {
    for (int core = 0; core < 4; ++core) {
      int cpu = pkg * 4 + core;
      t.cores.push_back(CpuCore{pkg, core, CpuSet({cpu, cpu + 8})});
      t.online_cpus.Insert(cpu);
      t.online_cpus.Insert(cpu + 8);
    }
  }
  return t;
}

TEST(BusyClockSelectTest, OneThreadPerCorePackagesInTurn) {
  Topology t = TwoSockets();
  EXPECT_EQ(SelectBusyClockCpus(t, t.online_cpus, 2).ToString(), "0,4");
  EXPECT_EQ(SelectBusyClockCpus(t, t.online_cpus, 4).ToString(), "0-1,4-5");
  EXPECT_EQ(SelectBusyClockCpus(t, t.online_cpus, 8).ToString(), "0-7");
  EXPECT_EQ(SelectBusyClockCpus(t, t.online_cpus, 100).ToString(), "0-7");  // never a sibling
  EXPECT_TRUE(SelectBusyClockCpus(t, t.online_cpus, 0).empty());
  // Only the second threads of package 0 allowed (a cpuset), package 1 not at all.
  EXPECT_EQ(SelectBusyClockCpus(t, CpuSet({8, 9, 10}), 8).ToString(), "8-10");
  EXPECT_TRUE(SelectBusyClockCpus(t, CpuSet(), 8).empty());
  // Without core information: the allowed CPUs in order.
  EXPECT_EQ(SelectBusyClockCpus(Topology(), CpuSet({3, 5, 9}), 2).ToString(), "3,5");
}

// Live: a plausible clock on each CPU this process may use. Checks a range, never a speed.
TEST(BusyClockLiveTest, MeasuresAPlausibleClockOnThisMachine) {
  auto allowed = AllowedCpusOfThisProcess();
  ASSERT_TRUE(allowed.ok()) << allowed.status().ToString();
  ASSERT_FALSE(allowed->empty());
  CpuSet two;
  for (int cpu : allowed->ids()) {
    if (two.size() < 2) two.Insert(cpu);
  }
  auto t0 = std::chrono::steady_clock::now();
  auto mhz = MeasureBusyClockMhz(two, 10);
  double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_TRUE(mhz.ok()) << mhz.status().ToString();
  ASSERT_EQ(mhz->size(), two.size());
  for (const auto& [cpu, v] : *mhz) {
    EXPECT_TRUE(two.Contains(cpu));
    EXPECT_GT(v, 100.0) << "cpu" << cpu;
    EXPECT_LT(v, 10000.0) << "cpu" << cpu;
  }
  EXPECT_LT(ms, 5000.0);  // a hang guard, not a speed assertion
}

TEST(BusyClockLiveTest, RefusesCpusItCannotPinTo) {
  auto allowed = AllowedCpusOfThisProcess();
  ASSERT_TRUE(allowed.ok());
  int outside = *allowed->ids().rbegin() + 4096;
  auto mhz = MeasureBusyClockMhz(CpuSet({outside}), 5);
  ASSERT_FALSE(mhz.ok());
  EXPECT_NE(mhz.status().message().find("cpu" + std::to_string(outside)), std::string::npos)
      << mhz.status().message();
  EXPECT_FALSE(MeasureBusyClockMhz(CpuSet({0}), 0).ok());
}

}  // namespace
}  // namespace ys::host
