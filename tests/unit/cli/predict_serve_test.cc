// `predict --serve`'s flags and documents: bad combinations name the flag, and the JSON carries
// the answer, the breakdown and the expected error.
#include "cli/predict_serve.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace ys::cli {
namespace {

ServeArgs GoodServeArgs() {
  ServeArgs a;
  a.model = "llama3.1_70b";
  a.chip = "h100";
  a.dtype = "fp8";
  a.gpus = 8;
  a.tp = 4;
  a.isl = 1024;
  a.osl = 1024;
  a.concurrency = 64;
  return a;
}

TEST(PredictServeTest, BadCombinationsNameTheFlag) {
  EXPECT_TRUE(CheckServeArgs(GoodServeArgs()).ok());
  struct Case {
    void (*change)(ServeArgs&);
    const char* expect;
  };
  const Case cases[] = {
      {[](ServeArgs& a) { a.max_throughput = true; }, "--concurrency 64 with --max-throughput"},
      {[](ServeArgs& a) { a.concurrency = 0; }, "--concurrency: missing"},
      {[](ServeArgs& a) { a.isl = 0; }, "--isl: missing"},
      {[](ServeArgs& a) { a.osl = 0; }, "--osl: missing"},
      {[](ServeArgs& a) { a.model.clear(); }, "--model: missing"},
      {[](ServeArgs& a) { a.tp = 3; }, "--tp 3 × --pp 1: does not divide --gpus 8"},
      {[](ServeArgs& a) {
         a.prefill_gpus = 4;
         a.decode_gpus = 8;
       },
       "--prefill-gpus 4 + --decode-gpus 8: expected --gpus 8"},
      {[](ServeArgs& a) { a.prefill_gpus = 4; }, "--prefill-gpus: expected --decode-gpus"},
  };
  for (const Case& c : cases) {
    ServeArgs a = GoodServeArgs();
    c.change(a);
    const Status s = CheckServeArgs(a);
    ASSERT_FALSE(s.ok()) << c.expect;
    EXPECT_EQ(s.code(), StatusCode::kInvalidInput);
    EXPECT_NE(s.message().find(c.expect), std::string::npos) << s.message();
  }
}

TEST(PredictServeTest, JsonCarriesTheAnswerBreakdownAndError) {
  predict::ServePrediction p;
  p.output_tokens_per_s = 8000;
  p.output_tokens_per_s_per_gpu = 1000;
  p.tokens_per_s_per_user = 25;
  p.ttft_s = 0.2;
  p.tpot_s = 0.04;
  p.batch_per_instance = 32;
  p.instances = 2;
  p.prefill = {{"prefill_gemm", 0.2, "x"}};
  p.decode = {{"decode_weights", 0.03, "y"}, {"host", 0.01, "z"}};
  const predict::ServeExpectedError none;
  const nlohmann::json j = ServeJson(GoodServeArgs(), p, none, "c.toml", {});
  EXPECT_EQ(j["output_tokens_per_s_per_gpu"], 1000);
  EXPECT_EQ(j["breakdown"]["decode"].size(), 2u);
  EXPECT_EQ(j["breakdown"]["prefill"][0]["name"], "prefill_gemm");
  EXPECT_EQ(j["expected_error"]["situation"], "no_serving_calibration");
  EXPECT_TRUE(j["expected_error"]["p90"].is_null());
  EXPECT_EQ(j["inputs"]["concurrency"], 64);
  const std::string console = ServeConsole(GoodServeArgs(), p, none, "c.toml");
  EXPECT_NE(console.find("# serving prediction: llama3.1_70b fp8 on 8 × h100 (TP 4)"),
            std::string::npos)
      << console;
  EXPECT_NE(console.find("expected error: unknown"), std::string::npos);
  EXPECT_NE(console.find("TPOT (total)"), std::string::npos);
}

}  // namespace
}  // namespace ys::cli
