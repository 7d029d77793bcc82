// The burn-in analyser on synthetic series: each fault rule, availability and MTBF, and that a
// save and restore in the middle changes nothing (a resumed burn-in judges as if never stopped).
#include "burnin/analyser.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <nlohmann/json.hpp>

#include "burnin_report/burnin_json.h"
#include "core/finding_codes.h"

namespace ys::burnin {
namespace {

using Series = std::function<void(double t, std::vector<EntitySample>& out)>;

EntitySample Gpu(int i, double temp) {
  EntitySample s;
  s.node = "n1";
  s.entity = "gpu" + std::to_string(i);
  s.kind = "gpu";
  s.temp_c = temp;
  s.clocks_event_reasons = 0;
  return s;
}

EntitySample Cpu(int i, double perf) {
  EntitySample s;
  s.node = "n1";
  s.entity = "cpu" + std::to_string(i);
  s.kind = "cpu";
  s.metric = "sgemm";
  s.unit = "GFLOPS";
  s.perf = perf;
  s.iterations = 10;
  s.digest = "aa";
  return s;
}

AnalyserOptions Options120() {
  AnalyserOptions o = DefaultTiming(120, 1);
  o.profile = "compute";
  return o;
}

// Feeds one-second cycles [from, to) into `a`.
void Feed(Analyser& a, const Series& series, int from, int to) {
  for (int t = from; t < to; ++t) {
    CycleObservation c;
    c.start_s = t;
    c.end_s = t + 1;
    c.at = "2026-11-30T00:00:00Z";
    series(t, c.samples);
    a.Add(c);
  }
}

BurninReport RunSeries(const Series& series, int seconds = 120) {
  Analyser a(Options120());
  Feed(a, series, 0, seconds);
  return a.Report();
}

const BurninEntity* FindEntity(const BurninReport& r, const std::string& entity) {
  for (const auto& e : r.entities) {
    if (e.entity == entity) return &e;
  }
  return nullptr;
}

std::vector<BurninFault> FaultsOf(const BurninReport& r, const std::string& kind) {
  std::vector<BurninFault> out;
  for (const auto& f : r.faults) {
    if (f.kind == kind) out.push_back(f);
  }
  return out;
}

TEST(BurninAnalyser, DefaultTimingForShortAndLongRuns) {
  AnalyserOptions s = DefaultTiming(120, 1);
  EXPECT_DOUBLE_EQ(s.window_s, 5);
  EXPECT_DOUBLE_EQ(s.warmup_s, 12);
  EXPECT_DOUBLE_EQ(s.temp_ref_s, 12);
  EXPECT_DOUBLE_EQ(s.baseline_s, 30);
  AnalyserOptions l = DefaultTiming(72 * 3600, 1);
  EXPECT_DOUBLE_EQ(l.window_s, 900);
  EXPECT_DOUBLE_EQ(l.warmup_s, 600);
  EXPECT_DOUBLE_EQ(l.baseline_s, 3600);
}

TEST(BurninAnalyser, TemperatureSwingAboveTwoDegreesIsOneFaultWithItsTimes) {
  BurninReport r = RunSeries([](double t, std::vector<EntitySample>& out) {
    out.push_back(Gpu(0, 60));
    out.push_back(Gpu(2, t >= 40 && t < 55 ? 66 : 60));
  });
  auto faults = FaultsOf(r, "temperature");
  ASSERT_EQ(faults.size(), 1u);
  EXPECT_EQ(faults[0].entity, "gpu2");
  EXPECT_DOUBLE_EQ(faults[0].at_s, 41);  // the end of the first hot cycle
  ASSERT_TRUE(faults[0].cleared_at_s);
  EXPECT_DOUBLE_EQ(*faults[0].cleared_at_s, 56);
  EXPECT_EQ(faults[0].severity, Severity::kWarn);
  const BurninEntity* g2 = FindEntity(r, "gpu2");
  ASSERT_NE(g2, nullptr);
  EXPECT_DOUBLE_EQ(*g2->temp_steady_c, 60);
  EXPECT_DOUBLE_EQ(*g2->temp_max_dev_c, 6);
  EXPECT_FALSE(g2->stable);
  EXPECT_DOUBLE_EQ(g2->availability, 1);  // a warm GPU still works
  EXPECT_TRUE(FindEntity(r, "gpu0")->stable);
  ASSERT_TRUE(r.mtbf_h);
  EXPECT_NEAR(*r.mtbf_h, 2 * 120.0 / 3600, 1e-9);  // two entities' hours, one fault
}

TEST(BurninAnalyser, FluctuationWithinTheBandAndWarmUpAreNotFaults) {
  BurninReport r = RunSeries([](double t, std::vector<EntitySample>& out) {
    // Warm-up from 40 to 60 over the first 12 s, then +-1.5 C.
    double temp = t < 12 ? 40 + t * 20 / 12 : 60 + 1.5 * std::sin(t);
    out.push_back(Gpu(0, temp));
  });
  EXPECT_TRUE(r.faults.empty());
  EXPECT_FALSE(r.mtbf_h);
  EXPECT_LE(*FindEntity(r, "gpu0")->temp_max_dev_c, 2.0);
}

TEST(BurninAnalyser, MiscompareIsStickyAndCostsAvailabilityFromItsTime) {
  BurninReport r = RunSeries([](double t, std::vector<EntitySample>& out) {
    out.push_back(Cpu(0, 50));
    EntitySample c1 = Cpu(1, 50);
    if (t == 70) {
      c1.miscompares = 1;
      c1.miscompare_detail = "element 3: expected 0x3f800000, got 0x3f800001 (1 elements differ)";
    }
    out.push_back(c1);
  });
  auto faults = FaultsOf(r, "miscompare");
  ASSERT_EQ(faults.size(), 1u);
  EXPECT_EQ(faults[0].entity, "cpu1");
  EXPECT_DOUBLE_EQ(faults[0].at_s, 70);
  EXPECT_FALSE(faults[0].cleared_at_s);
  EXPECT_EQ(faults[0].severity, Severity::kFail);
  const BurninEntity* c1 = FindEntity(r, "cpu1");
  EXPECT_EQ(c1->miscompares, 1);
  EXPECT_EQ(c1->iterations, 1200);
  EXPECT_NEAR(c1->availability, 70.0 / 120, 1e-9);
  EXPECT_DOUBLE_EQ(FindEntity(r, "cpu0")->availability, 1);
  EXPECT_NEAR(r.availability, (120 + 70) / 240.0, 1e-9);
  ASSERT_EQ(r.nodes.size(), 1u);
  EXPECT_NEAR(r.nodes[0].availability, 70.0 / 120, 1e-9);
}

TEST(BurninAnalyser, DigestThatDiffersFromAnotherCoreIsAMiscompare) {
  BurninReport r = RunSeries(
      [](double, std::vector<EntitySample>& out) {
        out.push_back(Cpu(0, 50));
        EntitySample c1 = Cpu(1, 50);
        c1.digest = "bb";
        out.push_back(c1);
      },
      10);
  auto faults = FaultsOf(r, "miscompare");
  ASSERT_EQ(faults.size(), 1u);
  EXPECT_EQ(faults[0].entity, "cpu1");
  EXPECT_NE(faults[0].message.find("cpu0"), std::string::npos);
}

TEST(BurninAnalyser, DigestsOfCpusOnDifferentNodesAreNotCompared) {
  BurninReport r = RunSeries(
      [](double, std::vector<EntitySample>& out) {
        out.push_back(Cpu(0, 50));
        EntitySample other = Cpu(0, 50);
        other.node = "n2";
        other.digest = "bb";
        out.push_back(other);
      },
      10);
  EXPECT_TRUE(r.faults.empty());
}

TEST(BurninAnalyser, PerformanceDriftBelowTheFirstWindowsIsAFaultThatClears) {
  BurninReport r = RunSeries([](double t, std::vector<EntitySample>& out) {
    out.push_back(Cpu(0, t >= 60 && t < 80 ? 90 : 100));
  });
  auto faults = FaultsOf(r, "perf_drift");
  ASSERT_EQ(faults.size(), 1u);
  EXPECT_DOUBLE_EQ(faults[0].at_s, 60);
  ASSERT_TRUE(faults[0].cleared_at_s);
  EXPECT_DOUBLE_EQ(*faults[0].cleared_at_s, 85);  // the end of the first window back at 100
  const BurninEntity* c0 = FindEntity(r, "cpu0");
  EXPECT_DOUBLE_EQ(*c0->perf_baseline, 100);
  EXPECT_DOUBLE_EQ(*c0->perf_min_window, 90);
  EXPECT_DOUBLE_EQ(*c0->perf_last_window, 100);
  EXPECT_EQ(c0->windows.size(), 24u);
}

TEST(BurninAnalyser, DriftWithinTheThresholdIsNotAFault) {
  BurninReport r = RunSeries(
      [](double t, std::vector<EntitySample>& out) { out.push_back(Cpu(0, t >= 60 ? 96 : 100)); });
  EXPECT_TRUE(FaultsOf(r, "perf_drift").empty());
}

TEST(BurninAnalyser, CounterRisesAreFaultsButTheFirstReadingAndResetsAreNot) {
  BurninReport r = RunSeries([](double t, std::vector<EntitySample>& out) {
    EntitySample g = Gpu(4, 60);
    g.counters["ecc_uncorrected"] = t < 20 ? 5 : 6;                 // base 5, +1 at 20
    g.counters["ecc_corrected"] = t < 50 ? 100 : (t < 60 ? 3 : 4);  // reset at 50, +1 at 60
    g.counters["xid"] = t < 30 ? 0 : 1;
    if (t == 30) g.events.push_back("Xid 79 at 0000:1b:00: GPU has fallen off the bus");
    g.counters["made_up"] = static_cast<uint64_t>(t);
    out.push_back(g);
  });
  auto ecc = FaultsOf(r, "ecc");
  ASSERT_EQ(ecc.size(), 2u);
  EXPECT_DOUBLE_EQ(ecc[0].at_s, 21);
  EXPECT_EQ(ecc[0].severity, Severity::kFail);
  EXPECT_FALSE(ecc[0].cleared_at_s);
  EXPECT_DOUBLE_EQ(ecc[1].at_s, 61);
  EXPECT_EQ(ecc[1].severity, Severity::kWarn);
  auto xid = FaultsOf(r, "xid");
  ASSERT_EQ(xid.size(), 1u);
  bool quoted = false;
  for (const auto& [k, v] : xid[0].evidence) quoted |= v.find("Xid 79") != std::string::npos;
  EXPECT_TRUE(quoted);
  const BurninEntity* g4 = FindEntity(r, "gpu4");
  EXPECT_NEAR(g4->availability, 20.0 / 120, 1e-9);  // sticky from the uncorrectable error
  EXPECT_NE(g4->note.find("made_up"), std::string::npos);
}

TEST(BurninAnalyser, ThermalThrottleIsOneEpisodeAndPowerCapIsNone) {
  BurninReport r = RunSeries([](double t, std::vector<EntitySample>& out) {
    EntitySample g1 = Gpu(1, 60);
    g1.clocks_event_reasons = (t >= 25 && t < 35) ? 0x48 : 0x0;
    out.push_back(g1);
    EntitySample g3 = Gpu(3, 60);
    g3.clocks_event_reasons = 0x4;  // SW power cap: a GPU at its limit under load
    out.push_back(g3);
  });
  auto th = FaultsOf(r, "throttle");
  ASSERT_EQ(th.size(), 1u);
  EXPECT_EQ(th[0].entity, "gpu1");
  EXPECT_DOUBLE_EQ(th[0].at_s, 26);
  EXPECT_DOUBLE_EQ(*th[0].cleared_at_s, 36);
  EXPECT_EQ(FindEntity(r, "gpu1")->throttle_events, 1);
  EXPECT_NEAR(FindEntity(r, "gpu1")->availability, 110.0 / 120, 1e-9);
  EXPECT_TRUE(FindEntity(r, "gpu3")->stable);
}

TEST(BurninAnalyser, LoadErrorOpensAndClears) {
  BurninReport r = RunSeries(
      [](double t, std::vector<EntitySample>& out) {
        EntitySample c = Cpu(0, 50);
        if (t >= 10 && t < 12) {
          c.perf.reset();
          c.load_error = "sgemm: out of memory";
        }
        out.push_back(c);
      },
      20);
  auto le = FaultsOf(r, "load_error");
  ASSERT_EQ(le.size(), 1u);
  EXPECT_DOUBLE_EQ(*le[0].cleared_at_s, 12);
}

TEST(BurninAnalyser, MixedLoadsKeepOneRowPerEntityAndMetric) {
  BurninReport r = RunSeries([](double t, std::vector<EntitySample>& out) {
    int phase = static_cast<int>(t) % 3;
    if (phase == 0) {
      out.push_back(Cpu(0, 50));
    } else if (phase == 1) {
      EntitySample m = Cpu(0, 20);
      m.metric = "triad";
      m.unit = "GB/s";
      out.push_back(m);
    } else {  // a network cycle: the core only carries telemetry
      EntitySample idle;
      idle.node = "n1";
      idle.entity = "cpu0";
      idle.kind = "cpu";
      idle.temp_c = 50;
      out.push_back(idle);
    }
  });
  ASSERT_EQ(r.entities.size(), 2u);
  EXPECT_EQ(r.entities[0].metric, "sgemm");
  EXPECT_DOUBLE_EQ(*r.entities[0].perf_median, 50);
  EXPECT_EQ(r.entities[1].metric, "triad");
  EXPECT_DOUBLE_EQ(*r.entities[1].perf_median, 20);
  EXPECT_EQ(r.entities[0].cycles + r.entities[1].cycles, 120);
  EXPECT_TRUE(r.faults.empty());
}

// JSON objects read back come in key order (nlohmann::json), so evidence read from a checkpoint
// or a document is in key order too: compare reports with their evidence sorted.
BurninReport SortedEvidence(BurninReport r) {
  for (auto& f : r.faults) std::sort(f.evidence.begin(), f.evidence.end());
  return r;
}

Series EverythingSeries() {
  return [](double t, std::vector<EntitySample>& out) {
    out.push_back(Gpu(2, t >= 40 && t < 55 ? 66 : 60));
    EntitySample g1 = Gpu(1, 61);
    g1.clocks_event_reasons = (t >= 25 && t < 35) ? 0x48 : 0x0;
    g1.counters["ecc_uncorrected"] = t < 90 ? 0 : 2;
    out.push_back(g1);
    EntitySample c1 = Cpu(1, t >= 60 && t < 80 ? 90 : 100 + std::fmod(t, 3));
    if (t == 70) c1.miscompares = 2;
    out.push_back(c1);
  };
}

TEST(BurninAnalyser, SaveAndRestoreMidwayJudgesExactlyAsAnUnbrokenRun) {
  BurninReport straight = RunSeries(EverythingSeries());
  for (int cut : {1, 13, 31, 57, 62, 100}) {
    Analyser first(Options120());
    Feed(first, EverythingSeries(), 0, cut);
    std::string saved = first.SaveState().dump();
    auto restored = Analyser::LoadState(nlohmann::json::parse(saved), "checkpoint");
    ASSERT_TRUE(restored.ok()) << restored.status().message();
    Feed(*restored, EverythingSeries(), cut, 120);
    EXPECT_EQ(SortedEvidence(restored->Report()), SortedEvidence(straight)) << "cut at " << cut;
  }
  EXPECT_GE(straight.faults.size(), 4u);
}

TEST(BurninAnalyser, RebootBetweenProcessesIsAFaultAndDowntime) {
  Analyser a(Options120());
  Feed(
      a, [](double, std::vector<EntitySample>& out) { out.push_back(Cpu(0, 50)); }, 0, 60);
  a.AddInterruption(BurninInterruption{.at_s = 60,
                                       .stopped_at = "2026-11-30T00:01:00Z",
                                       .resumed_at = "2026-11-30T00:02:00Z",
                                       .gap_s = 60,
                                       .how = "reboot"});
  Feed(
      a, [](double, std::vector<EntitySample>& out) { out.push_back(Cpu(0, 50)); }, 60, 120);
  BurninReport r = a.Report();
  auto reboot = FaultsOf(r, "reboot");
  ASSERT_EQ(reboot.size(), 1u);
  EXPECT_EQ(reboot[0].entity, "node");
  ASSERT_EQ(r.interruptions.size(), 1u);
  EXPECT_NEAR(FindEntity(r, "cpu0")->availability, 120.0 / 180, 1e-9);
  EXPECT_NEAR(r.nodes[0].availability, 120.0 / 180, 1e-9);
}

TEST(BurninAnalyser, KilledInterruptionIsRecordedWithoutAFault) {
  Analyser a(Options120());
  Feed(
      a, [](double, std::vector<EntitySample>& out) { out.push_back(Cpu(0, 50)); }, 0, 30);
  a.AddInterruption(BurninInterruption{.at_s = 30, .gap_s = 5, .how = "killed", .redone_s = 3});
  BurninReport r = a.Report();
  EXPECT_TRUE(r.faults.empty());
  ASSERT_EQ(r.interruptions.size(), 1u);
  EXPECT_EQ(r.interruptions[0].how, "killed");
  EXPECT_DOUBLE_EQ(FindEntity(r, "cpu0")->availability, 1);
}

TEST(BurninAnalyser, MalformedStateIsAnErrorNotACrash) {
  Analyser a(Options120());
  Feed(a, EverythingSeries(), 0, 50);
  nlohmann::json good = a.SaveState();
  for (auto breakit : std::vector<std::function<void(nlohmann::json&)>>{
           [](nlohmann::json& j) { j.erase("options"); },
           [](nlohmann::json& j) { j["elapsed_s"] = "soon"; },
           [](nlohmann::json& j) {
             j["entities"][0]["open"] = {{"temperature", 999}};
           },
           [](nlohmann::json& j) { j["entities"][0]["info"]["windows"] = 3; },
           [](nlohmann::json& j) { j["report"]["faults"][0]["severity"] = "bad"; },
           [](nlohmann::json& j) { j["options"]["window_s"] = 0; },
           [](nlohmann::json& j) { j = nlohmann::json::array(); }}) {
    nlohmann::json bad = good;
    breakit(bad);
    auto r = Analyser::LoadState(bad, "cp.json");
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.status().message().find("cp.json"), std::string::npos) << r.status().message();
  }
}

TEST(BurninAnalyser, CheckResultCarriesOneFindingPerFaultWithCodesAndFixes) {
  BurninReport r = RunSeries(EverythingSeries());
  CheckResult c = BurninCheckResult(r);
  EXPECT_EQ(c.unit_id, "burnin.compute");
  EXPECT_EQ(c.outcome, Outcome::kFail);
  ASSERT_EQ(c.findings.size(), r.faults.size());
  for (const auto& f : c.findings) {
    EXPECT_NE(LookupFindingCode(f.code), nullptr) << f.code;
    EXPECT_FALSE(f.fix.empty());
  }
  auto quiet_for = [](int seconds) {
    return RunSeries([](double, std::vector<EntitySample>& out) { out.push_back(Cpu(0, 50)); },
                     seconds);
  };
  EXPECT_EQ(BurninCheckResult(quiet_for(120)).outcome, Outcome::kPass);
  // 10 s of a 120 s timing end inside the baseline: no fault, but drift was not judged, which is
  // too little to pass (the run's verdict is INCONCLUSIVE), and the summary says why.
  const BurninReport short_run = quiet_for(10);
  ASSERT_EQ(short_run.entities.size(), 1U);
  EXPECT_EQ(short_run.entities[0].drift_judged, false);
  const CheckResult c10 = BurninCheckResult(short_run);
  EXPECT_EQ(c10.outcome, Outcome::kError);
  EXPECT_NE(c10.summary.find("drift not judged on cpu0"), std::string::npos) << c10.summary;
  EXPECT_EQ(quiet_for(120).entities[0].drift_judged, true);
}

// The analyser's whole report survives its JSON (burnin_report/burnin_json.h, tested on its own
// in tests/unit/burnin_report/): what a resumed burn-in reads back is what it wrote.
TEST(BurninAnalyser, ReportRoundTripsThroughItsJson) {
  BurninReport r = RunSeries(EverythingSeries());
  nlohmann::json j = nlohmann::json::parse(ToJson(r).dump());
  auto back = BurninReportFromJson(j, "run.burnin");
  ASSERT_TRUE(back.ok()) << back.status().message();
  // JSON keeps doubles exactly (shortest round-trip form).
  EXPECT_EQ(*back, SortedEvidence(r));
}

}  // namespace
}  // namespace ys::burnin
