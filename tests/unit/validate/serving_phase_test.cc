// Serving phases of the shipped suites and the errors of a malformed [[phase]].
#include "validate/serving_phase.h"

#include <gtest/gtest.h>

#include "validate/suite.h"

namespace ys::validate {
namespace {

const std::string kPhaseSrc = YS_SOURCE_DIR;

TEST(ServingPhaseTest, ShippedServingSuitesHoldTheFivePhases) {
  for (const char* chip : {"h100", "h200", "b200", "gb200"}) {
    auto s = LoadSuiteByName(std::string(chip) + "-serving", kPhaseSrc);
    ASSERT_TRUE(s.ok()) << chip << ": " << s.status().message();
    EXPECT_TRUE(s->workloads.empty());
    ASSERT_EQ(s->phases.size(), 5u) << chip;
    for (const ServingPhase& p : s->phases) {
      auto lengths = PhaseLengths(p.phase);
      ASSERT_TRUE(lengths) << p.id;
      EXPECT_EQ(p.isl, lengths->first) << p.id;
      EXPECT_EQ(p.osl, lengths->second) << p.id;
      for (int c : p.concurrency) EXPECT_GE(p.requests, 8 * c) << p.id;
      EXPECT_TRUE(p.ignore_eos && p.streaming) << p.id;
    }
    const ServingPhase& d = s->phases.back();
    EXPECT_EQ(d.phase, "disaggregated");
    EXPECT_TRUE(d.disaggregated());
    EXPECT_EQ(d.gpus, d.prefill_workers * d.prefill_tp + d.decode_workers * d.decode_tp);
  }
  auto gb200 = LoadSuiteByName("gb200-serving", kPhaseSrc);
  ASSERT_TRUE(gb200.ok());
  const ServingPhase* d = gb200->FindPhase("deepseek-r1_fp4_disaggregated");
  ASSERT_NE(d, nullptr);
  // NVIDIA's recipe: 6 prefill x TP4 + 1 decode x TP8, concurrency 2048, 16,384 requests.
  EXPECT_EQ(d->gpus, 32);
  EXPECT_EQ(d->concurrency, std::vector<int>{2048});
  EXPECT_EQ(d->requests, 16384);
  EXPECT_EQ(d->DenominatorGpus(), 32);
}

std::string PhaseSuite(const std::string& phase_body) {
  return "[suite]\nchip=\"x\"\nrecipe_release=\"v1\"\nsource=\"s\"\nthreshold=0.95\n[[phase]]\n" +
         phase_body;
}

const char* kChatBody =
    "id=\"c\"\nphase=\"chat\"\nmodel=\"m\"\nprecision=\"fp8\"\nstack=\"vllm\"\n"
    "stack_version=\"0.9\"\ngpus=8\ntp=8\nisl=128\nosl=128\n";

TEST(ServingPhaseTest, MalformedPhasesNameFilePhaseAndField) {
  const std::pair<std::string, const char*> cases[] = {
      {std::string(kChatBody) + "concurrency=64\nrequests=100\n",
       "phase c requests: 100 requests at concurrency 64: a steady state needs at least 8x the "
       "concurrency (512)"},
      {std::string(kChatBody) + "concurrency=[8, 64]\nrequests=64\n", "(512)"},
      {std::string(kChatBody) + "requests=100\n", "concurrency: expected a concurrency or a sweep"},
      {std::string(kChatBody) + "concurrency=8\nrequests=100\nqueue=1\n", "queue: unknown key"},
      {"id=\"c\"\nphase=\"banter\"\n", "phase c phase: expected chat, reasoning"},
      {"id=\"c\"\nphase=\"chat\"\nmodel=\"m\"\nprecision=\"fp8\"\nstack=\"vllm\"\n"
       "stack_version=\"0.9\"\ngpus=8\ntp=4\nisl=128\nosl=128\nconcurrency=1\nrequests=10\n",
       "TP 4 x PP 1 x DP 1 is 4 GPUs, not 8"},
      {"id=\"d\"\nphase=\"disaggregated\"\nmodel=\"m\"\nprecision=\"fp8\"\nstack=\"dynamo\"\n"
       "stack_version=\"1\"\ngpus=32\nprefill_workers=6\nprefill_tp=4\ndecode_workers=1\n"
       "decode_tp=4\nisl=8150\nosl=1024\nconcurrency=8\nrequests=64\n",
       "6 prefill x TP 4 + 1 decode x TP 4 is 28 GPUs, not 32"},
      {"id=\"d\"\nphase=\"disaggregated\"\nmodel=\"m\"\nprecision=\"fp8\"\nstack=\"dynamo\"\n"
       "stack_version=\"1\"\ngpus=8\ntp=8\nisl=8150\nosl=1024\nconcurrency=8\nrequests=64\n",
       "the disaggregated phase needs its prefill and decode workers"},
      {std::string(kChatBody) + "concurrency=8\nrequests=64\nmode=\"burst\"\n",
       "mode: expected \"serving\", \"offline\" or \"latency\""},
      {"id=\"../c\"\n", "[[phase]] 1 id '../c'"},
  };
  for (const auto& [body, want] : cases) {
    auto s = ParseSuite(PhaseSuite(body), "s.toml");
    ASSERT_FALSE(s.ok()) << body;
    EXPECT_NE(s.status().message().find(want), std::string::npos) << s.status().message();
  }
  // A phase and a workload name one runs folder each: the same id twice is refused.
  auto twice = ParseSuite(PhaseSuite(std::string(kChatBody) + "concurrency=8\nrequests=64\n") +
                              "[[phase]]\n" + kChatBody + "concurrency=8\nrequests=64\n",
                          "s.toml");
  ASSERT_FALSE(twice.ok());
  EXPECT_NE(twice.status().message().find("phase c is listed twice"), std::string::npos);
}

TEST(ServingPhaseTest, DefaultsAndTheDecodeDenominator) {
  auto s = ParseSuite(
      PhaseSuite("id=\"d\"\nphase=\"disaggregated\"\nmodel=\"m\"\nprecision=\"fp4\"\n"
                 "stack=\"dynamo-trtllm\"\nstack_version=\"1\"\ngpus=32\nprefill_workers=6\n"
                 "prefill_tp=4\ndecode_workers=1\ndecode_tp=8\nisl=8150\nosl=1024\n"
                 "concurrency=[256, 2048]\nrequests=16384\ngpu_denominator=\"decode GPUs\"\n"),
      "s.toml");
  ASSERT_TRUE(s.ok()) << s.status().message();
  const ServingPhase& p = s->phases.at(0);
  EXPECT_EQ(p.concurrency, (std::vector<int>{256, 2048}));
  EXPECT_EQ(p.load_generator, "aiperf");
  EXPECT_EQ(p.mode, "serving");
  EXPECT_EQ(p.DenominatorGpus(), 8);
}

}  // namespace
}  // namespace ys::validate
