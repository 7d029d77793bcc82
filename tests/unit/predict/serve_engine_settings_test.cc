// trtllm-bench's engine-settings heuristic as serve_engine_settings.h states it: the rounding
// bands, the caps, and a worked Llama 3.1 70B case.
#include "predict/serve_engine_settings.h"

#include <gtest/gtest.h>

#include "predict/model_spec.h"

namespace ys::predict {
namespace {

TEST(ServeEngineSettingsTest, RoundsUpInItsBands) {
  EXPECT_EQ(FinetuneBenchSettings(10, 128, 128, 1).max_batch_size, 64);      // floor of 64
  EXPECT_EQ(FinetuneBenchSettings(100, 128, 128, 1).max_batch_size, 128);    // to 32
  EXPECT_EQ(FinetuneBenchSettings(300, 128, 128, 1).max_batch_size, 384);    // to 128
  EXPECT_EQ(FinetuneBenchSettings(1100, 128, 128, 1).max_batch_size, 1280);  // to 256
  EXPECT_EQ(FinetuneBenchSettings(9000, 128, 128, 1).max_batch_size, 4096);  // capped at 4096
  EXPECT_EQ(FinetuneBenchSettings(9000, 128, 128, 2).max_batch_size, 2048);  // per stage
  // Tokens: raw batch × (1 + ISL/OSL), at least 2048, at most 32768.
  EXPECT_EQ(FinetuneBenchSettings(100, 128, 128, 1).max_num_tokens, 2048);
  EXPECT_EQ(FinetuneBenchSettings(3000, 128, 128, 1).max_num_tokens, 6144);
  EXPECT_EQ(FinetuneBenchSettings(3000, 2048, 128, 1).max_num_tokens, 32768);
}

TEST(ServeEngineSettingsTest, Llama70bOnOneB200) {
  auto spec = LoadModelSpec(std::string(YS_SOURCE_DIR) + "/models/llama3.1_70b.toml");
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  auto w = ComputeServeWork(*spec, "nvfp4");
  ASSERT_TRUE(w.ok()) << w.status().message();
  // 80 layers × 8 KV heads × 128 × 2 × 1 B = 163840 B per token; ~35 GB of weights in 180 GB.
  auto s = TrtllmBenchEngineSettings(*w, 180e9, 1, 1, 128, 2048);
  ASSERT_TRUE(s.ok()) << s.status().message();
  // Every parameter at 0.5 B (the heuristic leaves out nvfp4's scales and the bf16 head).
  const double engine = 0.5 * ((w->body_bytes + w->routed_bytes) / w->bytes_per_param +
                               (w->head_bytes + w->embed_bytes) / 2);
  const double expected = 0.95 * (180e9 - engine) / (163840.0 * 2176);
  EXPECT_NEAR(s->kv_cache_max_requests / expected, 1, 1e-9);
  EXPECT_GT(s->kv_cache_max_requests, 384);  // ~385: just over three bands of 128
  EXPECT_EQ(s->max_batch_size, 512);
  // TP 16 > 8 KV heads: each rank holds one head, twice the cache per token.
  auto wide = TrtllmBenchEngineSettings(*w, 180e9, 16, 1, 128, 2048);
  ASSERT_TRUE(wide.ok());
  EXPECT_NEAR(wide->kv_cache_max_requests /
                  (0.95 * (16 * 180e9 - w->WeightBytes()) / (2 * 163840.0 * 2176)),
              1, 0.02);
  // 35 GB of weights do not fit on a 24 GB GPU.
  EXPECT_FALSE(TrtllmBenchEngineSettings(*w, 24e9, 1, 1, 128, 128).ok());
  EXPECT_FALSE(TrtllmBenchEngineSettings(*w, 180e9, 0, 1, 128, 128).ok());
}

}  // namespace
}  // namespace ys::predict
