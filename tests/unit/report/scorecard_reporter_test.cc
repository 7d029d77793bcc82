// The validation scorecard on a console: a row per workload with its measured and reference step
// times, their ratio and outcome, a note for an inconsistent published reference, and the verdict.
#include "report/scorecard_reporter.h"

#include <gtest/gtest.h>

#include <sstream>

namespace ys::report {
namespace {

validate::Scorecard TwoRows() {
  validate::Scorecard card;
  card.chip = "h100";
  card.recipe_release = "25.09";
  card.verdict = "FAIL: 1 of 2 workloads below 95% of its reference";
  validate::ScoredWorkload pass;
  pass.workload = {.id = "llama3.1_70b_fp8", .dtype = "fp8", .gpus = 64};
  pass.outcome = validate::RowOutcome::kPass;
  pass.measured = validate::Measured{.status = "success",
                                     .step_time_mean_s = 10.0,
                                     .step_time_stdev_s = 0.05,
                                     .tflops_per_gpu = 700.0};
  pass.reference = validate::Reference{.workload = "llama3.1_70b_fp8", .step_time_s = 9.8};
  pass.reference->provenance.kind = "published";
  pass.reference->provenance.release = "25.09";
  pass.score = 0.98;
  validate::ScoredWorkload fail = pass;
  fail.workload.id = "nemotron-h_56b_fp8";
  fail.outcome = validate::RowOutcome::kFail;
  fail.reason = "90.0% of the reference";
  fail.score = 0.90;
  fail.reference->inconsistent = "its tokens/s and step time disagree by 12%";
  card.rows = {pass, fail};
  return card;
}

TEST(ScorecardReporterTest, RowsRatiosOutcomesAndVerdict) {
  std::ostringstream out;
  WriteScorecard(TwoRows(), /*color=*/false, out);
  std::string s = out.str();
  EXPECT_NE(s.find("suite h100 (recipes 25.09), pass rule: every workload above 95%"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("10.000 ±0.050"), std::string::npos) << s;
  EXPECT_NE(s.find("98.0%"), std::string::npos) << s;
  EXPECT_NE(s.find("PASS"), std::string::npos) << s;
  EXPECT_NE(s.find("FAIL  90.0% of the reference"), std::string::npos) << s;
  EXPECT_NE(s.find("published 25.09 (!)"), std::string::npos) << s;
  EXPECT_NE(s.find("(!) nemotron-h_56b_fp8: the published reference is inconsistent: its tokens/s"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("verdict: FAIL: 1 of 2"), std::string::npos) << s;
  EXPECT_EQ(s.find("\033["), std::string::npos) << "no colour asked";
}

TEST(ScorecardReporterTest, UnmeasuredRowShowsDashesAndColourWhenAsked) {
  validate::Scorecard card = TwoRows();
  card.rows[0].measured->status = "no_log";
  card.rows[0].score.reset();
  std::ostringstream out;
  WriteScorecard(card, /*color=*/true, out);
  std::string s = out.str();
  std::string first = s.substr(s.find("llama3.1_70b_fp8"));
  first = first.substr(0, first.find('\n'));
  EXPECT_EQ(first.find("10.000"), std::string::npos) << first;
  EXPECT_NE(s.find("\033[31m"), std::string::npos) << "a failed verdict in red";
}

}  // namespace
}  // namespace ys::report
