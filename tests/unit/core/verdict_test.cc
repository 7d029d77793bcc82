// The one verdict (core/verdict.h): each state from the evidence that decides it, in order, and
// the exit code each maps to.
#include "core/verdict.h"

#include <gtest/gtest.h>

#include <memory>

#include "core/burnin_report.h"
#include "core/exit_codes.h"

namespace ys {
namespace {

CheckResult ResultOf(const char* id, Outcome o, const char* summary = "seen") {
  CheckResult r;
  r.unit_id = id;
  r.outcome = o;
  r.summary = summary;
  return r;
}

Diagnosis Cause(double low, double high, Confidence c) {
  Diagnosis d;
  d.rule = "workload.drift";
  d.cause = "steps slow down";
  d.entity = "proxy.llama3.1_8b";
  d.recovery = Recovery{low, high, "test"};
  d.confidence = c;
  return d;
}

TEST(VerdictTest, EachStateFromWhatDecidesIt) {
  RunDocument doc;
  doc.checks = {ResultOf("cpu.smt", Outcome::kPass),
                ResultOf("ib.ports", Outcome::kSkip, "no port")};
  RunVerdict v = JudgeRun(doc);
  EXPECT_EQ(v.state, VerdictState::kPass);
  EXPECT_EQ(v.reason, "1 passed, 1 skipped (not applicable here)");

  doc.checks.push_back(ResultOf("mem.thp", Outcome::kWarn, "defrag always"));
  EXPECT_EQ(JudgeRun(doc).state, VerdictState::kWarn);

  doc.checks.push_back(ResultOf("numa.placement", Outcome::kError, "/proc/meminfo: malformed"));
  v = JudgeRun(doc);
  EXPECT_EQ(v.state, VerdictState::kInconclusive);
  EXPECT_EQ(v.reason,
            "1 unit could not evaluate: numa.placement (numa.placement: /proc/meminfo: malformed)");

  doc.checks.push_back(ResultOf("cpu.frequency.turbo", Outcome::kFail, "turbo off"));
  v = JudgeRun(doc);
  EXPECT_EQ(v.state, VerdictState::kFail);  // a failure wins over everything
  EXPECT_EQ(v.reason.rfind("1 unit failed: cpu.frequency.turbo", 0), 0u) << v.reason;
}

TEST(VerdictTest, APassNeedsSomethingJudged) {
  RunDocument doc;
  RunVerdict v = JudgeRun(doc);
  EXPECT_EQ(v.state, VerdictState::kInconclusive);
  EXPECT_EQ(v.reason, "no unit ran: nothing was judged");
  // Every unit skipped (a dcgmi diag whose every test said "Skip"): nothing tested, no pass.
  doc.checks = {ResultOf("dcgm.diag.pcie", Outcome::kSkip, "Skip - All"),
                ResultOf("dcgm.diag.memory", Outcome::kSkip, "Skip - All")};
  v = JudgeRun(doc);
  EXPECT_EQ(v.state, VerdictState::kInconclusive);
  EXPECT_EQ(v.reason, "2 units skipped, none judged (dcgm.diag.pcie: Skip - All)");
  EXPECT_EQ(ExitCodeOf(v.state), kExitInconclusive);
}

TEST(VerdictTest, AnIncompleteRunIsInconclusive) {
  RunDocument doc;
  doc.checks = {ResultOf("cpu.smt", Outcome::kPass)};
  doc.incomplete = true;
  doc.incomplete_reason = "rank 2 on node7 stopped answering";
  RunVerdict v = JudgeRun(doc);
  EXPECT_EQ(v.state, VerdictState::kInconclusive);
  EXPECT_NE(v.reason.find("rank 2 on node7"), std::string::npos) << v.reason;
}

TEST(VerdictTest, OnlyAMaterialDiagnosisWarns) {
  RunDocument doc;
  doc.checks = {ResultOf("cpu.smt", Outcome::kPass)};
  doc.diagnosis_ran = true;
  doc.diagnosis = {Cause(0.02, 0.04, Confidence::kHigh), Cause(0.2, 0.4, Confidence::kLow)};
  EXPECT_EQ(JudgeRun(doc).state, VerdictState::kPass) << "small, or a guess: advisory";
  doc.diagnosis.push_back(Cause(0.216, 0.431, Confidence::kMedium));
  RunVerdict v = JudgeRun(doc);
  EXPECT_EQ(v.state, VerdictState::kWarn);
  EXPECT_EQ(v.reason,
            "diagnosis: steps slow down on proxy.llama3.1_8b (expected recovery +21.6% to "
            "+43.1%)");
}

TEST(VerdictTest, APassSaysWhenThereWasNoGpuToJudge) {
  RunDocument doc;
  CheckResult nvml = ResultOf("gpu.nvml", Outcome::kPass);
  nvml.Note(kNoGpuEvidence, "no NVIDIA GPU on the PCI bus and none expected");
  doc.checks = {nvml};
  RunVerdict v = JudgeRun(doc);
  EXPECT_EQ(v.state, VerdictState::kPass);
  EXPECT_NE(v.reason.find("no GPU to judge: no NVIDIA GPU on the PCI bus"), std::string::npos)
      << v.reason;
}

TEST(VerdictTest, ABurnInFaultFails) {
  RunDocument doc;
  doc.checks = {ResultOf("cpu.smt", Outcome::kPass)};
  auto burnin = std::make_shared<BurninReport>();
  BurninFault f;
  f.node = "node7";
  f.entity = "gpu2";
  f.message = "temperature swung 9 C above its steady state";
  burnin->faults.push_back(f);
  doc.burnin = burnin;
  RunVerdict v = JudgeRun(doc);
  EXPECT_EQ(v.state, VerdictState::kFail);
  EXPECT_EQ(v.reason,
            "burn-in: 1 fault (first: gpu2 on node7: temperature swung 9 C above its "
            "steady state)");
}

TEST(VerdictTest, ExitCodesAndNames) {
  EXPECT_EQ(ExitCodeOf(VerdictState::kPass), kExitPass);
  EXPECT_EQ(ExitCodeOf(VerdictState::kWarn), kExitPass);
  EXPECT_EQ(ExitCodeOf(VerdictState::kFail), kExitFail);
  EXPECT_EQ(ExitCodeOf(VerdictState::kInconclusive), 2);
  EXPECT_NE(ExitCodeOf(VerdictState::kInconclusive), kExitPass);
  EXPECT_STREQ(VerdictStateName(VerdictState::kInconclusive), "inconclusive");
  EXPECT_EQ(VerdictStateLabel(VerdictState::kWarn), "WARN");
  EXPECT_EQ(FormatRecovery({0.216, 0.431, ""}), "+21.6% to +43.1%");
  EXPECT_EQ(FormatRecovery({0.12, 0.12, ""}), "+12.0%");
  EXPECT_EQ(FormatRecovery({0, 0, "why"}), "not quantified");
}

}  // namespace
}  // namespace ys
