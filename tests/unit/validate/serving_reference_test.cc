// Serving reference files: parsed strictly, matched to a phase, ranked recorded > site > proxy.
#include "validate/serving_reference.h"

#include <gtest/gtest.h>

#include "validate/reference.h"
#include "validate/suite.h"

namespace ys::validate {
namespace {

std::string ServingRefFile(const std::string& kind, double per_gpu, const std::string& extra = "") {
  return "[provenance]\nchip=\"gb200\"\nkind=\"" + kind +
         "\"\nrelease=\"v26.05\"\nsource=\"s\"\ndate=\"2026-07\"\nhardware=\"h\"\nsoftware=\"s\"\n"
         "made_by=\"m\"\nmetric=\"serving\"\n[[serving_reference]]\nphase=\"r1_chat\"\n"
         "model=\"deepseek-r1\"\nprecision=\"fp4\"\nisl=128\nosl=128\ngpus=4\nconcurrency=1024\n"
         "mode=\"serving\"\ngpu_denominator=\"all GPUs\"\noutput_tokens_per_s_per_gpu=" +
         std::to_string(per_gpu) + "\nttft_ms=500\nttft_stat=\"median\"\n" + extra;
}

ServingPhase R1Chat() {
  ServingPhase p;
  p.id = "r1_chat";
  p.phase = "chat";
  p.model = "deepseek-r1";
  p.precision = "fp4";
  p.isl = p.osl = 128;
  p.gpus = 4;
  return p;
}

TEST(ServingReferenceTest, ParsedAndMatchedToItsPhase) {
  ReferenceSet set;
  ASSERT_TRUE(set.AddText(ServingRefFile("proxy", 900), "proxy.toml").ok());
  ASSERT_TRUE(set.AddText(ServingRefFile("site", 1000), "site.toml").ok());
  ASSERT_EQ(set.serving().size(), 2u);
  const ServingReference* r = set.FindServing("gb200", R1Chat());
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->provenance.kind, "site");  // a site's figures over a public proxy
  EXPECT_DOUBLE_EQ(r->output_tokens_per_s_per_gpu, 1000);
  EXPECT_EQ(r->ttft_stat, "p50");  // "median" is the 50th percentile
  EXPECT_EQ(r->tpot_stat, "mean");
  EXPECT_FALSE(r->tpot_ms.has_value());
  ASSERT_TRUE(set.AddText(ServingRefFile("recorded", 950), "golden.toml").ok());
  EXPECT_EQ(set.FindServing("gb200", R1Chat())->provenance.kind, "recorded");
  // Another chip, GPU count or length is no comparable reference.
  EXPECT_EQ(set.FindServing("b200", R1Chat()), nullptr);
  ServingPhase eight = R1Chat();
  eight.gpus = 8;
  EXPECT_EQ(set.FindServing("gb200", eight), nullptr);
  ServingPhase longer = R1Chat();
  longer.isl = 1000;
  EXPECT_EQ(set.FindServing("gb200", longer), nullptr);
}

TEST(ServingReferenceTest, MalformedReferencesNameTheField) {
  const std::pair<std::string, const char*> cases[] = {
      {ServingRefFile("published", 1000), "kind: expected \"site\""},
      {ServingRefFile("site", 1000, "tpot_stat=\"typical\"\n"), "tpot_stat: expected a statistic"},
      {ServingRefFile("site", 1000, "color=1\n"), "color: unknown key"},
      {ServingRefFile("site", -5), "output_tokens_per_s_per_gpu"},
      {ServingRefFile("site", 1000) + "[[reference]]\nworkload=\"x\"\n",
       "[[reference]] in a file whose metric is serving"},
  };
  for (const auto& [text, want] : cases) {
    ReferenceSet set;
    Status s = set.AddText(text, "r.toml");
    ASSERT_FALSE(s.ok()) << text;
    EXPECT_NE(s.message().find(want), std::string::npos) << s.message();
  }
}

}  // namespace
}  // namespace ys::validate
