// The one verdict (core/verdict.h): each state from the evidence that decides it, in order, and
// the exit code each maps to.
#include "core/verdict.h"

#include <gtest/gtest.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>

#include "core/exit_codes.h"
#include "core/run_section.h"

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

// A section another layer defines (core/run_section.h) that says whether it fails the run.
class VerdictTestSection : public RunSection {
 public:
  explicit VerdictTestSection(std::optional<std::string> why) : why_(std::move(why)) {}
  nlohmann::ordered_json ToJson() const override { return nlohmann::ordered_json::object(); }
  std::optional<std::string> FailReason() const override { return why_; }

 private:
  std::optional<std::string> why_;
};

TEST(VerdictTest, AFailingSectionFailsBeforeAnIncompleteRunAndItsReasonIsKept) {
  RunDocument doc;
  doc.checks = {ResultOf("cpu.smt", Outcome::kPass)};
  doc.incomplete = true;
  doc.burnin = std::make_shared<VerdictTestSection>("burn-in: 1 fault (first: gpu2 on node7)");
  RunVerdict v = JudgeRun(doc);
  EXPECT_EQ(v.state, VerdictState::kFail);
  EXPECT_EQ(v.reason, "burn-in: 1 fault (first: gpu2 on node7)");
  // A failed unit still comes first.
  doc.checks.push_back(ResultOf("cpu.governor", Outcome::kFail));
  EXPECT_NE(JudgeRun(doc).reason.find("cpu.governor"), std::string::npos);
}

TEST(VerdictTest, ASectionThatDoesNotFailLeavesTheVerdictToTheUnits) {
  RunDocument doc;
  doc.checks = {ResultOf("cpu.smt", Outcome::kPass)};
  doc.burnin = std::make_shared<VerdictTestSection>(std::nullopt);
  EXPECT_EQ(JudgeRun(doc).state, VerdictState::kPass);
  doc.incomplete = true;
  EXPECT_EQ(JudgeRun(doc).state, VerdictState::kInconclusive);
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
  // An estimate (a proxy's) to two significant figures, and says so.
  EXPECT_EQ(FormatRecovery({2.505, 3.11, "", "proxy"}), "~+250% to +310% (estimate)");
  EXPECT_EQ(FormatRecovery({0.0163, 0.0163, "", "proxy"}), "~+1.6% (estimate)");
  EXPECT_EQ(FormatRecovery({0.00049, 0.12, "", "proxy"}), "~+0.049% to +12% (estimate)");
}

}  // namespace
}  // namespace ys
