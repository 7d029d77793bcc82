// The serving rule on hand-made points: throughput above 95% of the reference, latencies below
// reference / 0.95, every metric for a pass, and the refusals before any score.
#include "validate/serving_score.h"

#include <gtest/gtest.h>

namespace ys::validate {
namespace {

ServingPhase ChatPhase() {
  ServingPhase p;
  p.id = "r1_chat";
  p.phase = "chat";
  p.model = "deepseek-r1";
  p.precision = "fp4";
  p.stack = "trtllm";
  p.gpus = 4;
  p.tp = 4;
  p.isl = 128;
  p.osl = 128;
  p.concurrency = {64};
  p.requests = 640;
  return p;
}

ServingReference ChatReference() {
  ServingReference r;
  r.phase = "r1_chat";
  r.concurrency = 64;
  r.mode = "serving";
  r.gpu_denominator = "all GPUs";
  r.output_tokens_per_s_per_gpu = 1000;
  r.ttft_ms = 100;
  r.tpot_ms = 10;
  r.provenance.kind = "site";
  return r;
}

// 640 of 640 requests at concurrency 64: 4000 output tok/s over 4 GPUs, TTFT 100, TPOT 10.
ServingPoint ChatPoint(int concurrency = 64) {
  ServingPoint p;
  p.mode = ServingMode::kServing;
  p.max_concurrency = concurrency;
  p.num_prompts = 640;
  p.completed = 640;
  p.failed = 0;
  p.osl_asked = 128;
  p.osl_tokens["mean"] = 128;
  p.isl_tokens["mean"] = 128;
  p.output_throughput = 4000;
  p.ttft_ms = {{"mean", 100}, {"p50", 95}};
  p.tpot_ms = {{"mean", 10}, {"p50", 9.8}};
  p.e2el_ms = {{"mean", 1370}, {"p50", 1350}};
  return p;
}

ScoredPhase Score(const ServingPoint& p, const ServingReference& r,
                  const ServingPhase& phase = ChatPhase()) {
  PhaseRun run{.dir = "runs/r1_chat",
               .files = {"runs/r1_chat/out.json"},
               .format = "aiperf-json",
               .points = {p}};
  return ScoreServingPhase(phase, &r, run, 0.95);
}

TEST(ServingScoreTest, EqualFiguresPassEveryMetric) {
  ScoredPhase s = Score(ChatPoint(), ChatReference());
  EXPECT_EQ(s.outcome, PhaseOutcome::kPass) << s.reason;
  ASSERT_EQ(s.metrics.size(), 3u);
  EXPECT_EQ(s.metrics[0].name, "output throughput");
  EXPECT_DOUBLE_EQ(*s.metrics[0].measured, 1000);
  EXPECT_DOUBLE_EQ(*s.metrics[0].score, 1.0);
  EXPECT_EQ(s.metrics[1].name, "TTFT mean");
  EXPECT_EQ(s.reason,
            "above the rule: output throughput 100.0%, TTFT mean 100.0%, TPOT mean 100.0%");
}

TEST(ServingScoreTest, ALatencyPassesBelowReferenceOver095NotReferenceTimes105) {
  ServingPoint p = ChatPoint();
  p.tpot_ms["mean"] = 10.5;  // +5%: 10 / 10.5 = 95.2%, passes
  EXPECT_EQ(Score(p, ChatReference()).outcome, PhaseOutcome::kPass);
  p.tpot_ms["mean"] = 10 / 0.95;  // exactly reference / 0.95: not above 95%
  ScoredPhase s = Score(p, ChatReference());
  EXPECT_EQ(s.outcome, PhaseOutcome::kFail);
  EXPECT_EQ(s.reason, "below the rule: TPOT mean 95.0%");
}

TEST(ServingScoreTest, ThroughputBelow95PercentFails) {
  ServingPoint p = ChatPoint();
  p.output_throughput = 3780;  // 945 per GPU
  ScoredPhase s = Score(p, ChatReference());
  EXPECT_EQ(s.outcome, PhaseOutcome::kFail);
  EXPECT_NE(s.reason.find("output throughput 94.5%"), std::string::npos) << s.reason;
}

TEST(ServingScoreTest, TheReferencesStatisticOrNothing) {
  ServingReference r = ChatReference();
  r.ttft_stat = "p99";  // the file gives mean and median only
  ScoredPhase s = Score(ChatPoint(), r);
  EXPECT_EQ(s.outcome, PhaseOutcome::kInconclusive);
  EXPECT_NE(s.reason.find("TTFT p99 (the run's files give none)"), std::string::npos) << s.reason;
  // A failing metric fails the phase even when another cannot be compared.
  ServingPoint slow = ChatPoint();
  slow.output_throughput = 2000;
  EXPECT_EQ(Score(slow, r).outcome, PhaseOutcome::kFail);
}

TEST(ServingScoreTest, NoReferenceIsInconclusiveAndSaysWhatToSupply) {
  PhaseRun run{.dir = "x", .points = {ChatPoint()}};
  ScoredPhase s = ScoreServingPhase(ChatPhase(), nullptr, run, 0.95);
  EXPECT_EQ(s.outcome, PhaseOutcome::kInconclusive);
  EXPECT_NE(s.reason.find("no serving reference for r1_chat"), std::string::npos) << s.reason;
  EXPECT_NE(s.reason.find("--reference FILE"), std::string::npos) << s.reason;
}

TEST(ServingScoreTest, AMissingOutputFails) {
  PhaseRun run{.dir = "runs/r1_chat", .problem = "no serving output: runs/r1_chat is not a folder"};
  ServingReference r = ChatReference();
  EXPECT_EQ(ScoreServingPhase(ChatPhase(), &r, run, 0.95).outcome, PhaseOutcome::kFail);
}

TEST(ServingScoreTest, RefusedBeforeScoring) {
  struct Case {
    const char* what;
    void (*change)(ServingPoint&, ServingReference&, ServingPhase&);
    const char* reason;
  };
  const Case cases[] = {
      {"lost requests",
       [](ServingPoint& p, ServingReference&, ServingPhase&) { p.completed = 600; },
       "requests_lost: 600 of 640 requests completed"},
      {"short outputs",
       [](ServingPoint& p, ServingReference&, ServingPhase&) { p.osl_tokens["mean"] = 70; },
       "outputs_short"},
      {"another phase's lengths",
       [](ServingPoint& p, ServingReference&, ServingPhase&) { p.isl_tokens["mean"] = 512; },
       "inputs average 512 tokens, the phase's ISL is 128"},
      {"offline against serving",
       [](ServingPoint& p, ServingReference&, ServingPhase&) {
         p.mode = ServingMode::kOffline;
         p.max_concurrency.reset();
       },
       "an offline max-throughput run"},
      {"denominator",
       [](ServingPoint&, ServingReference& r, ServingPhase&) { r.gpu_denominator = "decode GPUs"; },
       "the reference divides by decode GPUs, the phase by all GPUs"},
      {"the file's GPU count",
       [](ServingPoint& p, ServingReference&, ServingPhase&) { p.gpus = 8; },
       "the file says 8 GPUs served it"},
      {"no point at the reference's concurrency",
       [](ServingPoint& p, ServingReference&, ServingPhase&) { p.max_concurrency = 32; },
       "no valid measured point at the reference's concurrency 64 (valid: concurrency 32)"},
      {"no request count",
       [](ServingPoint& p, ServingReference&, ServingPhase&) {
         p.completed.reset();
         p.num_prompts.reset();
       },
       "lost requests cannot be ruled out"},
  };
  for (const Case& c : cases) {
    ServingPoint p = ChatPoint();
    ServingReference r = ChatReference();
    ServingPhase phase = ChatPhase();
    c.change(p, r, phase);
    ScoredPhase s = Score(p, r, phase);
    EXPECT_EQ(s.outcome, PhaseOutcome::kInconclusive) << c.what << ": " << s.reason;
    EXPECT_NE(s.reason.find(c.reason), std::string::npos) << c.what << ": " << s.reason;
  }
}

TEST(ServingScoreTest, ASweepIsComparedAtTheReferencesInteractivity) {
  ServingPoint fast = ChatPoint(32), busy = ChatPoint(128);
  fast.num_prompts = fast.completed = 1280;
  busy.num_prompts = busy.completed = 1280;
  fast.output_tokens_per_s_per_user = 40;
  fast.output_throughput = 2400;  // 600 per GPU
  busy.output_tokens_per_s_per_user = 20;
  busy.output_throughput = 4000;  // 1000 per GPU
  ServingReference r = ChatReference();
  r.tokens_per_s_per_user = 30;
  r.output_tokens_per_s_per_gpu = 820;
  r.ttft_ms.reset();
  r.tpot_ms.reset();
  ServingPhase phase = ChatPhase();
  phase.concurrency = {32, 128};
  phase.requests = 1280;
  PhaseRun run{.dir = "x", .points = {fast, busy}};
  ScoredPhase s = ScoreServingPhase(phase, &r, run, 0.95);
  ASSERT_EQ(s.metrics.size(), 1u);
  EXPECT_DOUBLE_EQ(*s.metrics[0].measured, 800);  // halfway between 1000 and 600
  EXPECT_NE(s.metrics[0].note.find("interpolated at the reference's 30.0 tok/s/user between "
                                   "concurrency 128 (20.0) and concurrency 32 (40.0)"),
            std::string::npos)
      << s.metrics[0].note;
  EXPECT_EQ(s.outcome, PhaseOutcome::kPass);  // 800 / 820 = 97.6%
  r.tokens_per_s_per_user = 50;               // beyond the measured curve
  s = ScoreServingPhase(phase, &r, run, 0.95);
  EXPECT_EQ(s.outcome, PhaseOutcome::kInconclusive);
  EXPECT_NE(s.reason.find("outside the measured curve (20.0 to 40.0)"), std::string::npos)
      << s.reason;
}

TEST(ServingScoreTest, AProxyReferenceIsNamedInTheVerdict) {
  ServingReference r = ChatReference();
  r.provenance.kind = "proxy";
  ScoredPhase s = Score(ChatPoint(), r);
  EXPECT_EQ(s.outcome, PhaseOutcome::kPass);
  EXPECT_NE(s.reason.find("against a public proxy, not an Exemplar reference"), std::string::npos);
}

}  // namespace
}  // namespace ys::validate
