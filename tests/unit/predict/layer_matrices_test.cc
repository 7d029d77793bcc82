// The weight matrices of a model's blocks, written once for the parameter count, the predictor and
// the proxies: the shapes of the model cards, the tensor-parallel shares (columns, rows, replicated
// key/value heads, unsplit MLA down-projections and router), and the missing figure named.
#include "predict/layer_matrices.h"

#include <gtest/gtest.h>

#include <string>

#include "predict/step_flops.h"
#include "testing/text_edit.h"
#include "testing/tiny_model.h"

namespace ys::predict {
namespace {

ModelSpec Load(const std::string& name) {
  auto spec = LoadModelSpec(ys::testing::kModels + "/" + name + ".toml");
  EXPECT_TRUE(spec.ok()) << spec.status().message();
  return spec.ok() ? *spec : ModelSpec{};
}

const LayerMatrix* Named(const std::vector<LayerMatrix>& ms, std::string_view name) {
  for (const LayerMatrix& m : ms)
    if (m.name == name) return &m;
  return nullptr;
}

TEST(LayerMatricesTest, Llama70bLayerHoldsTheModelCardsMatrices) {
  const ModelSpec spec = Load("llama3.1_70b");
  auto attn = BlockMatrices(spec, Block::kAttention);
  auto mlp = BlockMatrices(spec, Block::kMlp);
  ASSERT_TRUE(attn.ok() && mlp.ok());
  // hidden 8192, 64 query heads and 8 key/value heads of 128, SwiGLU 28672: 855,638,016 weights a
  // layer (80 of them and the two 128256 x 8192 embeddings make the card's 70.6 B).
  EXPECT_DOUBLE_EQ(BlockParams(*attn, 0), 8192.0 * (64 + 16) * 128 + 8192.0 * 8192);
  EXPECT_DOUBLE_EQ(BlockParams(*mlp, 0), 3.0 * 8192 * 28672);
  EXPECT_DOUBLE_EQ(BlockParams(*attn, 0) + BlockParams(*mlp, 0), 855638016.0);
  ASSERT_EQ(attn->size(), 2U);
  EXPECT_EQ((*attn)[0].name, "attn.qkv");
  EXPECT_FALSE((*attn)[0].after_core);
  EXPECT_TRUE((*attn)[1].after_core);  // the output projection follows the scores and values
}

TEST(LayerMatricesTest, TensorParallelSplitsColumnsAndRowsAndReplicatesFewKvHeads) {
  const ModelSpec spec = Load("llama3.1_70b");
  auto attn = BlockMatrices(spec, Block::kAttention, 16);
  auto mlp = BlockMatrices(spec, Block::kMlp, 16);
  ASSERT_TRUE(attn.ok() && mlp.ok());
  // 64 / 16 = 4 query heads a rank; 8 key/value heads over 16 ranks: one each, replicated.
  EXPECT_DOUBLE_EQ(Named(*attn, "attn.qkv")->out_rank, (4 + 2 * 1) * 128.0);
  EXPECT_DOUBLE_EQ(Named(*attn, "attn.qkv")->in_rank, 8192.0);
  EXPECT_DOUBLE_EQ(Named(*attn, "attn.out")->in_rank, 4 * 128.0);
  EXPECT_DOUBLE_EQ(Named(*mlp, "mlp.up")->out_rank, 2 * 28672.0 / 16);  // column-parallel
  EXPECT_DOUBLE_EQ(Named(*mlp, "mlp.down")->in_rank, 28672.0 / 16);     // row-parallel
  EXPECT_DOUBLE_EQ(Named(*mlp, "mlp.down")->out, 8192.0);
  // The whole matrices do not depend on the ranks.
  EXPECT_DOUBLE_EQ(BlockParams(*attn, 0),
                   BlockParams(*BlockMatrices(spec, Block::kAttention, 1), 0));
}

TEST(LayerMatricesTest, MlaDownProjectionsAndTheRouterAreNotSplit) {
  const ModelSpec spec = Load("deepseek-v3_671b");
  auto attn = BlockMatrices(spec, Block::kAttention, 8);
  auto moe = BlockMatrices(spec, Block::kMoe, 8);
  ASSERT_TRUE(attn.ok() && moe.ok());
  // DeepSeek-V3's MLA: 187,105,280 attention weights a layer.
  EXPECT_DOUBLE_EQ(BlockParams(*attn, 0), 187105280.0);
  const LayerMatrix* q_down = Named(*attn, "mla.q_down");
  ASSERT_NE(q_down, nullptr);
  EXPECT_DOUBLE_EQ(q_down->out_rank, q_down->out);
  EXPECT_DOUBLE_EQ(Named(*attn, "mla.q_up")->out_rank, 16 * 192.0);  // 128 heads / 8 ranks
  const LayerMatrix* router = Named(*moe, "moe.router");
  ASSERT_NE(router, nullptr);
  EXPECT_EQ(router->rows, Rows::kShard);
  EXPECT_EQ(router->group, "router");
  EXPECT_DOUBLE_EQ(router->out_rank, 256.0);
  // Routed experts are one expert's matrices, counted top_k (active) or all (total) times.
  const LayerMatrix* up = Named(*moe, "moe.experts.up");
  ASSERT_NE(up, nullptr);
  EXPECT_EQ(up->rows, Rows::kRouted);
  const double expert = 3.0 * 7168 * 2048;
  EXPECT_DOUBLE_EQ(BlockParams(*moe, 8) - BlockParams(*moe, 0), 8 * expert);
}

TEST(LayerMatricesTest, TheParameterCountIsTheSumOfTheBlocks) {
  const ModelSpec spec = Load("llama3.1_8b");
  auto count = CountParameters(spec);
  ASSERT_TRUE(count.ok());
  const double layer = BlockParams(*BlockMatrices(spec, Block::kAttention), 0) +
                       BlockParams(*BlockMatrices(spec, Block::kMlp), 0);
  EXPECT_DOUBLE_EQ(count->total, 32 * layer + 2.0 * 128256 * 4096);
}

TEST(LayerMatricesTest, AMissingFigureIsNamedNotGuessed) {
  auto spec = ParseModelSpec(
      ys::testing::Replace(ys::testing::kGood, "ffn_hidden_size = 256\n", ""), "tiny.toml");
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  auto mlp = BlockMatrices(*spec, Block::kMlp);
  ASSERT_FALSE(mlp.ok());
  EXPECT_NE(mlp.status().message().find("tiny.toml: [shape] ffn_hidden_size"), std::string::npos);
  auto moe = BlockMatrices(*spec, Block::kMoe);
  ASSERT_FALSE(moe.ok());
  EXPECT_NE(moe.status().message().find("without [moe]"), std::string::npos);
  auto mamba = BlockMatrices(*spec, Block::kMamba);
  EXPECT_FALSE(mamba.ok());
}

TEST(LayerMatricesTest, LayerKindsAreTheirBlocks) {
  EXPECT_EQ(BlocksOf(LayerKind::kDense), (std::vector<Block>{Block::kAttention, Block::kMlp}));
  EXPECT_EQ(BlocksOf(LayerKind::kMoe), (std::vector<Block>{Block::kAttention, Block::kMoe}));
  EXPECT_EQ(BlocksOf(LayerKind::kMoeMlp), (std::vector<Block>{Block::kMoe}));
  EXPECT_STREQ(LayerKindName(LayerKind::kMoeMlp), "moe_mlp");
}

}  // namespace
}  // namespace ys::predict
