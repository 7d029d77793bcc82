// The proxy units: registered for every shipped model; a 1-rank run of proxy.llama3.1_8b end to
// end on this host in the quick profile (measurement names, shapes of the results, non-negative
// times, the prediction and the foreign CPU share in range; no speed asserted); the quick profile
// skips the other models with the reason; a missing models directory is an error naming the file.
#include "workloads/proxy/proxy_unit.h"

#include <gtest/gtest.h>

#include "core/registry.h"
#include "testing/bench_test_util.h"

namespace ys::workloads {
namespace {

const char* kModelNames[] = {"llama3.1_8b", "llama3.1_70b",     "llama3.1_405b", "gpt_oss_120b",
                             "qwen3_235b",  "deepseek-v3_671b", "nemotron-h_56b"};

TEST(ProxyUnitTest, EveryModelIsRegistered) {
  for (const char* m : kModelNames) {
    const RegisteredUnit* u =
        UnitRegistry::Global().Find(UnitKind::kBenchmark, std::string("proxy.") + m);
    ASSERT_NE(u, nullptr) << m;
    auto made = u->factory();
    auto* b = dynamic_cast<const bench::Benchmark*>(made.get());
    ASSERT_NE(b, nullptr);
    EXPECT_EQ(b->reach(), bench::Benchmark::Reach::kJob);
  }
}

TEST(ProxyUnitTest, OneRankRunEndToEnd) {
  bench::BenchOptions o{.warmup = 1, .iters = 4, .data_dir = YS_SOURCE_DIR};
  BenchmarkResult r = ys::testing::RunLiveBenchmark("proxy.llama3.1_8b", o);
  ASSERT_EQ(r.outcome, Outcome::kPass) << r.summary;
  const std::string p = "proxy.llama3.1_8b.";
  const Measurement* step = ys::testing::FindMeasurement(r, p + "step_time");
  ASSERT_NE(step, nullptr);
  EXPECT_EQ(step->samples.size(), 4u);
  for (double s : step->samples) EXPECT_GT(s, 0);
  EXPECT_EQ(step->params.at("scale"), "1/16");
  EXPECT_EQ(step->params.at("layers"), "2");
  const Measurement* rank = ys::testing::FindMeasurement(r, p + "rank_step_time");
  ASSERT_NE(rank, nullptr);
  EXPECT_EQ(rank->params.at("rank"), "0");
  EXPECT_EQ(rank->samples, step->samples);  // one rank: the job's step is the rank's
  const Measurement* pred = ys::testing::FindMeasurement(r, p + "predicted_step_time");
  ASSERT_NE(pred, nullptr);
  EXPECT_GT(pred->value, 0);
  EXPECT_NE(pred->params.at("assumption").find("no overlap"), std::string::npos);
  for (const char* name : {"tokens_per_s_per_gpu", "model_tflops_per_gpu"}) {
    const Measurement* m = ys::testing::FindMeasurement(r, p + name);
    ASSERT_NE(m, nullptr) << name;
    EXPECT_GT(m->value, 0) << name;
  }
  // 2 layers x 256 tokens (1/16 of 8192, CP 2) per step.
  EXPECT_EQ(
      ys::testing::FindMeasurement(r, p + "tokens_per_s_per_gpu")->params.at("tokens_per_step"),
      "256");
  const Measurement* foreign = ys::testing::FindMeasurement(r, p + "foreign_cpu_share");
  ASSERT_NE(foreign, nullptr);
  EXPECT_GE(foreign->value, 0);
  EXPECT_LE(foreign->value, 1);
  ASSERT_EQ(r.tables.size(), 1u);
  EXPECT_EQ(r.tables[0].rows.size(), 3u);  // GEMM fwd, GEMM bwd, DP comm (1 rank: skipped, 0 s)
  bool stated = false;
  for (const auto& [k, v] : r.evidence)
    stated |= k.starts_with("collectives.") && v.find("skipped") != std::string::npos;
  EXPECT_TRUE(stated) << "one rank: the skipped collectives are stated";
}

TEST(ProxyUnitTest, QuickProfileSkipsOtherModelsAndMissingModelsIsError) {
  bench::BenchOptions o{.data_dir = YS_SOURCE_DIR};
  BenchmarkResult skip = ys::testing::RunLiveBenchmark("proxy.qwen3_235b", o);
  EXPECT_EQ(skip.outcome, Outcome::kSkip);
  EXPECT_NE(skip.summary.find("proxy.llama3.1_8b only"), std::string::npos) << skip.summary;
  ys::testing::TempDir empty;
  bench::BenchOptions bad{.data_dir = empty.path()};
  BenchmarkResult err = ys::testing::RunLiveBenchmark("proxy.llama3.1_8b", bad);
  EXPECT_EQ(err.outcome, Outcome::kError);
  EXPECT_NE(err.summary.find("llama3.1_8b.toml"), std::string::npos) << err.summary;
}

}  // namespace
}  // namespace ys::workloads
