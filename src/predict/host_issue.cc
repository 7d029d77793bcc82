#include "predict/host_issue.h"

#include <algorithm>

#include "predict/step_model.h"

namespace ys::predict {
namespace {

// Forward framework ops of each block, counted along Megatron-Core's Transformer Engine layer
// specs (eager PyTorch, one op = one call that reaches the CUDA driver or the caching allocator).
// With sequence parallelism (tp > 1) each attention, MLP and MoE block adds an all-gather and a
// reduce-scatter.
constexpr double kTpCommOps = 2;
// Self-attention (GQA): LayerNormLinear qkv (norm, GEMM), fused RoPE of q and k, the fused
// attention kernel with its two layout copies, the output projection, the fused bias-dropout-add.
constexpr double kAttentionOps = 9;
// MLA: input norm, q down-projection, q norm, q up-projection, kv down-projection, kv norm, kv
// up-projection, four splits/contiguous copies of the no-RoPE and RoPE parts, RoPE of q and k,
// three concatenations (q, k, k_pe expanded over the heads), the fused attention kernel with its
// two layout copies, the output projection, the bias-dropout-add.
constexpr double kMlaOps = 21;
// The unfused core (UnfusedDotProductAttention) in place of the fused kernel: baddbmm (Q·Kᵀ),
// the scaled masked softmax, bmm (P·V) and two reshapes to contiguous layouts: 5 for 1.
constexpr double kUnfusedExtraOps = 4;
// The attention core alone (recompute "selective" runs it again): fused 3 (kernel and layout
// copies), unfused 7.
constexpr double kCoreOps = 3;
// MLA up-projection recompute: the q and kv up-projections and their splits.
constexpr double kMlaUpProjOps = 6;
// Gated MLP: LayerNormLinear fc1 (norm, GEMM), the SwiGLU, fc2, the bias-dropout-add.
constexpr double kMlpOps = 5;
// Mamba-2 layer: norm and in-projection, the causal conv1d, the chunked SSD scan's five kernels,
// the gated norm, the out-projection, the bias-dropout-add.
constexpr double kMambaOps = 11;
// MoE router (the score function, group-limited top-k, the auxiliary loss and its counts):
// 72 kernels unfused (Megatron-LM docs/discussions/deepseek-v3-gb200-optimization, 2.1.4: "reducing
// the total number of kernels in the router part from 72 to 31" with --moe-router-fusion, which
// the recipes modelled predate).
constexpr double kRouterOps = 72;
// All-to-all dispatcher: preprocess (tokens per expert, their sums over the group, the splits
// copied to the host), the unfused global permute, the sort of chunks by local expert before the
// experts and after them, the unpermute (zeros, scatter-add, the probabilities' product).
constexpr double kAlltoallPreprocessOps = 8, kAlltoallPermuteOps = 6, kSortChunksOps = 2,
                 kUnpermuteOps = 4;
// DeepEP (flex dispatcher): a fused preprocess (the layout kernel) and the local permute only; the
// global permute is inside the dispatch kernel (the write-up, 2.2.1: router and preprocess down
// to 17 kernels with the fused router).
constexpr double kDeepepPreprocessOps = 2, kDeepepPermuteOps = 2;

// Shared experts: fc1, the activation, fc2 and their sum with the routed output.
constexpr double kSharedExpertOps = 4;
// An activation (SwiGLU) alone.
constexpr double kActivationOps = 1;

// A module captured in a CUDA graph (model_spec.h Parallelism::cuda_graphs) is one launch.
constexpr double kGraphLaunchOps = 1;

bool Captured(const Recipe& r, std::string_view scope) {
  return CapturesScope(r.par.cuda_graphs, scope);
}

}  // namespace

double RecomputedModuleOps(const Recipe& r, const StepWork& w, double moe_ops) {
  auto on = [&](std::string_view module) { return RecomputesModule(r.par.recompute, module); };
  double ops = 0;
  if (on("core_attn"))
    ops += w.attention_layers *
           (kCoreOps + (r.par.attention_backend == "unfused" ? kUnfusedExtraOps : 0));
  if (on("mla_up_proj") && r.model->mla) ops += w.attention_layers * kMlaUpProjOps;
  if (on("mlp")) ops += w.mlp_layers * DenseMlpForwardOps(r);
  if (on("moe")) {
    ops += w.moe_layers * moe_ops;
  } else {
    if (on("shared_experts") && r.model->moe && r.model->moe->shared_experts > 0)
      ops += w.moe_layers * kSharedExpertOps;
    if (on("moe_act")) ops += w.moe_layers * kActivationOps;
  }
  // The norms before attention and before the MLP or MoE block (Mamba's own norm is inside its
  // layer count).
  if (on("layernorm")) ops += w.attention_layers + w.mlp_layers + w.moe_layers;
  return ops;
}

double AttentionForwardOps(const Recipe& r) {
  const Parallelism& p = r.par;
  if (Captured(r, "attn")) return kGraphLaunchOps;
  double ops = r.model->mla ? kMlaOps : kAttentionOps;
  if (p.attention_backend == "unfused") ops += kUnfusedExtraOps;
  if (p.tp > 1) ops += kTpCommOps;
  return ops;
}

double DenseMlpForwardOps(const Recipe& r) {
  if (Captured(r, "mlp")) return kGraphLaunchOps;
  return kMlpOps + (r.par.tp > 1 ? kTpCommOps : 0);
}

double MambaForwardOps(const Recipe& r) {
  if (Captured(r, "mamba")) return kGraphLaunchOps;
  return kMambaOps + (r.par.tp > 1 ? kTpCommOps : 0);
}

double MoeForwardOps(const Recipe& r, double* sync_stretch) {
  const MoeShape& moe = *r.model->moe;
  const bool deepep = r.par.moe_dispatcher == "deepep";
  if (Captured(r, "moe")) {
    // The whole block in one graph: no host synchronisation can sit inside it.
    if (sync_stretch != nullptr) *sync_stretch = 0;
    return kGraphLaunchOps;
  }
  const double preprocess = Captured(r, "moe_preprocess")
                                ? kGraphLaunchOps
                                : (deepep ? kDeepepPreprocessOps : kAlltoallPreprocessOps);
  const double permute = deepep ? kDeepepPermuteOps : kAlltoallPermuteOps + kSortChunksOps;
  const double router = Captured(r, "moe_router") ? kGraphLaunchOps : kRouterOps;
  // Norm, router, preprocess (the host synchronisation), permute, dispatch.
  const double stretch = 1 + router + preprocess + permute;
  if (sync_stretch != nullptr) *sync_stretch = stretch;
  // Transformer Engine's GroupedLinear runs one GEMM per local expert (fc1 and fc2), with the
  // activation between and the split and concatenation of the tokens.
  const double local_experts = std::max(1, moe.experts / std::max(1, r.par.ep));
  const double experts = 2 * local_experts + 3;
  const double unpermute = (deepep ? kDeepepPermuteOps : kSortChunksOps) + kUnpermuteOps;
  // Dispatch and combine all-to-all, the shared experts (fc1, activation, fc2) and their sum, the
  // bias-dropout-add.
  const double shared = moe.shared_experts > 0 ? kSharedExpertOps : 0;
  return stretch + experts + 1 + unpermute + shared + 1 + (r.par.tp > 1 ? kTpCommOps : 0);
}

HostOps CountHostOps(const Recipe& r, const StepWork& w) {
  const Parallelism& p = r.par;
  // Layers of the slowest stage, each type in the model's proportion.
  const double stage = StageLayers(r) / r.layers;
  double sync_stretch = 0;
  const double moe = w.moe_layers > 0 ? MoeForwardOps(r, &sync_stretch) : 0;
  const double forward = w.attention_layers * AttentionForwardOps(r) +
                         w.mlp_layers * DenseMlpForwardOps(r) +
                         w.mamba_layers * MambaForwardOps(r) + w.moe_layers * moe;
  const double recomputed = p.recompute == "full" ? forward * RecomputedShare(p, r.layers, "full")
                                                  : RecomputedModuleOps(r, w, moe);
  HostOps out;
  if (p.cuda_graphs == "full_iteration") {
    // One graph replays the whole step (dense recipes only: nothing synchronises inside it).
    out.total = kGraphLaunchOps;
    return out;
  }
  out.total = stage * (forward * (1 + kBackwardOpsPerForwardOp) + recomputed);
  // The dispatcher synchronises unless tokens are dropped and padded to a static capacity
  // (model_spec.h moe_token_drop); DeepEP's normal mode always does.
  const bool sync = p.moe_dispatcher == "deepep" || !p.moe_token_drop;
  out.sync_exposed = sync ? stage * w.moe_layers * sync_stretch : 0;
  return out;
}

double HostBoundSeconds(const HostOps& ops, double seconds_per_op, double gpu_mb_s) {
  const double exposed = ops.sync_exposed * seconds_per_op;
  const double rest = (ops.total - ops.sync_exposed) * seconds_per_op;
  return exposed + std::max(0.0, rest - gpu_mb_s);
}

}  // namespace ys::predict
