// The burn-in's console summary (PrintBurnin) on an in-memory burn-in (burnin_sample.h): the
// headline, the planted warning, the interruption, the faults in time order with cleared or still
// present, the entity table, MTBF, availability and the verdict line; a clean run; and nothing
// for a document that is not a burn-in.
#include "report/burnin_console.h"

#include <gtest/gtest.h>

#include <sstream>

#include "burnin_sample.h"
#include "core/text.h"
#include "report/burnin_text.h"

namespace ys::report {
namespace {

using ys::testing::BurninDocument;
using ys::testing::SampleBurnin;

std::string Print(const RunDocument& doc) {
  std::ostringstream out;
  PrintBurnin(doc, out);
  return out.str();
}

TEST(BurninConsole, SummaryOfAFaultyRun) {
  std::string out = Print(BurninDocument(SampleBurnin()));
  std::vector<std::string_view> lines = SplitLines(out);
  ASSERT_GE(lines.size(), 10u) << out;
  EXPECT_EQ(lines[0],
            "burn-in: compute profile, load time 2:00:00 of 4:00:00 (incomplete), 240 cycles of "
            "30 s, started 2026-11-30T00:00:00Z");
  EXPECT_EQ(lines[2], "telemetry: recorded: timeline.json");
  EXPECT_EQ(lines[3], "WARNING: faults were planted by a recorded timeline: this is a test run");
  EXPECT_EQ(lines[4], "  planted: gpu1 miscompare at 754 s");
  EXPECT_EQ(lines[5], "interruptions: 1");
  EXPECT_EQ(lines[6],
            "    0:25:00  killed: stopped 2026-11-30T00:25:00Z, resumed 2026-11-30T00:30:00Z, gap "
            "0:05:00, redone 0:00:45");
  EXPECT_EQ(lines[7], "faults: 2");
  EXPECT_NE(out.find("    0:12:34  node1 gpu1 "), std::string::npos) << out;
  EXPECT_NE(out.find("miscompare  FAIL  3 of 1200 GEMMs differed from the reference (still "
                     "present)\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("WARN  window rate 93.0% of baseline (cleared at 0:35:00)\n"),
            std::string::npos);
  // The entity table in the house table style, with the last window against the baseline.
  EXPECT_NE(out.find("# entities\n#"), std::string::npos);
  EXPECT_NE(out.find(" 91.0% "), std::string::npos);
  EXPECT_NE(out.find("# gpu0<script>alert(1)</script>@node1: no temperature sensor"),
            std::string::npos);
  EXPECT_NE(out.find("node node1: 2 entities, 2 faults, availability 10.00%\n"), std::string::npos);
  EXPECT_NE(out.find("MTBF 2.0 h (4.0 entity-hours, 2 faults); availability 98.75%\n"),
            std::string::npos);
  EXPECT_EQ(lines.back(),
            "burn-in verdict: FAIL: 2 faults (1 fail, 1 warn) on 2 of 2 entities; unstable: "
            "gpu1@node1, gpu0<script>alert(1)</script>@node1; incomplete: 2:00:00 of 4:00:00 of "
            "load; planted faults: a test run");
}

TEST(BurninConsole, CleanRun) {
  BurninReport r = SampleBurnin();
  r.faults.clear();
  r.planted.clear();
  r.interruptions.clear();
  r.mtbf_h.reset();
  r.complete = true;
  r.elapsed_s = r.duration_s;
  for (BurninEntity& e : r.entities) e.stable = true;
  std::string out = Print(BurninDocument(r));
  EXPECT_EQ(out.find("WARNING"), std::string::npos);
  EXPECT_EQ(out.find("interruptions"), std::string::npos);
  EXPECT_NE(out.find("faults: none\n"), std::string::npos);
  EXPECT_NE(out.find("no fault in 4.0 entity-hours (no MTBF without a fault); availability"),
            std::string::npos);
  EXPECT_NE(out.find("burn-in verdict: PASS: no fault on 2 entities in 4:00:00 of load\n"),
            std::string::npos);
}

TEST(BurninConsole, IncompleteWithoutFaultIsInconclusive) {
  BurninReport r = SampleBurnin();
  r.faults.clear();
  for (BurninEntity& e : r.entities) e.stable = true;
  BurninVerdict v = VerdictOf(r);
  EXPECT_EQ(v.state, VerdictState::kInconclusive);
  EXPECT_EQ(v.text.rfind("INCONCLUSIVE: no fault", 0), 0u) << v.text;
}

TEST(BurninConsole, UnjudgedDriftIsInconclusiveAndAnyFaultFails) {
  BurninReport r = SampleBurnin();
  r.faults.clear();
  r.complete = true;
  for (BurninEntity& e : r.entities) e.stable = true;
  EXPECT_EQ(VerdictOf(r).state, VerdictState::kPass) << VerdictOf(r).text;
  r.entities[0].drift_judged = false;
  BurninVerdict v = VerdictOf(r);
  EXPECT_EQ(v.state, VerdictState::kInconclusive);
  EXPECT_NE(v.text.find("drift not judged on " + r.entities[0].entity), std::string::npos)
      << v.text;
  // A warn-severity fault fails acceptance: the verdict says FAIL, as the exit code does.
  BurninReport w = SampleBurnin();
  for (BurninFault& f : w.faults) f.severity = Severity::kWarn;
  EXPECT_EQ(VerdictOf(w).state, VerdictState::kFail);
  EXPECT_EQ(VerdictOf(w).outcome, Outcome::kWarn);
}

TEST(BurninConsole, NothingWithoutABurnin) {
  RunDocument doc;
  EXPECT_EQ(Print(doc), "");
}

}  // namespace
}  // namespace ys::report
