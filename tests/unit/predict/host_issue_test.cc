// Host-bound execution of a step's modules outside CUDA graphs (host_issue.h): the op counts of
// each layer type, the wait they cost against the GPU time, and what the dispatcher's
// synchronisation exposes, by hand.
#include "predict/host_issue.h"

#include <gtest/gtest.h>

#include <optional>

#include "predict/step_model.h"

namespace ys::predict {
namespace {

const std::string kHostModels = std::string(YS_SOURCE_DIR) + "/models";

Recipe HostRecipe(const ModelSpec& spec, const Parallelism& p) {
  Recipe r;
  r.model = &spec;
  r.par = p;
  r.layers = spec.shape.layers;
  r.seq = spec.shape.seq_length;
  r.dtype = p.dtype;
  return r;
}

const Parallelism* EntryOf(const ModelSpec& spec, const std::string& chip, int gpus,
                           const std::string& release) {
  for (const Parallelism& p : spec.parallelism) {
    if (p.chip == chip && p.gpus == gpus && p.release == release && p.dtype == "bf16") return &p;
  }
  return nullptr;
}

// DeepSeek-V3's v25.05.05 recipe on 128 GB200 (the model file's entry); the spec lives as long as
// the test binary.
std::optional<Recipe> DeepSeekOnGb200() {
  static const auto spec = LoadModelSpec(kHostModels + "/deepseek-v3_671b.toml");
  if (!spec.ok()) return std::nullopt;
  const Parallelism* p = EntryOf(*spec, "gb200", 128, "v25.05.05");
  if (p == nullptr) return std::nullopt;
  return HostRecipe(*spec, *p);
}

// Forward ops of a recipe's attention, dense MLP and MoE blocks, and the MoE block's stretch up
// to its first expert GEMM.
struct ForwardOps {
  double attention, mlp, moe, stretch;
};
void ExpectForwardOps(const Recipe& r, const ForwardOps& want) {
  double stretch = 0;
  EXPECT_EQ(AttentionForwardOps(r), want.attention);
  EXPECT_EQ(DenseMlpForwardOps(r), want.mlp);
  EXPECT_EQ(MoeForwardOps(r, &stretch), want.moe);
  EXPECT_EQ(stretch, want.stretch);
}

// 1000 ops a micro-batch at 10 us: 10 ms of host time. 100 of them around a synchronisation are
// exposed (1 ms); the other 9 ms overlap the GPU's time and only their excess waits.
TEST(HostIssueTest, WaitIsTheExposedStretchPlusTheExcessOverTheGpu) {
  const HostOps ops{1000, 100};
  EXPECT_NEAR(HostBoundSeconds(ops, 10e-6, 5e-3), 1e-3 + 4e-3, 1e-15);
  EXPECT_NEAR(HostBoundSeconds(ops, 10e-6, 20e-3), 1e-3, 1e-15);
  const HostOps no_sync{1000, 0};
  EXPECT_NEAR(HostBoundSeconds(no_sync, 10e-6, 5e-3), 5e-3, 1e-15);
  EXPECT_EQ(HostBoundSeconds(no_sync, 10e-6, 20e-3), 0.0);
  EXPECT_EQ(HostBoundSeconds(ops, 0, 1e-3), 0.0);
}

// DeepSeek-V3 on 128 GB200 (v25.05.05: tp 2, ep 32, all-to-all, unfused attention, selective
// recompute, token drop). Forward, per layer:
//   MLA 21 + unfused core 4 + sequence-parallel comm 2 = 27;
//   dense MLP 5 + 2 = 7;
//   MoE: norm 1 + router 72 + preprocess 8 + permute 6 + sort 2 = 89 up to the first expert GEMM,
//        experts 2 × 8 local + 3 = 19, dispatch/combine 1, unsort 2 + unpermute 4, shared experts
//        4, bias-dropout-add 1, comm 2: 122.
// The model: 61 attention, 3 dense MLP and 58 MoE blocks: 61·27 + 3·7 + 58·122 = 8744 forward ops,
// × 3 with the backward, plus the recomputed unfused core 61 × 7: 26659; the slowest stage holds
// 16 of the 61 layers.
TEST(HostIssueTest, CountsDeepSeekV3OnGb200ByHand) {
  auto recipe = DeepSeekOnGb200();
  ASSERT_TRUE(recipe.has_value());
  Recipe r = *recipe;
  ExpectForwardOps(r, {27, 7, 122, 89});
  auto w = ComputeStepWork(r);
  ASSERT_TRUE(w.ok());
  HostOps ops = CountHostOps(r, *w);
  EXPECT_NEAR(ops.total, 16.0 / 61 * 26659, 1e-9);
  // Token drop padded to capacity: static splits, no synchronisation.
  EXPECT_EQ(ops.sync_exposed, 0.0);
  // Dropless, the dispatcher synchronises: the 89-op stretch of each of the stage's MoE layers.
  r.par.moe_token_drop = false;
  ops = CountHostOps(r, *w);
  EXPECT_NEAR(ops.sync_exposed, 16.0 / 61 * 58 * 89, 1e-9);
}

// DeepEP fuses the global permute into its dispatch and the preprocess into one layout kernel:
// 1 + 72 + 2 + 2 = 77 ops to the first expert GEMM, and it synchronises even with token drop.
// The v25.05.05 H100 entry runs the all-to-all dispatcher; DeepEP (later NeMo on H100) is set here.
TEST(HostIssueTest, DeepEpSynchronisesWithItsShorterStretch) {
  auto spec = LoadModelSpec(kHostModels + "/deepseek-v3_671b.toml");
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  const Parallelism* p = EntryOf(*spec, "h100", 512, "v25.05.05");
  ASSERT_NE(p, nullptr);
  Recipe r = HostRecipe(*spec, *p);
  r.par.moe_dispatcher = "deepep";
  double stretch = 0;
  MoeForwardOps(r, &stretch);
  EXPECT_EQ(stretch, 77);
  r.par.moe_token_drop = true;
  auto w = ComputeStepWork(r);
  ASSERT_TRUE(w.ok());
  EXPECT_NEAR(CountHostOps(r, *w).sync_exposed, StageLayers(r) / 61 * 58 * 77, 1e-9);
}

SystemRates HostH100(const Constants& c) {
  SystemRates rates;
  rates.chip = "h100";
  rates.peak_flops = {{"bf16", 989e12}, {"fp8", 1979e12}};
  rates.hbm_bytes_per_s = 3.35e12;
  SetReferenceLinks(rates, 450e9, 50e9, c);
  return rates;
}

// In the step: the wait of each micro-batch is paid m times and once more in each of the
// bubble's (pp − 1) / vp micro-batch slots; a dense recipe whose layers take longer on the GPU
// than the host needs to issue them does not wait at all. The v25.05.05 H100 entry drops tokens
// (no synchronisation); run dropless with DeepEP here, so that the dispatcher synchronises.
TEST(HostIssueTest, StepPaysTheWaitPerMicroBatchAndInTheBubble) {
  auto spec = LoadModelSpec(kHostModels + "/deepseek-v3_671b.toml");
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  const Parallelism* p = EntryOf(*spec, "h100", 512, "v25.05.05");
  ASSERT_NE(p, nullptr);
  Recipe r = HostRecipe(*spec, *p);
  r.par.moe_dispatcher = "deepep";
  r.par.moe_token_drop = false;
  Constants c;
  const SystemRates rates = HostH100(c);
  auto eager0 = PredictStep(r, rates, c);
  c.host_seconds_per_op = 18e-6;
  auto eager = PredictStep(r, rates, c);
  ASSERT_TRUE(eager0.ok() && eager.ok());
  EXPECT_EQ(eager0->host_s, 0.0);
  const double m = eager->micro_batches;
  auto w = ComputeStepWork(r);
  ASSERT_TRUE(w.ok());
  // GPU-bound beyond the synchronised stretch: the wait is the stretch alone.
  const double per_mb = CountHostOps(r, *w).sync_exposed * 18e-6;
  EXPECT_GT(per_mb, 0.0);
  EXPECT_NEAR(eager->host_s, m * per_mb, 1e-9 * eager->host_s);
  const double bubble_slots = (r.par.pp - 1.0) / r.Vp();
  EXPECT_NEAR(eager->step_time_s - eager0->step_time_s, (m + bubble_slots) * per_mb,
              1e-9 * eager->step_time_s);

  auto dense = LoadModelSpec(kHostModels + "/llama3.1_70b.toml");
  ASSERT_TRUE(dense.ok()) << dense.status().message();
  const Parallelism* dp = nullptr;
  for (const Parallelism& q : dense->parallelism) {
    if (q.chip == "h100" && q.dtype == "bf16") dp = &q;
  }
  ASSERT_NE(dp, nullptr);
  auto gpu_bound = PredictStep(HostRecipe(*dense, *dp), rates, c);
  ASSERT_TRUE(gpu_bound.ok());
  EXPECT_EQ(gpu_bound->host_s, 0.0);
}

// CUDA graphs: a captured module is one launch. The same DeepSeek-V3 recipe with attention, the
// router and the dispatcher's preprocess captured (the Megatron-Bridge presets' transformer_engine
// scopes): MLA 27 -> 1 per layer; the MoE stretch up to the first expert GEMM 89 -> norm 1 +
// router 1 + preprocess 1 + permute 6 + sort 2 = 11, the block 122 -> 44. A whole MoE block
// captured leaves no synchronisation, and a full-iteration graph issues the step at once.
TEST(HostIssueTest, CapturedModulesAreOneLaunchEach) {
  auto recipe = DeepSeekOnGb200();
  ASSERT_TRUE(recipe.has_value());
  Recipe r = *recipe;
  r.par.moe_token_drop = false;  // dropless: the dispatcher synchronises
  r.par.cuda_graphs = "attn+moe_router+moe_preprocess";
  ExpectForwardOps(r, {1, 7, 44, 11});
  double stretch = 0;
  auto w = ComputeStepWork(r);
  ASSERT_TRUE(w.ok()) << w.status().message();
  const HostOps graphed = CountHostOps(r, *w);
  r.par.cuda_graphs = "none";
  const HostOps eager = CountHostOps(r, *w);
  EXPECT_LT(graphed.total, eager.total / 3);
  EXPECT_LT(graphed.sync_exposed, eager.sync_exposed / 5);
  r.par.cuda_graphs = "moe";
  EXPECT_EQ(MoeForwardOps(r, &stretch), 1);
  EXPECT_EQ(stretch, 0);
  r.par.cuda_graphs = "full_iteration";
  const HostOps whole = CountHostOps(r, *w);
  EXPECT_EQ(whole.total, 1);
  EXPECT_EQ(whole.sync_exposed, 0);
  EXPECT_TRUE(CapturesScope("attn+mamba", "mamba"));
  EXPECT_FALSE(CapturesScope("attn+mamba", "moe"));
  EXPECT_FALSE(CheckCudaGraphs("attn+bogus").empty());
  EXPECT_TRUE(CheckCudaGraphs("moe_router+moe_preprocess").empty());
}

// A recompute of modules runs their forward ops again in the backward: the whole MoE block's, one
// norm before each attention, MLP and MoE block, MLA's six up-projection ops, the dense MLP's.
TEST(HostIssueTest, RecomputedModulesIssueTheirForwardOpsAgain) {
  auto recipe = DeepSeekOnGb200();
  ASSERT_TRUE(recipe.has_value());
  Recipe r = *recipe;
  auto w = ComputeStepWork(r);
  ASSERT_TRUE(w.ok()) << w.status().message();
  const double moe = MoeForwardOps(r, nullptr);
  r.par.recompute = "moe+layernorm";
  EXPECT_EQ(RecomputedModuleOps(r, *w, moe),
            w->moe_layers * moe + w->attention_layers + w->mlp_layers + w->moe_layers);
  r.par.recompute = "mla_up_proj+mlp";
  EXPECT_EQ(RecomputedModuleOps(r, *w, moe),
            w->attention_layers * 6.0 + w->mlp_layers * DenseMlpForwardOps(r));
  r.par.recompute = "none";
  const double eager = CountHostOps(r, *w).total;
  r.par.recompute = "moe";
  EXPECT_GT(CountHostOps(r, *w).total, eager);
}

}  // namespace
}  // namespace ys::predict
