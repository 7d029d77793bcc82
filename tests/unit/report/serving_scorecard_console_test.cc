// The serving phases on the console: the phase line with its verdict and why, the reference, one
// line per metric, the refused points.
#include "report/serving_scorecard_console.h"

#include <gtest/gtest.h>

#include <sstream>

namespace ys::report {
namespace {

TEST(ServingScorecardConsoleTest, PhaseMetricsAndRefusals) {
  validate::ScoredPhase s;
  s.phase.id = "r1_disagg";
  s.phase.phase = "disaggregated";
  s.phase.model = "deepseek-r1";
  s.phase.precision = "fp4";
  s.phase.isl = 8150;
  s.phase.osl = 1024;
  s.phase.gpus = 32;
  s.phase.prefill_workers = 6;
  s.phase.prefill_tp = 4;
  s.phase.decode_workers = 1;
  s.phase.decode_tp = 8;
  s.phase.stack = "dynamo-trtllm";
  s.phase.stack_version = "1.0";
  s.outcome = validate::PhaseOutcome::kFail;
  s.reason = "below the rule: TTFT mean 80.0%";
  validate::ServingReference r;
  r.concurrency = 2048;
  r.mode = "serving";
  r.gpu_denominator = "all GPUs";
  r.provenance.kind = "site";
  r.provenance.release = "v26.05";
  r.provenance.source = "the site's figures";
  s.reference = r;
  s.metrics.push_back({.name = "TTFT mean",
                       .unit = "ms",
                       .measured = 1250,
                       .reference = 1000,
                       .score = 0.8,
                       .outcome = validate::PhaseOutcome::kFail});
  s.refused.push_back("concurrency 4096: overloaded: median TTFT 31.0 s");
  std::ostringstream out;
  WriteServingPhases({s}, 0.95, /*color=*/false, out);
  const std::string text = out.str();
  EXPECT_NE(text.find("TTFT and TPOT below reference / 0.95"), std::string::npos) << text;
  EXPECT_NE(text.find("r1_disagg  disaggregated deepseek-r1 fp4, ISL/OSL 8150/1024, 32 GPUs (6 "
                      "prefill x TP4 + 1 decode x TP8), dynamo-trtllm 1.0: FAIL  below the rule: "
                      "TTFT mean 80.0%"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("reference: site v26.05 (the site's figures), serving at concurrency 2048"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("1250.00      1000.00    80.0%  FAIL"), std::string::npos) << text;
  EXPECT_NE(text.find("refused: concurrency 4096: overloaded"), std::string::npos) << text;
  std::ostringstream none;
  WriteServingPhases({}, 0.95, false, none);
  EXPECT_TRUE(none.str().empty());
}

}  // namespace
}  // namespace ys::report
