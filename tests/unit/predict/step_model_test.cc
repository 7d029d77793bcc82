// The step-time model on literal recipes: the breakdown adds up to the total, each term follows
// its formula (bubble, links, overlap windows), and the FLOPs counted reproduce the published MFU
// of the rows whose tables give one.
#include "predict/step_model.h"

#include <gtest/gtest.h>

#include <cmath>

#include "predict/fit.h"
#include "predict/scaling.h"
#include "predict/step_flops.h"

namespace ys::predict {
namespace {

const std::string kModels = std::string(YS_SOURCE_DIR) + "/models";

SystemRates H100Like(const Constants& c) {
  SystemRates r;
  r.chip = "h100";
  r.peak_flops = {{"bf16", 989e12}, {"fp8", 1979e12}};
  r.hbm_bytes_per_s = 3.35e12;
  r.nvlink_domain = 8;
  SetReferenceLinks(r, 450e9, 50e9, c);
  return r;
}

Recipe RecipeOf(const ModelSpec& spec, Parallelism p, const std::string& dtype) {
  Recipe r;
  r.model = &spec;
  r.par = std::move(p);
  r.layers = spec.shape.layers;
  r.seq = spec.shape.seq_length;
  r.dtype = dtype;
  return r;
}

Parallelism Par(int gpus, int tp, int pp, int cp, int ep, int vp, int gbs);

// DeepSeek-V3's H100 layout at 512 GPUs: tp 2, pp 8, ep 64 with etp 1, global batch 4096.
Parallelism DeepSeekOn512(int vp) {
  Parallelism p = Par(512, 2, 8, 1, 64, vp, 4096);
  p.etp = 1;
  return p;
}

Parallelism Par(int gpus, int tp, int pp, int cp, int ep, int vp, int gbs) {
  Parallelism p;
  p.chip = "h100";
  p.gpus = gpus;
  p.tp = tp;
  p.pp = pp;
  p.cp = cp;
  p.ep = ep;
  p.vp = vp;
  p.micro_batch = 1;
  p.global_batch = gbs;
  return p;
}

TEST(StepModelTest, BreakdownAddsUpToTheTotalForEveryShippedRecipe) {
  auto specs = LoadModelSpecs(kModels);
  ASSERT_TRUE(specs.ok()) << specs.status().message();
  Constants c;
  const SystemRates rates = H100Like(c);
  int predicted = 0;
  for (const ModelSpec& s : *specs) {
    for (const Parallelism& p : s.parallelism) {
      if (p.dtype == "nvfp4") continue;  // no nvfp4 peak on this system
      auto step = PredictStep(RecipeOf(s, p, p.dtype), rates, c);
      ASSERT_TRUE(step.ok()) << s.name << " " << p.chip << "/" << p.gpus << ": "
                             << step.status().message();
      const double sum =
          step->compute_s + step->ExposedComm() + step->host_s + step->bubble_s + step->optimizer_s;
      EXPECT_NEAR(sum / step->step_time_s, 1.0, 1e-12) << s.name;
      EXPECT_NEAR(step->compute_s, step->gemm_s + step->attention_s + step->elementwise_s,
                  1e-9 * step->compute_s);
      EXPECT_GT(step->mfu, 0.0);
      EXPECT_LT(step->mfu, 1.0) << s.name;
      for (const CommTerm& t : step->comm) {
        EXPECT_LE(t.exposed_s, t.raw_s * (1 + 1e-12)) << s.name << " " << t.name;
        EXPECT_GE(t.exposed_s, 0.0);
      }
      ++predicted;
    }
  }
  EXPECT_GT(predicted, 100);
}

TEST(StepModelTest, BubbleFollowsPipelineVirtualStagesAndMicroBatches) {
  auto spec = LoadModelSpec(kModels + "/llama3.1_70b.toml");
  ASSERT_TRUE(spec.ok());
  Constants c;
  const SystemRates rates = H100Like(c);
  auto flat = PredictStep(RecipeOf(*spec, Par(64, 8, 1, 1, 1, 1, 64), "bf16"), rates, c);
  ASSERT_TRUE(flat.ok()) << flat.status().message();
  EXPECT_EQ(flat->bubble_s, 0.0);
  auto piped = PredictStep(RecipeOf(*spec, Par(64, 8, 4, 1, 1, 1, 64), "bf16"), rates, c);
  auto interleaved = PredictStep(RecipeOf(*spec, Par(64, 8, 4, 1, 1, 5, 64), "bf16"), rates, c);
  ASSERT_TRUE(piped.ok() && interleaved.ok());
  // (pp − 1)/vp of one micro-batch's time: 5 virtual stages cut it about fivefold (the
  // micro-batch's send/recv grows with vp, so not exactly).
  const double mb =
      (piped->step_time_s - piped->bubble_s - piped->optimizer_s) / piped->micro_batches;
  EXPECT_NEAR(piped->bubble_s / mb, 3.0, 0.05);
  EXPECT_NEAR(piped->bubble_s / interleaved->bubble_s, 5.0, 0.3);
}

// Layers that do not divide over the stages: the slowest stage holds the ceiling, and the step's
// per-layer work grows by that stage's share over the even one.
TEST(StepModelTest, UnevenStagesCostTheirLargestStage) {
  auto spec = LoadModelSpec(kModels + "/deepseek-v3_671b.toml");
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  Recipe r = RecipeOf(*spec, Par(512, 1, 4, 1, 8, 1, 512), "bf16");
  EXPECT_EQ(StageLayers(r), 16.0);  // 61 over 4: 15, 16, 16, 14
  r.par.pp = 8;
  EXPECT_EQ(StageLayers(r), 8.0);
  r.par.pp = 4;
  r.par.vp = 4;
  EXPECT_EQ(StageLayers(r), 16.0);  // 4 chunks of 4
  auto even_spec = LoadModelSpec(kModels + "/llama3.1_70b.toml");
  ASSERT_TRUE(even_spec.ok());
  Recipe even = RecipeOf(*even_spec, Par(64, 8, 4, 1, 1, 5, 64), "bf16");
  EXPECT_EQ(StageLayers(even), 20.0);  // 80 over 4 × 5: even
  // The same model cut into 60 layers (even over 4) and 61 (uneven): the attention core, which
  // scales with the layers only, grows by 16/15 per layer's share, not by 61/60.
  Constants c;
  const SystemRates rates = H100Like(c);
  r.par.vp.reset();
  r.layers = 60;
  auto sixty = PredictStep(r, rates, c);
  r.layers = 61;
  auto sixty_one = PredictStep(r, rates, c);
  ASSERT_TRUE(sixty.ok() && sixty_one.ok());
  EXPECT_NEAR(sixty_one->attention_s / sixty->attention_s, 16.0 / 15.0, 1e-9);
}

// DeepEP sends a token over the network once per other NVLink domain holding one of its experts:
// with experts spread evenly and chosen uniformly, (n − 1)·(1 − C(E − E/n, k)/C(E, k)); with
// group-limited routing on one group per domain, (n − 1)·topk_groups/groups.
TEST(StepModelTest, DeepEpSendsATokenOncePerRemoteDomain) {
  MoeShape moe;
  moe.experts = 256;
  moe.top_k = 8;
  double none = 1;
  for (int i = 0; i < 8; ++i) none *= (224.0 - i) / (256.0 - i);
  EXPECT_NEAR(RemoteNodesPerToken(moe, 8), 7 * (1 - none), 1e-12);
  EXPECT_EQ(RemoteNodesPerToken(moe, 1), 0.0);
  moe.top_k = 1;
  EXPECT_NEAR(RemoteNodesPerToken(moe, 8), 7.0 / 8, 1e-12);  // the expert's domain, if remote
  moe.top_k = 8;
  moe.groups = 8;
  moe.topk_groups = 4;
  EXPECT_NEAR(RemoteNodesPerToken(moe, 8), 3.5, 1e-12);
  // On a recipe whose expert group crosses the network (ep 64 over 8-GPU domains) DeepEP moves
  // fewer bytes than the all-to-all dispatcher (3.5 copies of a token to other domains against
  // the 8 × 7/8 of the dispatcher's copies that leave the domain); inside one domain both move
  // the same. The fixed time per peer, the same for both, is left out to compare the bytes.
  auto spec = LoadModelSpec(kModels + "/deepseek-v3_671b.toml");
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  Constants c;
  c.alltoall_seconds_per_peer = 0;
  const SystemRates rates = H100Like(c);
  auto ep_bytes = [&](int ep, const char* dispatcher) {
    Parallelism p = Par(512, 2, 8, 1, ep, 1, 4096);
    p.etp = 1;
    p.moe_dispatcher = dispatcher;
    auto step = PredictStep(RecipeOf(*spec, p, "bf16"), rates, c);
    EXPECT_TRUE(step.ok()) << step.status().message();
    for (const CommTerm& t : step->comm) {
      if (t.name == "ep") return std::pair{t.link, t.raw_s};
    }
    return std::pair{std::string(), 0.0};
  };
  auto [a2a_link, a2a_s] = ep_bytes(64, "alltoall");
  auto [deepep_link, deepep_s] = ep_bytes(64, "deepep");
  EXPECT_EQ(a2a_link, "network");
  EXPECT_EQ(deepep_link, "network");
  EXPECT_NEAR(deepep_s / a2a_s, 3.5 / (8 * 7.0 / 8), 1e-9);
  EXPECT_EQ(ep_bytes(8, "deepep"), ep_bytes(8, "alltoall"));
}

// An unfused attention core: every kernel at the slower of its FLOPs and its score traffic. With
// 1e9 score elements (2 GB a pass), 1 TB/s and 1 PFLOP/s: a pass takes 2 ms; a GEMM over head dim
// 128 takes 0.256 ms of FLOPs (memory-bound: 2 ms), over head dim 2048 4.096 ms (compute-bound).
TEST(StepModelTest, UnfusedAttentionPaysForTheScoresInHbm) {
  const double e = 1e9, hbm = 1e12, flops = 1e15, pass = 2e-3;
  // Forward: Q·Kᵀ, softmax (2 passes), P·V; backward: 4 GEMMs and the softmax backward (3 passes).
  EXPECT_NEAR(UnfusedAttentionSeconds(e, 128, 128, 1, flops, hbm), 4 * pass + 7 * pass, 1e-12);
  EXPECT_NEAR(UnfusedAttentionSeconds(e, 128, 128, 2, flops, hbm), 8 * pass + 7 * pass, 1e-12);
  const double big = 2 * e * 2048 / flops;
  EXPECT_NEAR(UnfusedAttentionSeconds(e, 2048, 128, 1, flops, hbm),
              (big + 2 * pass + pass) + (2 * pass + 3 * pass + 2 * big), 1e-12);
  // On a recipe: only the attention core changes; it costs more than the fused kernel (the
  // scores' traffic and the masked half computed), the GEMMs and communication stay as they were.
  auto spec = LoadModelSpec(kModels + "/deepseek-v3_671b.toml");
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  Constants c;
  const SystemRates rates = H100Like(c);
  Parallelism p = DeepSeekOn512(1);
  p.recompute = "selective";
  auto fused = PredictStep(RecipeOf(*spec, p, "bf16"), rates, c);
  p.attention_backend = "unfused";
  auto unfused = PredictStep(RecipeOf(*spec, p, "bf16"), rates, c);
  ASSERT_TRUE(fused.ok() && unfused.ok());
  EXPECT_DOUBLE_EQ(unfused->gemm_s, fused->gemm_s);
  EXPECT_DOUBLE_EQ(unfused->ExposedComm(), fused->ExposedComm());
  EXPECT_GT(unfused->attention_s, 2 * fused->attention_s);
  EXPECT_NEAR(unfused->step_time_s,
              unfused->compute_s + unfused->ExposedComm() + unfused->host_s + unfused->bubble_s +
                  unfused->optimizer_s,
              1e-9 * unfused->step_time_s);
  // By hand: per GPU and micro-batch a stage of 8 layers holds 4096 × 4096 scores of 64 heads
  // each; 128 micro-batches of them a step (dp 32, global batch 4096).
  const double elements = 4096.0 * 4096 * 64 * 8;
  const double per_mb =
      UnfusedAttentionSeconds(elements, 192, 128, 2, 989e12 * c.gemm_efficiency_bf16, 3.35e12);
  EXPECT_NEAR(unfused->attention_s, 128 * per_mb, 1e-9 * unfused->attention_s);
}

// recompute mla_up_proj runs the forward of MLA's up-projections again: 2 FLOPs a weight of
// the query (1536 × 128 heads × 192) and key/value (512 × 128 × (128 + 128)) up-projections, per
// token and attention layer; the attention core is not recomputed. A model without MLA refuses it.
TEST(StepModelTest, MlaUpProjectionRecomputeAddsItsForward) {
  auto spec = LoadModelSpec(kModels + "/deepseek-v3_671b.toml");
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  Parallelism p = DeepSeekOn512(1);
  auto none = ComputeStepWork(RecipeOf(*spec, p, "bf16"));
  p.recompute = "mla_up_proj";
  auto up = ComputeStepWork(RecipeOf(*spec, p, "bf16"));
  ASSERT_TRUE(none.ok() && up.ok());
  ASSERT_EQ(none->gemms[0].name, "attention");
  const double per_layer = 2.0 * 128 * (1536.0 * 192 + 512.0 * 256);
  EXPECT_NEAR(up->gemms[0].flops_per_token - none->gemms[0].flops_per_token, per_layer * 61,
              1e-6 * per_layer);
  EXPECT_DOUBLE_EQ(up->attention_flops_per_token, none->attention_flops_per_token);
  auto llama = LoadModelSpec(kModels + "/llama3.1_8b.toml");
  ASSERT_TRUE(llama.ok());
  Parallelism q = Par(8, 1, 1, 1, 1, 1, 128);
  q.recompute = "mla_up_proj";
  EXPECT_FALSE(ComputeStepWork(RecipeOf(*llama, q, "bf16")).ok());
}

// Megatron's recompute_modules, joined by "+": "moe" runs the MoE block's forward again (its
// experts' GEMMs, 8 FLOPs a weight instead of 6, and its dispatch and combine: 6 all-to-alls a
// layer instead of 4); "mlp" the dense MLP layers'; the attention projections stay at 6;
// "selective" is the attention core alone. An unknown module is refused with what was expected.
TEST(StepModelTest, RecomputedModulesAddTheirForward) {
  auto spec = LoadModelSpec(kModels + "/deepseek-v3_671b.toml");
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  Constants c;
  const SystemRates rates = H100Like(c);
  Parallelism p = DeepSeekOn512(1);
  auto none = ComputeStepWork(RecipeOf(*spec, p, "bf16"));
  auto none_step = PredictStep(RecipeOf(*spec, p, "bf16"), rates, c);
  p.recompute = "moe+mlp+layernorm";
  auto both = ComputeStepWork(RecipeOf(*spec, p, "bf16"));
  auto both_step = PredictStep(RecipeOf(*spec, p, "bf16"), rates, c);
  ASSERT_TRUE(none.ok() && both.ok() && none_step.ok() && both_step.ok());
  std::map<std::string, double> before, after;
  for (const GemmGroup& g : none->gemms) before[g.name] = g.flops_per_token;
  for (const GemmGroup& g : both->gemms) after[g.name] = g.flops_per_token;
  EXPECT_DOUBLE_EQ(after["experts"], before["experts"] * 8 / 6);
  EXPECT_DOUBLE_EQ(after["shared_experts"], before["shared_experts"] * 8 / 6);
  EXPECT_DOUBLE_EQ(after["mlp"], before["mlp"] * 8 / 6);
  EXPECT_DOUBLE_EQ(after["attention"], before["attention"]);
  EXPECT_DOUBLE_EQ(both->attention_flops_per_token, none->attention_flops_per_token);
  auto ep_raw = [](const StepPrediction& s) {
    for (const CommTerm& t : s.comm)
      if (t.name == "ep") return t.raw_s;
    return 0.0;
  };
  EXPECT_GT(ep_raw(*none_step), 0);
  EXPECT_NEAR(ep_raw(*both_step), ep_raw(*none_step) * 6 / 4, 1e-9 * ep_raw(*both_step));
  EXPECT_TRUE(RecomputesModule("full", "moe"));
  EXPECT_TRUE(RecomputesModule("selective", "core_attn"));
  EXPECT_FALSE(RecomputesModule("selective", "moe"));
  EXPECT_FALSE(RecomputesModule("moe_act+layernorm", "moe"));
  EXPECT_TRUE(CheckRecompute("moe+layernorm+core_attn+moe_act").empty());
  EXPECT_NE(CheckRecompute("moe+attention").find("core_attn"), std::string::npos);
}

TEST(StepModelTest, LinksFollowTheNvlinkDomain) {
  auto spec = LoadModelSpec(kModels + "/llama3.1_405b.toml");
  ASSERT_TRUE(spec.ok());
  Constants c;
  SystemRates rates = H100Like(c);
  auto step = PredictStep(RecipeOf(*spec, Par(512, 8, 8, 2, 1, 8, 256), "bf16"), rates, c);
  ASSERT_TRUE(step.ok()) << step.status().message();
  std::map<std::string, std::string> link;
  for (const CommTerm& t : step->comm) link[t.name] = t.link;
  EXPECT_EQ(link["tp"], "nvlink");   // 8 ranks on one HGX board
  EXPECT_EQ(link["cp"], "network");  // tp·cp = 16 > 8
  EXPECT_EQ(link["dp"], "network");
  // A 72-GPU domain taken whole (one node of 72): a group of 16 would straddle two domains (72 is
  // no multiple of 16): the network; a group of 8 fits (72 = 9 × 8).
  rates.nvlink_domain = 72;
  rates.gpus_per_node = 72;
  step = PredictStep(RecipeOf(*spec, Par(504, 8, 7, 1, 1, 1, 63), "bf16"), rates, c);
  ASSERT_TRUE(step.ok()) << step.status().message();
  for (const CommTerm& t : step->comm) link[t.name] = t.link;
  EXPECT_EQ(link["tp"], "nvlink");
  step = PredictStep(RecipeOf(*spec, Par(576, 8, 4, 2, 1, 8, 288), "bf16"), rates, c);
  ASSERT_TRUE(step.ok()) << step.status().message();
  for (const CommTerm& t : step->comm) link[t.name] = t.link;
  EXPECT_EQ(link["cp"], "network");
  // An NVL72 rack of 18 nodes of 4 GPUs: a 512-GPU job holds segments of 16 nodes (64 GPUs), so
  // the group of 16 lies inside one (the recipes' --segment), and so does the data-parallel group
  // (tp·cp·dp = 64); the pipeline spans the job: the network.
  rates.gpus_per_node = 4;
  step = PredictStep(RecipeOf(*spec, Par(512, 8, 8, 2, 1, 8, 256), "bf16"), rates, c);
  ASSERT_TRUE(step.ok());
  for (const CommTerm& t : step->comm) link[t.name] = t.link;
  EXPECT_EQ(link["tp"], "nvlink");
  EXPECT_EQ(link["cp"], "nvlink");
  EXPECT_EQ(link["dp"], "nvlink");
  EXPECT_EQ(link["pp"], "network");
}

// A slower network shows in the data-parallel term only once it no longer fits under one
// micro-batch's compute: the overlap window is a window, not a share.
// The data-parallel terms of a prediction: their time before overlap and what the step waits for.
struct DpSeconds {
  double raw = 0, exposed = 0;
};
DpSeconds DpOf(const StepPrediction& p) {
  DpSeconds s;
  for (const CommTerm& t : p.comm) {
    if (t.name != "dp") continue;
    s.raw += t.raw_s;
    s.exposed += t.exposed_s;
  }
  return s;
}

TEST(StepModelTest, DataParallelCommIsHiddenUntilItOutgrowsItsWindow) {
  auto spec = LoadModelSpec(kModels + "/llama3.1_8b.toml");
  ASSERT_TRUE(spec.ok());
  Constants c;
  SystemRates rates = H100Like(c);
  const Recipe r = RecipeOf(*spec, Par(64, 1, 1, 1, 1, 1, 256), "bf16");  // 4 micro-batches
  auto fast = PredictStep(r, rates, c);
  ASSERT_TRUE(fast.ok());
  rates.network_busbw["reduce_scatter"] = 1e9;
  rates.network_busbw["all_gather"] = 1e9;
  auto slow = PredictStep(r, rates, c);
  ASSERT_TRUE(slow.ok());
  EXPECT_EQ(DpOf(*fast).exposed, 0.0);
  EXPECT_GT(DpOf(*slow).exposed, 0.5 * DpOf(*slow).raw);
  EXPECT_NEAR(slow->step_time_s - fast->step_time_s, DpOf(*slow).exposed, 1e-9);
}

// The last pipeline stage computes the logits too: with an even split it is the stage the step
// waits for; where the split leaves it fewer layers (126 over 8 stages of 2 x 8 virtual layers:
// 14 on the last) the fullest stage is, unless the logits outweigh the difference.
TEST(StepModelTest, TheLastStageCarriesTheLogits) {
  auto spec = LoadModelSpec(kModels + "/llama3.1_405b.toml");
  ASSERT_TRUE(spec.ok());
  Recipe even = RecipeOf(*spec, Par(512, 8, 8, 1, 1, 1, 256), "bf16");
  even.layers = 128;
  EXPECT_EQ(LastStageLayers(even), 16);
  CriticalStage s = SlowestStage(even, 1.0, 0.1);
  EXPECT_TRUE(s.logits);
  EXPECT_DOUBLE_EQ(s.layer_factor, 1.0);
  Recipe uneven = RecipeOf(*spec, Par(512, 8, 8, 1, 1, 8, 256), "bf16");  // 126 layers
  EXPECT_EQ(LastStageLayers(uneven), 14);
  s = SlowestStage(uneven, 1.0, 0.1);  // 14 layers + 1.6 layers' worth of logits < 16
  EXPECT_FALSE(s.logits);
  EXPECT_DOUBLE_EQ(s.layer_factor, 16 / 15.75);
  s = SlowestStage(uneven, 1.0, 0.2);  // 14 layers + 3.15 layers' worth of logits > 16
  EXPECT_TRUE(s.logits);
  EXPECT_DOUBLE_EQ(s.layer_factor, 14 / 15.75);
  Recipe single = RecipeOf(*spec, Par(512, 8, 1, 1, 1, 1, 256), "bf16");
  s = SlowestStage(single, 1.0, 0.1);
  EXPECT_TRUE(s.logits);
  EXPECT_DOUBLE_EQ(s.layer_factor, 1.0);
}

// A data-parallel ring that leaves the NVLink domain runs its network part at the NICs of the
// group's members in a domain together (one NIC per GPU), at most at the NVLink rate; a measured
// (or --set) network figure is the cluster's own and is not scaled.
TEST(StepModelTest, DataParallelRingAcrossDomainsRunsAtItsMembersNics) {
  auto spec = LoadModelSpec(kModels + "/llama3.1_8b.toml");
  ASSERT_TRUE(spec.ok());
  Constants c;
  SystemRates rates = H100Like(c);
  const double nic = rates.network_busbw["all_gather"], nvlink = rates.nvlink_busbw["all_gather"];
  auto dp_busbw = [&](const SystemRates& s, int gpus, int tp) {
    auto step =
        PredictStep(RecipeOf(*spec, Par(gpus, tp, 1, 1, 1, 1, gpus / tp * 4), "bf16"), s, c);
    EXPECT_TRUE(step.ok()) << step.status().message();
    for (const CommTerm& t : step->comm) {
      if (t.name == "dp" && t.collective == "all_gather") {
        EXPECT_EQ(t.link, "network");
        return t.busbw;
      }
    }
    ADD_FAILURE() << "no dp all_gather term";
    return 0.0;
  };
  EXPECT_DOUBLE_EQ(dp_busbw(rates, 64, 8), nic);      // one member per 8-GPU node
  EXPECT_DOUBLE_EQ(dp_busbw(rates, 64, 4), 2 * nic);  // two
  EXPECT_DOUBLE_EQ(dp_busbw(rates, 64, 2), 4 * nic);  // four
  EXPECT_DOUBLE_EQ(dp_busbw(rates, 64, 1), std::min(8 * nic, nvlink));
  // NVL72 racks of 4-GPU nodes: a 128-GPU job holds two segments of 64; a tp-2 data-parallel group
  // has 32 members in each, whose NICs together outrun NVLink.
  SystemRates rack = rates;
  rack.nvlink_domain = 72;
  rack.gpus_per_node = 4;
  EXPECT_DOUBLE_EQ(dp_busbw(rack, 128, 2), nvlink);
  SystemRates measured = rates;
  measured.origin["coll.all_gather.busbw"] = "run.json";
  EXPECT_DOUBLE_EQ(dp_busbw(measured, 64, 2), nic);
}

TEST(StepModelTest, BadRecipesAreInvalidNotCrashes) {
  auto spec = LoadModelSpec(kModels + "/llama3.1_8b.toml");
  ASSERT_TRUE(spec.ok());
  Constants c;
  const SystemRates rates = H100Like(c);
  EXPECT_FALSE(PredictStep(RecipeOf(*spec, Par(10, 4, 1, 1, 1, 1, 64), "bf16"), rates, c).ok());
  EXPECT_FALSE(PredictStep(RecipeOf(*spec, Par(8, 1, 1, 1, 1, 1, 12), "bf16"), rates, c).ok());
  EXPECT_FALSE(PredictStep(RecipeOf(*spec, Par(8, 1, 1, 3, 1, 1, 8), "bf16"), rates, c)
                   .ok());  // cp 3: 8 GPUs
  auto no_peak = PredictStep(RecipeOf(*spec, Par(8, 1, 1, 1, 1, 1, 8), "nvfp4"), rates, c);
  ASSERT_FALSE(no_peak.ok());
  EXPECT_NE(no_peak.status().message().find("nvfp4"), std::string::npos);
}

// A recipe that does not overlap its data-parallel communication (dp_overlap = false) waits for
// all of it, where the same recipe overlapped hides it under its window.
TEST(StepModelTest, DataParallelCommWithoutOverlapIsExposedInFull) {
  auto spec = LoadModelSpec(kModels + "/llama3.1_8b.toml");
  ASSERT_TRUE(spec.ok());
  Constants c;
  const SystemRates rates = H100Like(c);
  Parallelism par = Par(64, 1, 1, 1, 1, 1, 256);
  auto overlapped = PredictStep(RecipeOf(*spec, par, "bf16"), rates, c);
  par.dp_overlap = false;
  auto serial = PredictStep(RecipeOf(*spec, par, "bf16"), rates, c);
  ASSERT_TRUE(overlapped.ok() && serial.ok());
  const double raw = DpOf(*serial).raw;
  EXPECT_GT(raw, 0);
  EXPECT_EQ(DpOf(*overlapped).exposed, 0.0);
  EXPECT_NEAR(DpOf(*serial).exposed, raw, 1e-12 * raw);
  EXPECT_NEAR(serial->step_time_s - overlapped->step_time_s, raw, 1e-9);
}

// The all-to-all overlapped with computation (moe_a2a_overlap): hand arithmetic of the formula,
// then its place in a step.
TEST(StepModelTest, OverlappedAllToAllHidesUnderThePartnerPassesComputation) {
  // 128 micro-batches, pp 8, vp 4: the unpaired passes are 2·7 + 3·8 = 38 of 512.
  const double u = 38.0 / 512;
  // a2a 6 s, compute 6 s a micro-batch: the forward's 3 s under the backward's 4 s (hidden), the
  // backward's 3 s under the forward's 2 s (1 s exposed).
  EXPECT_NEAR(OverlappedAllToAllSeconds(6, 6, 128, 8, 4), 128 * (u * 6 + (1 - u) * 1.0), 1e-9);
  // Without interleaving pp − 1 of m are unpaired; without a pipeline one of m.
  EXPECT_NEAR(OverlappedAllToAllSeconds(6, 6, 128, 8, 1), 128 * (7.0 / 128 * 6 + 121.0 / 128),
              1e-9);
  EXPECT_NEAR(OverlappedAllToAllSeconds(6, 6, 16, 1, 1), 16 * (6.0 / 16 + 15.0 / 16), 1e-9);
  // Computation long enough hides everything but the unpaired passes; no computation hides none.
  EXPECT_NEAR(OverlappedAllToAllSeconds(2, 100, 128, 8, 4), 128 * u * 2, 1e-9);
  EXPECT_NEAR(OverlappedAllToAllSeconds(2, 0, 128, 8, 4), 128 * 2.0, 1e-9);
  // More warmup passes than the step has: all exposed.
  EXPECT_NEAR(OverlappedAllToAllSeconds(2, 100, 4, 8, 4), 4 * 2.0, 1e-9);

  // In a step: DeepSeek-V3 on 512 H100 (ep 64 across eight domains). Only the ep term changes;
  // its exposure is the formula's, at most its raw time, and the step shrinks by the difference.
  auto spec = LoadModelSpec(kModels + "/deepseek-v3_671b.toml");
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  Constants c;
  const SystemRates rates = H100Like(c);
  Parallelism p = DeepSeekOn512(4);
  p.moe_token_drop = true;
  auto plain = PredictStep(RecipeOf(*spec, p, "bf16"), rates, c);
  p.moe_a2a_overlap = true;
  auto over = PredictStep(RecipeOf(*spec, p, "bf16"), rates, c);
  ASSERT_TRUE(plain.ok() && over.ok());
  auto ep = [](const StepPrediction& s) {
    for (const CommTerm& t : s.comm) {
      if (t.name == "ep") return t;
    }
    return CommTerm{};
  };
  const CommTerm a = ep(*plain), b = ep(*over);
  EXPECT_DOUBLE_EQ(a.raw_s, b.raw_s);
  EXPECT_DOUBLE_EQ(a.exposed_s, a.raw_s);
  const double m = over->micro_batches;
  EXPECT_NEAR(b.exposed_s, OverlappedAllToAllSeconds(b.raw_s / m, over->compute_s / m, m, 8, 4),
              1e-9 * b.raw_s);
  EXPECT_LT(b.exposed_s, a.exposed_s);
  EXPECT_DOUBLE_EQ(over->compute_s, plain->compute_s);
  const double saved = a.exposed_s - b.exposed_s;
  // The bubble, (pp − 1)/vp micro-batch times, shrinks with the micro-batch's time too.
  EXPECT_NEAR(plain->step_time_s - over->step_time_s, saved * (1 + 7.0 / 4 / m), 1e-6 * saved);
}

// Megatron-Core lays a stage's experts out as etp × ep × expert-dp; a layout that does not fit
// (Qwen3-235B at tp 2, ep 64 on 64 GPUs, etp defaulting to tp) is refused, not predicted.
TEST(StepModelTest, AnExpertLayoutThatDoesNotFitTheStageIsInvalid) {
  auto spec = LoadModelSpec(kModels + "/deepseek-v3_671b.toml");
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  Constants c;
  const SystemRates rates = H100Like(c);
  Parallelism p = Par(64, 2, 1, 1, 64, 1, 1024);
  auto bad = PredictStep(RecipeOf(*spec, p, "bf16"), rates, c);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidInput);
  EXPECT_NE(bad.status().message().find("etp·ep = 2·64 does not divide the 64 GPUs of one "
                                        "pipeline stage"),
            std::string::npos)
      << bad.status().message();
  p.etp = 1;
  EXPECT_TRUE(PredictStep(RecipeOf(*spec, p, "bf16"), rates, c).ok());
  p.pp = 2;  // 32 GPUs a stage: ep 64 no longer fits even at etp 1
  EXPECT_FALSE(PredictStep(RecipeOf(*spec, p, "bf16"), rates, c).ok());
}
TEST(FitTest, ErrorStatisticsUseNearestRank) {
  auto s = SummariseErrors({0.01, -0.02, 0.03, -0.04, 0.05, 0.06, -0.07, 0.08, 0.09, -0.10});
  EXPECT_EQ(s.rows, 10);
  EXPECT_NEAR(s.median_abs, 0.055, 1e-12);
  EXPECT_NEAR(s.p90_abs, 0.09, 1e-12);
  EXPECT_EQ(SummariseErrors({}).rows, 0);
}

// Rows predicted with known constants are fitted back to within 1% from a start away from them.
TEST(FitTest, FitsRowsPredictedWithKnownConstants) {
  auto spec = LoadModelSpec(kModels + "/llama3.1_70b.toml");
  ASSERT_TRUE(spec.ok());
  Constants truth;
  truth.gemm_efficiency_bf16 = 0.55;
  std::vector<FitRow> rows;
  for (int gpus : {64, 128, 256}) {
    Recipe r = RecipeOf(*spec, Par(gpus, 4, 4, 2, 1, 5, gpus * 2), "bf16");
    auto published = PredictStep(r, H100Like(truth), truth);
    ASSERT_TRUE(published.ok());
    rows.push_back({"70b", published->step_time_s, [r](const Constants& c) -> Result<double> {
                      auto p = PredictStep(r, H100Like(c), c);
                      if (!p.ok()) return p.status();
                      return p->step_time_s;
                    }});
  }
  Constants start = truth;
  start.gemm_efficiency_bf16 = 0.8;
  auto fitted = FitConstants(rows, start);
  ASSERT_TRUE(fitted.ok()) << fitted.status().message();
  double worst = 0;
  for (const FitRow& row : rows) {
    worst = std::max(worst, std::fabs(*row.predict(*fitted) / row.published_s - 1));
  }
  EXPECT_LT(worst, 0.01);
}

TEST(FitTest, HeldOutSplitIsByWorkloadId) {
  EXPECT_EQ(HeldOut("llama3.1_8b_bf16"), HeldOut("llama3.1_8b_bf16"));
  int held = 0;
  for (const char* id : {"llama3.1_8b_bf16", "llama3.1_8b_fp8", "llama3.1_70b_bf16",
                         "llama3.1_70b_fp8", "grok1_314b_bf16", "deepseek-v3_671b_bf16"}) {
    held += HeldOut(id);
  }
  EXPECT_GT(held, 0);
  EXPECT_LT(held, 6);
}

// LatentMoE moves the routed tokens at latent_size, not the hidden size, and the multi-token-
// prediction modules add, on the last stage, their input projection, one layer of the model's kind
// and the output head again: with pp 1 the step's GEMM time grows by that work at the GEMM rate.
TEST(StepModelTest, LatentExpertsDispatchNarrowTokensAndMtpAddsTheHeadAgain) {
  auto spec = LoadModelSpec(kModels + "/nemotron3_super_120b_a12b.toml");
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  Recipe r = RecipeOf(*spec, Par(64, 1, 1, 1, 64, 1, 512), "fp8");
  r.par.etp = 1;
  auto w = ComputeStepWork(r);
  ASSERT_TRUE(w.ok()) << w.status().message();
  const MoeShape& m = *spec->moe;
  EXPECT_DOUBLE_EQ(w->ep_message_bytes,
                   static_cast<double>(r.par.micro_batch) * r.seq * m.top_k * m.latent_size * 2);
  for (const GemmGroup& g : w->gemms) EXPECT_NE(g.name, "mtp");
  r.par.mtp_layers = 2;
  auto with_mtp = ComputeStepWork(r);
  ASSERT_TRUE(with_mtp.ok());
  const GemmGroup *mtp = nullptr, *heads = nullptr;
  for (const GemmGroup& g : with_mtp->gemms) {
    mtp = g.name == "mtp" ? &g : mtp;
    heads = g.name == "mtp_heads" ? &g : heads;
  }
  ASSERT_NE(mtp, nullptr);
  ASSERT_NE(heads, nullptr);
  const double h = spec->shape.hidden_size, vocab = *spec->shape.vocab_size;
  auto attn = AttentionOf(*spec);
  ASSERT_TRUE(attn.ok());
  const double layer = attn->params + m.top_k * 2.0 * m.latent_size * m.expert_ffn_hidden_size +
                       2.0 * h * *m.shared_expert_ffn_hidden_size + h * m.experts +
                       2.0 * h * m.latent_size;
  EXPECT_NEAR(mtp->flops_per_token, 2 * 6 * (2 * h * h + layer), 1e-9 * mtp->flops_per_token);
  EXPECT_NEAR(heads->flops_per_token, 2 * 6 * vocab * h, 1e-9 * heads->flops_per_token);
  Constants c;
  const SystemRates rates = H100Like(c);
  auto without = PredictStep(RecipeOf(*spec, r.par, "fp8"), rates, c);
  r.par.mtp_layers = 0;
  auto base = PredictStep(r, rates, c);
  ASSERT_TRUE(without.ok() && base.ok());
  EXPECT_GT(without->gemm_s, base->gemm_s * 1.05);
}

}  // namespace
}  // namespace ys::predict

namespace ys::predict {
namespace {

// The predicted weak-scaling curve: the recipe's parallelism and micro-batches kept, data
// parallel grown; on the network the DP collectives stay hidden until they outgrow their window,
// so the efficiency stays near 1 (a little above it at most: each GPU's optimizer shard shrinks).
TEST(PredictedScalingTest, WeakScalingKeepsTheRecipeAndGrowsDataParallel) {
  auto spec = LoadModelSpec(std::string(YS_SOURCE_DIR) + "/models/llama3.1_70b.toml");
  ASSERT_TRUE(spec.ok());
  predict::Constants c;
  predict::SystemRates rates;
  rates.chip = "h100";
  rates.peak_flops = {{"bf16", 989e12}};
  rates.hbm_bytes_per_s = 3.35e12;
  predict::SetReferenceLinks(rates, 450e9, 50e9, c);
  predict::Recipe r;
  r.model = &*spec;
  r.par.chip = "h100";
  r.par.gpus = 64;
  r.par.tp = 4;
  r.par.pp = 4;
  r.par.cp = 2;
  r.par.vp = 5;
  r.par.micro_batch = 1;
  r.par.global_batch = 128;
  r.layers = 80;
  r.seq = 8192;
  r.dtype = "bf16";
  auto curve = PredictWeakScaling(r, rates, c, {8, 16, 32, 64, 128, 256, 512, 1024, 2048});
  ASSERT_TRUE(curve.ok()) << curve.status().message();
  ASSERT_EQ(curve->points.size(), 7u);  // 8 and 16 GPUs cannot hold tp·pp·cp = 32
  EXPECT_EQ(curve->skipped.size(), 2u);
  EXPECT_EQ(curve->points.front().gpus, 32);
  for (const auto& p : curve->points) {
    EXPECT_GT(p.efficiency, 0.8) << p.gpus;
    EXPECT_LT(p.efficiency, 1.01) << p.gpus;
  }
  EXPECT_FALSE(PredictWeakScaling(r, rates, c, {8, 16}).ok());
}

}  // namespace
}  // namespace ys::predict
