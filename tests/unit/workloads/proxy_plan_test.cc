// The proxy plan and the roofline against hand arithmetic: Llama 3.1 8B (dense, GQA) shapes and
// bytes, Qwen3 235B (MoE) all-to-all and TP message sizes, DeepSeek-V3 (MLA); the plan's GEMM
// FLOPs equal TrainingFlopsPerToken x tokens less the stated exclusions for every shipped model;
// the CPU scale-down; a model that cannot be shrunk is refused with the reason.
#include "workloads/proxy_plan.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "workloads/roofline.h"

namespace ys::workloads {
// A namespace of the file's own: its file-local names stay its own in a unity batch.
namespace proxy_plan_test {
namespace {

const std::string kModels = std::string(YS_SOURCE_DIR) + "/models";

predict::ModelSpec Load(const std::string& name) {
  auto spec = predict::LoadModelSpec(kModels + "/" + name + ".toml");
  EXPECT_TRUE(spec.ok()) << spec.status().message();
  return *spec;
}

const ProxyOp* Find(const std::vector<ProxyOp>& ops, const std::string& name) {
  for (const ProxyOp& op : ops)
    if (op.name == name) return &op;
  return nullptr;
}

// The shape of the named GEMM, or {-1, -1, -1, -1} when the plan has no such op.
GemmShape3 Shape(const std::vector<ProxyOp>& ops, const std::string& name) {
  const ProxyOp* op = Find(ops, name);
  return op ? op->gemm : GemmShape3{-1, -1, -1, -1};
}

int Count(const std::vector<ProxyOp>& ops, OpClass cls) {
  int n = 0;
  for (const ProxyOp& op : ops) n += op.cls == cls;
  return n;
}

TEST(ProxyPlanTest, Llama8bH100RecipeShapesAndBytes) {
  predict::ModelSpec spec = Load("llama3.1_8b");
  std::string why;
  auto par = CpuRecipe(spec, &why);
  ASSERT_TRUE(par.ok());
  EXPECT_EQ(par->chip, "h100");
  EXPECT_EQ(par->dtype, "bf16");
  EXPECT_NE(why.find("first h100 bf16"), std::string::npos) << why;
  auto plan = PlanProxyStep(spec, *par, {});
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  // CP 2: 8192 / 2 = 4096 tokens per micro batch; DP = 128 / 2 = 64; GA = 2048 / 64 = 32.
  EXPECT_EQ(plan->tokens, 4096);
  EXPECT_EQ(plan->micro_batches, 32);
  EXPECT_EQ(plan->layers.size(), 32u);
  const auto& ops = plan->micro_batch_ops;
  // QKV: 32 query heads + 2 x 8 kv heads, head dim 128.
  EXPECT_EQ(Shape(ops, "L0 attn.qkv fwd"), (GemmShape3{4096, 6144, 4096, 1}));
  EXPECT_EQ(Shape(ops, "L0 attn.scores fwd"), (GemmShape3{4096, 8192, 128, 32}));
  EXPECT_EQ(Shape(ops, "L0 attn.values fwd"), (GemmShape3{4096, 128, 8192, 32}));
  EXPECT_EQ(Shape(ops, "L0 attn.out fwd"), (GemmShape3{4096, 4096, 4096, 1}));
  EXPECT_EQ(Shape(ops, "L0 mlp.up fwd"), (GemmShape3{4096, 28672, 4096, 1}));
  EXPECT_EQ(Shape(ops, "L0 mlp.down fwd"), (GemmShape3{4096, 4096, 14336, 1}));
  EXPECT_EQ(Shape(ops, "L0 mlp.down dgrad"), (GemmShape3{4096, 14336, 4096, 1}));
  EXPECT_EQ(Shape(ops, "L0 mlp.down wgrad"), (GemmShape3{14336, 4096, 4096, 1}));
  // TP 1, EP 1: no activation collectives; 6 forward and 12 backward GEMMs per layer.
  EXPECT_EQ(Count(ops, OpClass::kTpComm), 0);
  EXPECT_EQ(Count(ops, OpClass::kMoeAllToAll), 0);
  EXPECT_EQ(Count(ops, OpClass::kGemmFwd), 32 * 6);
  EXPECT_EQ(Count(ops, OpClass::kGemmBwd), 32 * 12);
  // Parameters held: 4096 x (6144 + 4096 + 28672) + 14336 x 4096 = 218103808 per layer.
  EXPECT_DOUBLE_EQ(plan->weight_params, 32.0 * 218103808);
  ASSERT_EQ(plan->step_ops.size(), 2u);
  EXPECT_EQ(plan->step_ops[0].collective, PlanCollective::kReduceScatter);
  EXPECT_EQ(plan->step_ops[0].bytes, 32ull * 218103808 * 2);
  EXPECT_EQ(plan->step_ops[1].collective, PlanCollective::kAllGather);
  EXPECT_EQ(plan->step_ops[1].Key(), "dp all_gather 13958643712");
  // Backward of each forward GEMM is twice its FLOPs.
  double fwd = 0, bwd = 0;
  for (const ProxyOp& op : ops) (op.cls == OpClass::kGemmFwd ? fwd : bwd) += op.gemm.Flops();
  EXPECT_DOUBLE_EQ(bwd, 2 * fwd);
}

TEST(ProxyPlanTest, Qwen3MoeAllToAllAndTpSizes) {
  predict::ModelSpec spec = Load("qwen3_235b");
  auto par = CpuRecipe(spec, nullptr);
  ASSERT_TRUE(par.ok());
  ASSERT_EQ(par->tp, 2);
  ASSERT_EQ(par->ep, 32);
  auto plan = PlanProxyStep(spec, *par, {});
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  // 94 layers / PP 8 = 11.75 -> 12 MoE layers; GA = 16384 / (1 x 32) = 512.
  EXPECT_EQ(plan->layers.size(), 12u);
  EXPECT_EQ(plan->micro_batches, 512);
  const auto& ops = plan->micro_batch_ops;
  // Token copies per rank: 4096 / TP 2 x top-8 = 16384, x hidden 4096 x 2 bytes = 128 MiB.
  const ProxyOp* dispatch = Find(ops, "L0 moe.dispatch fwd");
  ASSERT_NE(dispatch, nullptr);
  EXPECT_EQ(dispatch->collective, PlanCollective::kAllToAll);
  EXPECT_EQ(dispatch->group, CommGroup::kEp);
  EXPECT_EQ(dispatch->bytes, 134217728u);
  ASSERT_NE(Find(ops, "L0 moe.combine bwd"), nullptr);
  EXPECT_EQ(Find(ops, "L0 moe.combine bwd")->bytes, 134217728u);
  // 128 / 32 = 4 local experts, each 16384 x 32 / 128 = 4096 tokens, expert FFN 1536.
  EXPECT_EQ(Shape(ops, "L0 moe.experts.up fwd"), (GemmShape3{4096, 3072, 4096, 4}));
  EXPECT_EQ(Shape(ops, "L0 moe.router fwd"), (GemmShape3{2048, 128, 4096, 1}));
  // TP with sequence parallelism around attention: the whole 4096 x 4096 bf16 activation.
  const ProxyOp* ag = Find(ops, "L0 attn.all_gather fwd");
  ASSERT_NE(ag, nullptr);
  EXPECT_EQ(ag->bytes, 33554432u);
  ASSERT_NE(Find(ops, "L0 attn.all_gather bwd"), nullptr);
  EXPECT_EQ(Find(ops, "L0 attn.all_gather bwd")->collective, PlanCollective::kReduceScatter);
  // Per layer: attention AG + RS, forward and backward; dispatch + combine, forward and backward.
  EXPECT_EQ(Count(ops, OpClass::kTpComm), 12 * 4);
  EXPECT_EQ(Count(ops, OpClass::kMoeAllToAll), 12 * 4);
  // QKV at TP 2: 32 query heads + 2 x 2 kv heads of 128.
  EXPECT_EQ(Shape(ops, "L0 attn.qkv fwd"), (GemmShape3{4096, 4608, 4096, 1}));
}

TEST(ProxyPlanTest, DeepSeekMlaProjections) {
  predict::ModelSpec spec = Load("deepseek-v3_671b");
  predict::Parallelism par{
      .chip = "h100", .dtype = "bf16", .gpus = 1, .micro_batch = 1, .global_batch = 1};
  auto plan = PlanProxyStep(spec, par, {.layers = 4});
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  // 4 layers in DeepSeek's mix (3 dense of 61): at least one dense layer is kept.
  EXPECT_EQ(plan->layers[0], LayerKind::kDense);
  EXPECT_EQ(plan->layers[3], LayerKind::kMoe);
  const auto& ops = plan->micro_batch_ops;
  EXPECT_EQ(Shape(ops, "L0 mla.q_down fwd"), (GemmShape3{4096, 1536, 7168, 1}));
  EXPECT_EQ(Shape(ops, "L0 mla.q_up fwd"), (GemmShape3{4096, 128 * 192, 1536, 1}));
  EXPECT_EQ(Shape(ops, "L0 mla.kv_down fwd"), (GemmShape3{4096, 512 + 64, 7168, 1}));
  EXPECT_EQ(Shape(ops, "L0 mla.kv_up fwd"), (GemmShape3{4096, 128 * 256, 512, 1}));
  EXPECT_EQ(Shape(ops, "L0 attn.scores fwd"), (GemmShape3{4096, 4096, 192, 128}));
  EXPECT_EQ(Shape(ops, "L0 attn.out fwd"), (GemmShape3{4096, 7168, 128 * 128, 1}));
  // EP 1: all 256 experts, 4096 x 8 / 256 = 128 tokens each; one shared expert of 2048.
  EXPECT_EQ(Shape(ops, "L3 moe.experts.up fwd"), (GemmShape3{128, 4096, 7168, 256}));
  EXPECT_EQ(Shape(ops, "L3 moe.shared.up fwd"), (GemmShape3{4096, 4096, 7168, 1}));
}

// Σ plan GEMM FLOPs per token = TrainingFlopsPerToken − the output head (6 x hidden x vocab) −
// Mamba's scan, with TP = CP = EP = 1 and every layer (Nemotron 3: MoE layers beside the Mamba
// and attention ones, Super's experts at their latent width).
TEST(ProxyPlanTest, GemmFlopsAgreeWithModelFlopsLessExclusions) {
  for (const char* name : {"llama3.1_8b", "llama3.1_70b", "llama3.1_405b", "qwen3_235b",
                           "gpt_oss_120b", "deepseek-v3_671b", "nemotron-h_56b",
                           "nemotron3_nano_30b_a3b", "nemotron3_super_120b_a12b"}) {
    SCOPED_TRACE(name);
    predict::ModelSpec spec = Load(name);
    predict::Parallelism par{
        .chip = "h100", .dtype = "bf16", .gpus = 1, .micro_batch = 1, .global_batch = 1};
    int all = spec.hybrid ? spec.hybrid->mamba_layers + spec.hybrid->attention_layers +
                                spec.hybrid->mlp_layers + spec.hybrid->moe_layers
                          : spec.shape.layers;
    auto plan = PlanProxyStep(spec, par, {.layers = all});
    ASSERT_TRUE(plan.ok()) << plan.status().message();
    auto per_token = predict::TrainingFlopsPerToken(spec);
    ASSERT_TRUE(per_token.ok());
    double h = spec.shape.hidden_size, seq = spec.shape.seq_length;
    double expected = *per_token - 6.0 * h * *spec.shape.vocab_size;
    if (spec.hybrid) {
      const predict::HybridShape& y = *spec.hybrid;
      expected -= 6.0 * y.mamba_layers * predict::MambaScanPerToken(y);
    }
    EXPECT_NEAR(plan->StepGemmFlops() / seq / expected, 1.0, 1e-9);
  }
}

TEST(ProxyPlanTest, CpuScaleDownIsStatedAndShrinksShapes) {
  predict::ModelSpec spec = Load("llama3.1_8b");
  auto par = CpuRecipe(spec, nullptr);
  ASSERT_TRUE(par.ok());
  EXPECT_EQ(CpuScaleFactor(spec, *par), 16);  // hidden 4096 / 256
  predict::ModelSpec big = Load("llama3.1_405b");
  auto big_par = CpuRecipe(big, nullptr);
  EXPECT_EQ(CpuScaleFactor(big, *big_par), 16);  // 128 heads / TP 8 keeps one head per rank
  auto plan =
      PlanProxyStep(spec, *par, {.scale = 16, .layers = 2, .micro_batches = 1, .dtype_bytes = 4});
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->hidden, 256);
  EXPECT_EQ(plan->seq, 512);
  EXPECT_EQ(plan->tokens, 256);  // CP 2
  EXPECT_EQ(plan->heads, 2);
  EXPECT_EQ(plan->kv_heads, 1);  // 8 / 16 rounds to at least one
  EXPECT_EQ(Shape(plan->micro_batch_ops, "L1 attn.qkv fwd"), (GemmShape3{256, 512, 256, 1}));
  EXPECT_EQ(plan->step_ops[0].bytes, static_cast<uint64_t>(plan->weight_params) * 4);
  bool stated = false;
  for (const std::string& n : plan->notes)
    stated |= n.find("scaled down by 1/16") != std::string::npos;
  EXPECT_TRUE(stated);
}

TEST(ProxyPlanTest, ModelThatCannotShrinkIsRefusedWithReason) {
  predict::ModelSpec spec = Load("deepseek-v3_671b");
  predict::Parallelism par{
      .chip = "h100", .dtype = "bf16", .gpus = 1, .micro_batch = 1, .global_batch = 1};
  // Sequence 4096 / 256 = 16 tokens x top-8 = 128 copies for 256 experts: no whole token each.
  auto plan = PlanProxyStep(spec, par, {.scale = 256, .layers = 4});
  ASSERT_FALSE(plan.ok());
  EXPECT_NE(plan.status().message().find("cannot be shrunk"), std::string::npos)
      << plan.status().message();
  predict::Parallelism bad = par;
  bad.tp = 3;  // 128 heads do not divide by 3
  EXPECT_FALSE(PlanProxyStep(spec, bad, {}).ok());
}

TEST(RooflineTest, SerialSumAndOverlappedBound) {
  predict::ModelSpec spec = Load("qwen3_235b");
  auto par = CpuRecipe(spec, nullptr);
  auto plan = PlanProxyStep(spec, *par, {.scale = 16, .layers = 1, .micro_batches = 2});
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  OpTimes times;
  int gemms = 0, comms = 0;
  for (const auto* list : {&plan->micro_batch_ops, &plan->step_ops}) {
    for (const ProxyOp& op : *list) {
      times.seconds[op.Key()] = op.is_gemm ? 0.001 : 0.002;
      int repeat = list == &plan->micro_batch_ops ? 2 : 1;
      (op.is_gemm ? gemms : comms) += repeat;
    }
  }
  auto r = PredictStep(*plan, times);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_DOUBLE_EQ(r->compute_s, 0.001 * gemms);
  EXPECT_DOUBLE_EQ(r->comm_s, 0.002 * comms);
  EXPECT_DOUBLE_EQ(r->serial_s, r->compute_s + r->comm_s);
  EXPECT_DOUBLE_EQ(r->overlapped_s, std::max(r->compute_s, r->comm_s));
  EXPECT_DOUBLE_EQ(r->gemm_flops, plan->StepGemmFlops());
  int classes_count = 0;
  for (const ClassPrediction& c : r->classes) classes_count += c.count;
  EXPECT_EQ(classes_count, gemms + comms);
  EXPECT_NE(r->assumption.find("no overlap"), std::string::npos);

  times.seconds.erase(plan->step_ops[0].Key());
  auto missing = PredictStep(*plan, times);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("dp.grad_reduce_scatter"), std::string::npos);

  auto gap = PredictionGap(1.2, 1.0);
  ASSERT_TRUE(gap.ok());
  EXPECT_NEAR(*gap, 0.2, 1e-12);
  EXPECT_FALSE(PredictionGap(1.0, 0).ok());
}

}  // namespace
}  // namespace proxy_plan_test
}  // namespace ys::workloads
