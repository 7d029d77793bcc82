// validation.json written by its writer (validate/scorecard_json.cc) and read back by its one
// reader (core/validation_document.cc): every field the reader knows comes back with the value
// written, so a key renamed on one side alone fails here.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/build_info.h"
#include "core/validation_document.h"
#include "validate/scorecard.h"
#include "validate/scorecard_json.h"
#include "validate/suite.h"

namespace ys::validate {
namespace round_trip_test {
namespace {

Suite WrittenSuite() {
  Suite s;
  s.chip = "h100";
  s.recipe_release = "v26.06.01";
  s.threshold = 0.9;  // not the readers' default
  return s;
}

// Three rows, one per outcome: measured with a reference, not measured, measured without one.
Scorecard WrittenCard() {
  Scorecard card{.chip = "h100", .recipe_release = "v26.06.01", .threshold = 0.9};
  ScoredWorkload a;
  a.workload = {.id = "llama3.1_8b_bf16",
                .model = "llama3.1",
                .size = "8b",
                .dtype = "bf16",
                .gpus = 16,
                .seq_len = 8192,
                .gbs = 128};
  a.outcome = RowOutcome::kPass;
  a.reason = "within 3% of the reference";
  a.measured = Measured{.status = "success",
                        .log_path = "runs/llama3.1_8b_bf16/log.txt",
                        .window_samples = 3,
                        .step_time_mean_s = 1.375,
                        .tflops_per_gpu = 401.5,
                        .step_times_s = {1.25, 1.5, 1.375}};
  a.reference = Reference{.workload = a.workload.id, .step_time_s = 1.3, .tflops_per_gpu = 433.25};
  a.score = 0.97;
  a.tokens_per_s_per_gpu = 9100.5;
  a.mfu = 0.41;
  ScoredWorkload b;
  b.workload = {.id = "nemotron_15b_fp8", .gpus = 8};
  b.outcome = RowOutcome::kFail;
  b.reason = "no log";
  ScoredWorkload c;
  c.workload = {.id = "qwen3_30b_bf16", .gpus = 32};
  c.outcome = RowOutcome::kInconclusive;
  c.reason = "no reference for v26.06.01";
  c.measured =
      Measured{.status = "success", .log_path = "runs/qwen/log.txt", .step_times_s = {2.0, 2.25}};
  card.rows = {a, b, c};
  card.verdict = "FAIL: 1 of 3 workloads above 90%";
  return card;
}

Result<ValidationDocument> WriteAndRead(const Suite& suite, const Scorecard& card) {
  // As a file holds it: the ordered document dumped, parsed back as the readers parse it.
  nlohmann::json j = nlohmann::json::parse(ToJson(suite, card).dump());
  EXPECT_TRUE(IsValidationDocument(j));
  return ValidationDocumentFromJson(j, "validation.json");
}

TEST(ValidationDocumentRoundTripTest, EveryDocumentFieldComesBack) {
  const Suite suite = WrittenSuite();
  const Scorecard card = WrittenCard();
  auto d = WriteAndRead(suite, card);
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_EQ(d->kind, kValidationDocumentKind);
  EXPECT_EQ(d->created_at, "");  // validate states no creation time; history reads it as "now"
  EXPECT_EQ(d->tool, std::string(kVersion) + " (" + kGitDescribe + ")");
  EXPECT_TRUE(d->has_suite);
  EXPECT_EQ(d->chip, "h100");
  EXPECT_EQ(d->recipe_release, "v26.06.01");
  EXPECT_EQ(d->threshold, 0.9);
  EXPECT_EQ(d->pass, false);
  EXPECT_EQ(d->verdict, "FAIL: 1 of 3 workloads above 90%");
  EXPECT_EQ(d->state, "fail");
  ASSERT_EQ(d->workloads.size(), 3u);
}

TEST(ValidationDocumentRoundTripTest, EveryWorkloadFieldComesBack) {
  auto d = WriteAndRead(WrittenSuite(), WrittenCard());
  ASSERT_TRUE(d.ok()) << d.status().message();
  ASSERT_EQ(d->workloads.size(), 3u);
  const ValidationWorkload& a = d->workloads[0];
  EXPECT_EQ(a.id, "llama3.1_8b_bf16");
  EXPECT_EQ(a.outcome, "pass");
  EXPECT_EQ(a.reason, "within 3% of the reference");
  EXPECT_EQ(a.score, 0.97);
  EXPECT_EQ(a.mfu, 0.41);
  EXPECT_EQ(a.tokens_per_s_per_gpu, 9100.5);
  EXPECT_EQ(a.gpus, 16);
  EXPECT_EQ(a.step_times_s, (std::vector<double>{1.25, 1.5, 1.375}));
  EXPECT_EQ(a.measured_tflops_per_gpu, 401.5);
  EXPECT_EQ(a.reference_tflops_per_gpu, 433.25);
  EXPECT_EQ(a.log, "runs/llama3.1_8b_bf16/log.txt");

  const ValidationWorkload& b = d->workloads[1];  // written as nulls and an empty array
  EXPECT_EQ(b.id, "nemotron_15b_fp8");
  EXPECT_EQ(b.outcome, "fail");
  EXPECT_EQ(b.reason, "no log");
  EXPECT_EQ(b.gpus, 8);
  EXPECT_FALSE(b.score || b.mfu || b.tokens_per_s_per_gpu || b.measured_tflops_per_gpu ||
               b.reference_tflops_per_gpu);
  EXPECT_TRUE(b.step_times_s.empty());
  EXPECT_EQ(b.log, "");

  const ValidationWorkload& c = d->workloads[2];
  EXPECT_EQ(c.outcome, "inconclusive");
  EXPECT_EQ(c.reason, "no reference for v26.06.01");
  EXPECT_EQ(c.step_times_s, (std::vector<double>{2.0, 2.25}));
  EXPECT_EQ(c.log, "runs/qwen/log.txt");
  EXPECT_FALSE(c.measured_tflops_per_gpu || c.reference_tflops_per_gpu);
}

TEST(ValidationDocumentRoundTripTest, EveryVerdictStateComesBack) {
  Scorecard card = WrittenCard();
  card.pass = true;
  card.verdict = "PASS";
  auto passed = WriteAndRead(WrittenSuite(), card);
  ASSERT_TRUE(passed.ok()) << passed.status().message();
  EXPECT_EQ(passed->pass, true);
  EXPECT_EQ(passed->state, "pass");
  EXPECT_EQ(passed->verdict, "PASS");

  card.pass = false;
  card.inconclusive = true;
  auto open = WriteAndRead(WrittenSuite(), card);
  ASSERT_TRUE(open.ok()) << open.status().message();
  EXPECT_EQ(open->pass, false);
  EXPECT_EQ(open->state, "inconclusive");
}

}  // namespace
}  // namespace round_trip_test
}  // namespace ys::validate
