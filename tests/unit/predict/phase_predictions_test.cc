// A serving suite predicted phase by phase (predict/suite/phase_predictions.h): a phase of
// suites/h200-serving.toml gets the figures that the serving model gives for the same inputs
// through the system and constants `predict --serve` uses; a reference's figures are scored on the
// ratio between this cluster's rates and the reference's; a phase the model cannot serve gets a
// reason and no number.
#include "predict/suite/phase_predictions.h"

#include <gtest/gtest.h>

#include <string>

#include "predict/predictor.h"
#include "predict/serve_system.h"
#include "validate/suite.h"

namespace ys::predict {
namespace {

const std::string kServingData = YS_SOURCE_DIR;

validate::Suite H200ServingSuite() {
  auto suite = validate::LoadSuite(kServingData + "/suites/h200-serving.toml");
  EXPECT_TRUE(suite.ok()) << suite.status().message();
  return *suite;
}

// The chat phase (DeepSeek-R1 fp8, 8 × H200, TP8 EP8, ISL/OSL 128/128, concurrency 1024),
// predicted directly.
ServePrediction ChatPhaseDirect() {
  auto predictor = Predictor::Open(kServingData);
  auto model = predictor->LoadModel("deepseek-r1");
  auto chip = predictor->LoadChip("h200");
  auto constants = LoadServeConstants(kServingData);
  EXPECT_TRUE(model.ok() && chip.ok() && constants.ok());
  const ServeLayout layout{8, 8, 1, 8, 0, 0};
  auto system =
      BuildServeSystem(*predictor, *model, *chip,
                       {.chip = "h200", .precision = "fp8", .layout = layout, .isl = 128});
  EXPECT_TRUE(system.ok());
  auto p = PredictServe(*model, "fp8", layout, {128, 128, 1024, false}, system->system,
                        constants->For("h200", "fp8"));
  EXPECT_TRUE(p.ok()) << p.status().message();
  return *p;
}

TEST(ServingSuitePrediction, ChatPhaseAgreesWithTheServingModel) {
  const validate::Suite suite = H200ServingSuite();
  validate::ReferenceSet refs;
  auto phases = PredictServingSuite(suite, refs, {.data_dir = kServingData});
  ASSERT_TRUE(phases.ok()) << phases.status().message();
  ASSERT_EQ(phases->size(), suite.phases.size());
  const PhasePrediction& chat = phases->front();
  EXPECT_EQ(chat.id, "deepseek-r1_fp8_chat");
  EXPECT_EQ(chat.point, "concurrency 1024");
  ASSERT_TRUE(chat.reason.empty()) << chat.reason;
  const ServePrediction direct = ChatPhaseDirect();
  EXPECT_DOUBLE_EQ(*chat.output_tokens_per_s_per_gpu, direct.output_tokens_per_s_per_gpu);
  EXPECT_DOUBLE_EQ(*chat.ttft_s, direct.ttft_s);
  EXPECT_DOUBLE_EQ(*chat.tpot_s, direct.tpot_s);
  EXPECT_DOUBLE_EQ(*chat.tokens_per_s_per_user, direct.tokens_per_s_per_user);
  ASSERT_TRUE(chat.expected_error.has_value());
  // No reference: no score, and the why says the figures stand alone.
  EXPECT_TRUE(chat.metrics.empty());
  EXPECT_FALSE(chat.predicted_score.has_value());
  EXPECT_NE(chat.why.find("largest term of TPOT"), std::string::npos) << chat.why;
  EXPECT_NE(chat.why.find("no serving reference"), std::string::npos) << chat.why;
}

TEST(ServingSuitePrediction, UnservablePhasesHaveAReasonAndNoNumber) {
  validate::Suite suite = H200ServingSuite();
  suite.phases.resize(2);
  suite.phases[0].model = "no-such-model";
  // Llama 3.1 405B in bf16 on one H200: 812 GB of weights in 141 GB.
  suite.phases[1].model = "llama3.1_405b";
  suite.phases[1].precision = "bf16";
  suite.phases[1].gpus = 1;
  suite.phases[1].tp = suite.phases[1].ep = 1;
  validate::ReferenceSet refs;
  auto phases = PredictServingSuite(suite, refs, {.data_dir = kServingData});
  ASSERT_TRUE(phases.ok()) << phases.status().message();
  EXPECT_NE((*phases)[0].reason.find("no model file models/no-such-model.toml"), std::string::npos)
      << (*phases)[0].reason;
  EXPECT_NE((*phases)[1].reason.find("weights need"), std::string::npos) << (*phases)[1].reason;
  for (const PhasePrediction& p : *phases) {
    EXPECT_FALSE(p.output_tokens_per_s_per_gpu.has_value()) << p.id;
    EXPECT_FALSE(p.predicted_score.has_value()) << p.id;
    EXPECT_FALSE(p.under) << p.id;
  }
}

TEST(ServingSuitePrediction, AChipWithoutASpecIsAReason) {
  validate::Suite suite = H200ServingSuite();
  suite.chip = "no-such-chip";
  validate::ReferenceSet refs;
  auto phases = PredictServingSuite(suite, refs, {.data_dir = kServingData});
  ASSERT_TRUE(phases.ok()) << phases.status().message();
  EXPECT_NE(phases->front().reason.find("no chip spec specs/no-such-chip.toml"), std::string::npos);
}

// A reference of the chat phase, in a file as a site supplies one.
constexpr char kChatReference[] = R"(
[provenance]
chip = "h200"
kind = "site"
release = "v26.05"
source = "test"
date = "2026-01-01"
hardware = "test"
software = "test"
made_by = "test"
metric = "serving"

[[serving_reference]]
phase = "deepseek-r1_fp8_chat"
model = "deepseek-r1"
precision = "fp8"
isl = 128
osl = 128
gpus = 8
concurrency = 1024
mode = "serving"
gpu_denominator = "all GPUs"
output_tokens_per_s_per_gpu = 1500.0
tpot_ms = 80.0
tpot_stat = "mean"
)";

TEST(ServingSuitePrediction, ScoresTheReferenceOnTheRatesRatio) {
  validate::Suite suite = H200ServingSuite();
  suite.phases.resize(1);
  const std::string path = ::testing::TempDir() + "/serving_chat_reference.toml";
  {
    std::FILE* f = std::fopen(path.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs(kChatReference, f);
    std::fclose(f);
  }
  validate::ReferenceSet refs;
  ASSERT_TRUE(refs.AddFile(path).ok());
  // At the reference rates the score is 1 by construction.
  auto same = PredictServingSuite(suite, refs, {.data_dir = kServingData});
  ASSERT_TRUE(same.ok()) << same.status().message();
  ASSERT_EQ(same->front().metrics.size(), 2u);
  EXPECT_NEAR(*same->front().predicted_score, 1.0, 1e-12);
  EXPECT_FALSE(same->front().under);
  // Half the HBM bandwidth: a memory-bound decode loses throughput, under the threshold.
  auto slow =
      PredictServingSuite(suite, refs, {.data_dir = kServingData, .sets = {"hbm.bandwidth=2.4"}});
  ASSERT_TRUE(slow.ok()) << slow.status().message();
  const PhasePrediction& p = slow->front();
  ASSERT_EQ(p.metrics.size(), 2u);
  const PredictedServeMetric& tput = p.metrics[0];
  EXPECT_EQ(tput.key, "output_tokens_per_s_per_gpu");
  EXPECT_LT(tput.score, 0.95);
  EXPECT_TRUE(tput.under);
  EXPECT_DOUBLE_EQ(tput.predicted, 1500.0 * tput.score);
  EXPECT_DOUBLE_EQ(tput.model, *p.output_tokens_per_s_per_gpu);
  EXPECT_EQ(p.metrics[1].key, "tpot_ms");
  EXPECT_DOUBLE_EQ(p.metrics[1].predicted, 80.0 / p.metrics[1].score);
  EXPECT_TRUE(p.under);
  EXPECT_NE(p.why.find("largest term of TPOT"), std::string::npos) << p.why;
}

}  // namespace
}  // namespace ys::predict
