// The serving model: properties that wrong physics would break (memory-bound decode, compute-bound
// prefill, MoE sparsity, HBM capacity), a hand-computed case, and every shipped model predicted.
#include "predict/serve_model.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

namespace ys::predict {
namespace {

const std::string kModels = std::string(YS_SOURCE_DIR) + "/models/";

ModelSpec ServeModel(const std::string& name) {
  auto spec = LoadModelSpec(kModels + name + ".toml");
  EXPECT_TRUE(spec.ok()) << spec.status().message();
  return spec.ok() ? *spec : ModelSpec{};
}

// An H100-like system: datasheet peaks and HBM, NVLink and network bus bandwidths.
ServeSystem ServeH100() {
  ServeSystem s;
  s.rates.chip = "h100";
  s.rates.peak_flops = {{"bf16", 989e12}, {"fp8", 1979e12}};
  s.rates.hbm_bytes_per_s = 3.35e12;
  s.rates.nvlink_domain = 8;
  for (const char* c : {"all_reduce", "alltoall", "sendrecv"}) {
    s.rates.nvlink_busbw[c] = 360e9;
    s.rates.network_busbw[c] = 42e9;
  }
  s.hbm_capacity_bytes = 80e9;
  return s;
}

ServeSystem ServeH200() {
  ServeSystem s = ServeH100();
  s.rates.chip = "h200";
  s.rates.hbm_bytes_per_s = 4.8e9 * 1000;
  s.hbm_capacity_bytes = 141e9;
  return s;
}

double ServeTermOf(const std::vector<ServeTerm>& terms, const std::string& name) {
  for (const ServeTerm& t : terms) {
    if (t.name == name) return t.seconds;
  }
  ADD_FAILURE() << "no term " << name;
  return 0;
}

bool ServeHasTerm(const std::vector<ServeTerm>& terms, const std::string& name) {
  for (const ServeTerm& t : terms) {
    if (t.name == name) return true;
  }
  return false;
}

ServePrediction ServeRun(const ModelSpec& m, const char* dtype, ServeLayout l, ServeLoad load,
                         const ServeSystem& s, ServeConstants c = {}) {
  auto p = PredictServe(m, dtype, l, load, s, c);
  EXPECT_TRUE(p.ok()) << p.status().message();
  return p.ok() ? *p : ServePrediction{};
}

// Llama 3.1 8B fp8 on one H100, one sequence: the weights read once per step (the fp8 body and the
// bf16 output head: 6.98e9 + 1.05e9 = 8.03e9 bytes), the KV cache of the mean context, the host.
TEST(ServeModelTest, HandComputedLlama8bFp8H100BatchOne) {
  ServeConstants c;
  c.decode_hbm_efficiency = 0.7;
  c.host_seconds_per_step = 5e-4;
  const ServePrediction p =
      ServeRun(ServeModel("llama3.1_8b"), "fp8", {}, {128, 1024, 1}, ServeH100(), c);
  const double kv = (128 + 512) * 2.0 * 8 * 128 * 32;  // fp8 KV, 8 KV heads of 128, 32 layers
  const double expected = (8.03e9 + kv) / (3.35e12 * 0.7) + 5e-4;
  EXPECT_NEAR(p.tpot_s / expected, 1.0, 0.01) << p.tpot_s << " vs " << expected;
  EXPECT_EQ(p.batch_per_instance, 1);
  EXPECT_NEAR(p.tokens_per_s_per_user, 1 / p.tpot_s, 1e-9);
  double sum = 0;
  for (const ServeTerm& t : p.decode) sum += t.seconds;
  EXPECT_NEAR(sum, p.tpot_s, 1e-12);
}

TEST(ServeModelTest, DecodeStepGrowsWithBatchAndContext) {
  const ModelSpec m = ServeModel("llama3.1_70b");
  const ServeLayout l{.gpus = 4, .tp = 4};
  double last = 0;
  for (int k : {1, 16, 64, 256}) {
    const double tpot = ServeRun(m, "fp8", l, {1024, 1024, k}, ServeH100()).tpot_s;
    EXPECT_GT(tpot, last) << "concurrency " << k;
    last = tpot;
  }
  const double short_ctx =
      ServeTermOf(ServeRun(m, "fp8", l, {1024, 1024, 64}, ServeH100()).decode, "decode_kv");
  const double long_ctx =
      ServeTermOf(ServeRun(m, "fp8", l, {8192, 1024, 64}, ServeH100()).decode, "decode_kv");
  EXPECT_NEAR(long_ctx / short_ctx, (8192 + 512.0) / (1024 + 512), 1e-6);
}

TEST(ServeModelTest, DoublingHbmBandwidthNearlyHalvesASmallBatchStep) {
  ServeConstants c;
  c.host_seconds_per_step = 0;
  const ModelSpec m = ServeModel("llama3.1_8b");
  ServeSystem fast = ServeH100();
  fast.rates.hbm_bytes_per_s *= 2;
  const double slow_tpot = ServeRun(m, "fp8", {}, {256, 256, 1}, ServeH100(), c).tpot_s;
  const double fast_tpot = ServeRun(m, "fp8", {}, {256, 256, 1}, fast, c).tpot_s;
  EXPECT_GT(fast_tpot / slow_tpot, 0.49);
  EXPECT_LT(fast_tpot / slow_tpot, 0.52);
}

TEST(ServeModelTest, PrefillScalesLinearlyWithShortInputs) {
  const ModelSpec m = ServeModel("llama3.1_8b");
  auto compute = [&](int isl) {
    const ServePrediction p = ServeRun(m, "fp8", {}, {isl, 128, 1}, ServeH100());
    return ServeTermOf(p.prefill, "prefill_gemm") + ServeTermOf(p.prefill, "prefill_attention");
  };
  EXPECT_NEAR(compute(256) / compute(128), 2.0, 0.05);
  // At long inputs the quadratic attention term makes it grow faster than linearly.
  EXPECT_GT(compute(65536) / compute(32768), 2.1);
}

TEST(ServeModelTest, MoeDecodeReadsFewerWeightBytesThanADenseModelOfFewerParameters) {
  // Qwen3 235B-A22B holds 3.4x the parameters of Llama 3.1 70B but a step of few tokens reads
  // only the experts they touch.
  const ServeLayout l{.gpus = 8, .tp = 8};
  const ServePrediction moe =
      ServeRun(ServeModel("qwen3_235b"), "fp8", l, {1024, 1024, 1}, ServeH200());
  const ServePrediction dense =
      ServeRun(ServeModel("llama3.1_70b"), "fp8", l, {1024, 1024, 1}, ServeH200());
  EXPECT_LT(ServeTermOf(moe.decode, "decode_weights"),
            0.6 * ServeTermOf(dense.decode, "decode_weights"));
  // With many tokens per step every expert is touched: the read grows toward the whole model.
  const ServePrediction big =
      ServeRun(ServeModel("qwen3_235b"), "fp8", l, {1024, 1024, 512}, ServeH200());
  EXPECT_GT(ServeTermOf(big.decode, "decode_weights"),
            2.5 * ServeTermOf(dense.decode, "decode_weights"));
}

TEST(ServeModelTest, MaxThroughputBatchShrinksWithSequenceLength) {
  const ModelSpec m = ServeModel("llama3.1_70b");
  const ServeLayout l{.gpus = 4, .tp = 4};
  int last = 1 << 30;
  for (int isl : {128, 1024, 8192, 32768}) {
    const ServePrediction p = ServeRun(m, "fp8", l, {isl, 1024, 0, true}, ServeH100());
    EXPECT_LT(p.batch_per_instance, last) << isl;
    EXPECT_GE(p.batch_per_instance, 1);
    last = p.batch_per_instance;
  }
}

// The runtime's own memory comes out of the HBM before the KV cache takes its share: 70B fp8 at
// TP 1 on an 80 GB card (about 71 GB of weights), where 3 GB is a third of what is left.
TEST(ServeModelTest, RuntimeReserveShrinksTheMaxThroughputBatch) {
  const ModelSpec m = ServeModel("llama3.1_70b");
  const ServeLoad load{1024, 1024, 0, true};
  ServeConstants c;
  const ServePrediction full = ServeRun(m, "fp8", {.gpus = 1, .tp = 1}, load, ServeH100(), c);
  c.runtime_reserved_bytes = 3e9;
  const ServePrediction reserved = ServeRun(m, "fp8", {.gpus = 1, .tp = 1}, load, ServeH100(), c);
  ASSERT_GT(full.batch_per_instance, 2);
  // KV bytes per sequence: 80 layers × 2 × 8 heads × 128 × 1 B × 2048 tokens = 335.5 MB.
  const double per_seq = 80.0 * 2 * 8 * 128 * 2048;
  EXPECT_NEAR(full.batch_per_instance - reserved.batch_per_instance, 0.9 * 3e9 / per_seq, 1.01);
  c.runtime_reserved_bytes = 20e9;  // weights and reserve beyond the card: refused, with why
  EXPECT_FALSE(PredictServe(m, "fp8", {.gpus = 1, .tp = 1}, load, ServeH100(), c).ok());
}

// A prompt chunked into a decode step rides the step's forward pass: its all-reduces add their
// bytes, not their latency again. At TP 8 with a large latency the chunk costs its request's
// prefill less 160 latencies.
TEST(ServeModelTest, PrefillChunksDoNotPayTheStepsCollectiveLatencyAgain) {
  const ModelSpec m = ServeModel("llama3.1_70b");
  ServeConstants c;
  c.allreduce_latency_s = 1e-4;
  const ServePrediction p =
      ServeRun(m, "fp8", {.gpus = 8, .tp = 8}, {128, 128, 256}, ServeH100(), c);
  const double prefill = ServeTermOf(p.prefill, "prefill_gemm") +
                         ServeTermOf(p.prefill, "prefill_attention") +
                         ServeTermOf(p.prefill, "prefill_tp_allreduce");
  EXPECT_NEAR(ServeTermOf(p.decode, "prefill_chunks"), 256.0 / 128 * (prefill - 160 * 1e-4), 1e-9);
  EXPECT_GT(ServeTermOf(p.decode, "tp_allreduce"), 160 * 1e-4);  // the step pays it once
}

// Figures only (a fit's evaluations): the same figures and terms, no text.
TEST(ServeModelTest, FiguresOnlyGivesTheSameFiguresWithoutText) {
  const ModelSpec m = ServeModel("deepseek-v3_671b");
  const ServeLayout l{.gpus = 16, .tp = 8, .ep = 8, .prefill_gpus = 8, .decode_gpus = 8};
  for (const ServeLoad& load : {ServeLoad{1024, 1024, 0, true}, ServeLoad{8192, 512, 64}}) {
    const ServePrediction told = ServeRun(m, "fp8", l, load, ServeH200());
    auto bare = PredictServe(m, "fp8", l, load, ServeH200(), {}, ServeText::kFiguresOnly);
    ASSERT_TRUE(bare.ok()) << bare.status().message();
    EXPECT_EQ(bare->output_tokens_per_s, told.output_tokens_per_s);
    EXPECT_EQ(bare->ttft_s, told.ttft_s);
    EXPECT_EQ(bare->tpot_s, told.tpot_s);
    ASSERT_EQ(bare->decode.size(), told.decode.size());
    ASSERT_EQ(bare->prefill.size(), told.prefill.size());
    for (size_t i = 0; i < told.decode.size(); ++i) {
      EXPECT_EQ(bare->decode[i].name, told.decode[i].name);
      EXPECT_EQ(bare->decode[i].seconds, told.decode[i].seconds);
      EXPECT_TRUE(bare->decode[i].basis.empty()) << bare->decode[i].basis;
      EXPECT_FALSE(told.decode[i].basis.empty()) << told.decode[i].name;
    }
    EXPECT_TRUE(bare->notes.empty());
    EXPECT_FALSE(told.notes.empty());
  }
}

TEST(ServeModelTest, DisaggregatedServingSendsTheKvCache) {
  const ModelSpec m = ServeModel("llama3.1_70b");
  const ServePrediction agg =
      ServeRun(m, "fp8", {.gpus = 8, .tp = 4}, {8192, 1024, 64}, ServeH100());
  const ServePrediction dis =
      ServeRun(m, "fp8", {.gpus = 16, .tp = 4, .prefill_gpus = 8, .decode_gpus = 8},
               {8192, 1024, 64}, ServeH100());
  EXPECT_FALSE(ServeHasTerm(agg.prefill, "kv_transfer"));
  EXPECT_GT(ServeTermOf(dis.prefill, "kv_transfer"), 0);
  EXPECT_FALSE(ServeHasTerm(dis.decode, "prefill_chunks"));
  EXPECT_TRUE(ServeHasTerm(agg.decode, "prefill_chunks"));
  EXPECT_EQ(dis.instances, 2);
}

TEST(ServeModelTest, WeightsThatDoNotFitAreInvalidWithTheirBytes) {
  auto p = PredictServe(ServeModel("llama3.1_405b"), "bf16", {}, {128, 128, 1}, ServeH100(), {});
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), StatusCode::kInvalidInput);
  EXPECT_NE(p.status().message().find("GB per GPU"), std::string::npos) << p.status().message();
  EXPECT_NE(p.status().message().find("80 GB"), std::string::npos) << p.status().message();
}

TEST(ServeModelTest, BadLayoutsAndLoadsNameTheFlag) {
  const ModelSpec m = ServeModel("llama3.1_8b");
  struct Case {
    ServeLayout l;
    ServeLoad load;
    const char* expect;
  };
  const Case cases[] = {
      {{.gpus = 6, .tp = 4}, {128, 128, 1}, "--gpus 6"},
      {{.gpus = 8, .tp = 4, .prefill_gpus = 4, .decode_gpus = 2}, {128, 128, 1}, "--prefill-gpus"},
      {{}, {128, 128, 4, true}, "--concurrency or --max-throughput"},
      {{}, {128, 128, 0, false}, "--concurrency or --max-throughput"},
      {{}, {0, 128, 1}, "--isl"},
      {{.gpus = 8, .tp = 8, .ep = 8}, {128, 128, 1}, "--ep 8: the model has no routed experts"},
  };
  for (const Case& c : cases) {
    auto p = PredictServe(m, "fp8", c.l, c.load, ServeH100(), {});
    ASSERT_FALSE(p.ok()) << c.expect;
    EXPECT_NE(p.status().message().find(c.expect), std::string::npos) << p.status().message();
  }
  auto nvfp4 = PredictServe(m, "nvfp4", {}, {128, 128, 1}, ServeH100(), {});
  ASSERT_FALSE(nvfp4.ok());
  EXPECT_NE(nvfp4.status().message().find("no nvfp4 tensor rate"), std::string::npos);
}

TEST(ServeModelTest, ExpertParallelismAddsAllToAllAndTensorParallelismAllReduce) {
  const ServePrediction p =
      ServeRun(ServeModel("deepseek-v3_671b"), "fp8", {.gpus = 8, .tp = 8, .ep = 8},
               {1024, 1024, 0, true}, ServeH200());
  EXPECT_GT(ServeTermOf(p.decode, "ep_alltoall"), 0);
  EXPECT_GT(ServeTermOf(p.decode, "tp_allreduce"), 0);
  EXPECT_GT(p.batch_per_instance, 1);
}

// Every shipped model serves on 8 GPUs of a chip that holds it.
TEST(ServeModelTest, EveryShippedModelPredicts) {
  ServeSystem s = ServeH200();
  s.hbm_capacity_bytes = 180e9;
  for (const auto& f : std::filesystem::directory_iterator(kModels)) {
    auto m = LoadModelSpec(f.path().string());
    ASSERT_TRUE(m.ok()) << m.status().message();
    const ServeLayout l{.gpus = 8, .tp = 8, .ep = m->moe ? 8 : 1};
    auto p = PredictServe(*m, "fp8", l, {1024, 1024, 0, true}, s, {});
    ASSERT_TRUE(p.ok()) << m->name << ": " << p.status().message();
    EXPECT_GT(p->output_tokens_per_s_per_gpu, 0) << m->name;
    EXPECT_GT(p->ttft_s, 0) << m->name;
  }
}

}  // namespace
}  // namespace ys::predict
