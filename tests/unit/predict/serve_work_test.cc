// The per-token work of serving: weight bytes by dtype, the KV cache of plain, grouped-query and
// latent (MLA) attention, the Mamba state of a hybrid stack, and the experts a batch touches.
#include "predict/serve_work.h"

#include <gtest/gtest.h>

#include <string>

namespace ys::predict {
namespace {

ModelSpec WorkModel(const std::string& name) {
  auto spec = LoadModelSpec(std::string(YS_SOURCE_DIR) + "/models/" + name + ".toml");
  EXPECT_TRUE(spec.ok()) << spec.status().message();
  return spec.ok() ? *spec : ModelSpec{};
}

TEST(ServeWorkTest, BytesPerParameterByDtype) {
  EXPECT_DOUBLE_EQ(BytesPerParam("bf16"), 2);
  EXPECT_DOUBLE_EQ(BytesPerParam("fp8"), 1);
  EXPECT_DOUBLE_EQ(BytesPerParam("nvfp4"), 0.5625);  // 4 bits and one fp8 scale per 16 values
  EXPECT_DOUBLE_EQ(BytesPerParam("int3"), 0);
  EXPECT_DOUBLE_EQ(KvBytesPerValue("bf16"), 2);
  EXPECT_DOUBLE_EQ(KvBytesPerValue("nvfp4"), 1);
  EXPECT_FALSE(ComputeServeWork(WorkModel("llama3.1_8b"), "int3").ok());
}

TEST(ServeWorkTest, Llama8bFp8HoldsItsBodyInFp8AndTheEmbeddingsInBf16) {
  auto w = ComputeServeWork(WorkModel("llama3.1_8b"), "fp8");
  ASSERT_TRUE(w.ok()) << w.status().message();
  const double embed = 128256.0 * 4096;
  EXPECT_DOUBLE_EQ(w->head_bytes, 2 * embed);
  EXPECT_DOUBLE_EQ(w->embed_bytes, 2 * embed);
  EXPECT_NEAR(w->body_bytes + w->head_bytes, 8.03e9, 0.02e9);   // read every step
  EXPECT_DOUBLE_EQ(w->kv_bytes_per_token, 2.0 * 8 * 128 * 32);  // K and V, 8 heads of 128, fp8
  EXPECT_EQ(w->allreduce_points, 64);
  EXPECT_DOUBLE_EQ(w->routed_bytes, 0);
}

TEST(ServeWorkTest, MlaCachesTheLatentNotTheHeads) {
  auto w = ComputeServeWork(WorkModel("deepseek-v3_671b"), "fp8");
  ASSERT_TRUE(w.ok()) << w.status().message();
  EXPECT_DOUBLE_EQ(w->kv_bytes_per_token, (512.0 + 64) * 61);
  EXPECT_FALSE(w->kv_split_by_tp);
  EXPECT_EQ(w->experts, 256);
  EXPECT_EQ(w->top_k, 8);
  EXPECT_EQ(w->moe_layers, 58);
  // 671B in all; the routed experts hold most of it.
  EXPECT_NEAR(w->WeightBytes() / 1e9, 671, 15);
  EXPECT_GT(w->routed_bytes, 10 * w->body_bytes);
}

TEST(ServeWorkTest, HybridKeepsMambaStateAndKvOnlyForAttentionLayers) {
  const ModelSpec m = WorkModel("nemotron-h_56b");
  auto w = ComputeServeWork(m, "bf16");
  ASSERT_TRUE(w.ok()) << w.status().message();
  EXPECT_GT(w->state_bytes_per_sequence, 0);
  EXPECT_GT(w->scan_flops_per_token, 0);
  const double per_layer =
      2.0 * w->kv_heads * 2 *
      (m.shape.head_dim ? *m.shape.head_dim : m.shape.hidden_size / *m.shape.attention_heads);
  EXPECT_DOUBLE_EQ(w->kv_bytes_per_token, per_layer * m.hybrid->attention_layers);
  EXPECT_EQ(w->allreduce_points, m.shape.layers);
}

TEST(ServeWorkTest, ExpectedDistinctExpertsRunsFromTopKToAll) {
  EXPECT_NEAR(ExpectedDistinctExperts(256, 8, 1), 8, 1e-9);
  EXPECT_NEAR(ExpectedDistinctExperts(256, 8, 1e5), 256, 1e-6);
  EXPECT_LT(ExpectedDistinctExperts(256, 8, 4), 32);
  EXPECT_GT(ExpectedDistinctExperts(256, 8, 4), ExpectedDistinctExperts(256, 8, 2));
  EXPECT_DOUBLE_EQ(ExpectedDistinctExperts(0, 0, 10), 0);
}

}  // namespace
}  // namespace ys::predict
