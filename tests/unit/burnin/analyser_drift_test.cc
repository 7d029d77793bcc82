// Burn-in drift (analyser.h "perf drift"): judged against the baseline's own spread, only when it
// persists, told apart from foreign CPU load, and not judged at all from too short a baseline.
#include <gtest/gtest.h>

#include <functional>

#include "burnin/analyser.h"

namespace ys::burnin {
namespace {

using DriftSeries = std::function<void(int t, EntitySample& s)>;

BurninReport RunDrift(double duration_s, const DriftSeries& series) {
  AnalyserOptions o = DefaultTiming(duration_s, 1);
  o.profile = "compute";
  Analyser a(o);
  for (int t = 0; t < static_cast<int>(duration_s); ++t) {
    EntitySample s;
    s.node = "n1";
    s.entity = "cpu0";
    s.kind = "cpu";
    s.metric = "sgemm";
    s.unit = "GFLOPS";
    s.iterations = 10;
    series(t, s);
    CycleObservation c{.start_s = static_cast<double>(t),
                       .end_s = t + 1.0,
                       .at = "2026-11-30T00:00:00Z",
                       .samples = {s}};
    a.Add(c);
  }
  return a.Report();
}

size_t DriftCount(const BurninReport& r) {
  size_t n = 0;
  for (const auto& f : r.faults) n += f.kind == "perf_drift" ? 1 : 0;
  return n;
}

std::string DriftNoteOf(const BurninReport& r) {
  return r.entities.empty() ? "" : r.entities[0].note;
}

TEST(BurninDrift, ASustainedDropIsAFault) {
  BurninReport r = RunDrift(120, [](int t, EntitySample& s) { s.perf = t >= 60 ? 90 : 100; });
  ASSERT_EQ(DriftCount(r), 1u);
  EXPECT_DOUBLE_EQ(r.faults[0].at_s, 60);  // from the first low window
  EXPECT_NE(r.faults[0].message.find("for 2 windows"), std::string::npos) << r.faults[0].message;
}

TEST(BurninDrift, OneLowWindowIsNotDrift) {
  BurninReport r =
      RunDrift(120, [](int t, EntitySample& s) { s.perf = t >= 60 && t < 65 ? 80 : 100; });
  EXPECT_EQ(DriftCount(r), 0u);
}

TEST(BurninDrift, ADropWithinTheBaselinesOwnSpreadIsNotDrift) {
  // Cycles scatter 100, 92, 96 (spread 6.2% of a cycle): the median of a 5-cycle window against
  // that of 30 baseline cycles has a standard error of 3.7%, so a window 11% low is within 4.
  BurninReport r = RunDrift(120, [](int t, EntitySample& s) {
    double v = t % 3 == 0 ? 100 : t % 3 == 1 ? 92 : 96;
    s.perf = t >= 60 ? v * 0.89 : v;
  });
  EXPECT_EQ(DriftCount(r), 0u);
}

TEST(BurninDrift, AWindowOfManyCyclesSeesADropSmallerThanOneCyclesSpread) {
  // Cycles scatter 100, 96, 104 (spread 5.9%): 4 single-cycle spreads would be 24%, but a median
  // of 10 cycles against one of 600 has a standard error of 2.4%, so a 12% drop is drift.
  BurninReport r = RunDrift(2400, [](int t, EntitySample& s) {
    double v = t % 3 == 0 ? 100 : t % 3 == 1 ? 96 : 104;
    s.perf = t >= 1200 ? v * 0.88 : v;
  });
  ASSERT_EQ(DriftCount(r), 1u);
  EXPECT_DOUBLE_EQ(r.faults[0].at_s, 1200);
}

TEST(BurninDrift, ADropLargerThanTheForeignShareExplainsIsDrift) {
  // Other processes took 10% of the core; the figure lost 40%: more than they can explain.
  BurninReport r = RunDrift(120, [](int t, EntitySample& s) {
    s.perf = t >= 60 ? 60 : 100;
    s.foreign_share = t >= 60 ? 0.1 : 0.0;
  });
  EXPECT_EQ(DriftCount(r), 1u);
  EXPECT_NE(DriftNoteOf(r).find("disturbed by other processes (10% foreign CPU)"),
            std::string::npos)
      << DriftNoteOf(r);
}

TEST(BurninDrift, ADropWhileOtherProcessesTookTheCoreIsADisturbance) {
  BurninReport r = RunDrift(120, [](int t, EntitySample& s) {
    bool busy = t >= 60 && t < 90;
    s.perf = busy ? 82 : 100;
    s.foreign_share = busy ? 0.3 : 0.0;
  });
  EXPECT_EQ(DriftCount(r), 0u);
  EXPECT_NE(DriftNoteOf(r).find("disturbed by other processes (30% foreign CPU)"),
            std::string::npos)
      << DriftNoteOf(r);
  EXPECT_TRUE(r.entities[0].stable);
}

TEST(BurninDrift, OtherProcessesOnTheCoreAreNamedEvenWithoutADrop) {
  // A shared core mostly leaves single calls whole: the figures hold, the sharing is still named.
  BurninReport r = RunDrift(120, [](int t, EntitySample& s) {
    s.perf = 100;
    s.foreign_share = t >= 60 && t < 80 ? 0.5 : 0.0;
  });
  EXPECT_EQ(DriftCount(r), 0u);
  EXPECT_NE(DriftNoteOf(r).find("disturbed by other processes (50% foreign CPU) in 4 windows"),
            std::string::npos)
      << DriftNoteOf(r);
  BurninReport alone = RunDrift(120, [](int, EntitySample& s) {
    s.perf = 100;
    s.foreign_share = 0.01;
  });
  EXPECT_EQ(DriftNoteOf(alone).find("disturbed"), std::string::npos) << DriftNoteOf(alone);
}

TEST(BurninDrift, TheNoteNamesTheProcessesThatTookTheCore) {
  BurninReport r = RunDrift(120, [](int t, EntitySample& s) {
    bool busy = t >= 60 && t < 90;
    s.perf = busy ? 85 : 100;
    s.foreign_share = busy ? (t == 70 ? 0.4 : 0.2) : 0.0;
    s.foreign_who = t == 70 ? "stress-ng, cc1plus" : "cc1plus";
  });
  EXPECT_EQ(DriftCount(r), 0u);
  EXPECT_NE(DriftNoteOf(r).find("(24% foreign CPU, most by stress-ng, cc1plus)"), std::string::npos)
      << DriftNoteOf(r);
}

TEST(BurninDrift, AShortBurninSaysItsBaselineIsTooShort) {
  // 15 s: the baseline is the first 3.75 s, 4 cycles: too few to judge a drop from.
  BurninReport r = RunDrift(15, [](int t, EntitySample& s) { s.perf = t >= 5 ? 85 : 100; });
  EXPECT_EQ(DriftCount(r), 0u);
  EXPECT_NE(DriftNoteOf(r).find("baseline too short to judge drift"), std::string::npos)
      << DriftNoteOf(r);
}

}  // namespace
}  // namespace ys::burnin
