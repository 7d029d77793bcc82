// The weight matrices of a model's layers, written once: what the parameter count, the MFU
// convention (model_spec.cc), the predictor's step work (step_flops.cc) and the proxies' GEMM plan
// (workloads/proxy_plan.cc) all read. A new block kind or a new matrix in one is added here, and
// every reader sees it.
//
// A block is the part of a layer one module holds: attention (grouped-query or MLA), a dense MLP,
// a MoE block (router, shared experts, LatentMoE's projections, routed experts) or a Mamba-2
// mixer. Each matrix W (in × out) multiplies the activations of its rows: y = x · W.
//
// Thread safety: values only.
#ifndef YARDSTICK_PREDICT_LAYER_MATRICES_H_
#define YARDSTICK_PREDICT_LAYER_MATRICES_H_

#include <string_view>
#include <vector>

#include "core/status.h"
#include "predict/model_spec.h"

namespace ys::predict {

enum class Block { kAttention, kMlp, kMoe, kMamba };

// The kinds of layer a stack holds, as blocks: a transformer layer (attention and a dense MLP or a
// MoE block), or a hybrid stack's single-block layers (Nemotron-H: Mamba, attention, MLP; Nemotron
// 3: MoE in place of the MLP).
enum class LayerKind { kDense, kMoe, kMamba, kAttention, kMlp, kMoeMlp };
const char* LayerKindName(LayerKind k);  // "dense", "moe", "mamba", "attention", "mlp", "moe_mlp"
std::vector<Block> BlocksOf(LayerKind k);

// Which activations a matrix multiplies, per micro-batch on one rank:
// - kTokens: every token of the rank's sequence (the all-gathered sequence under sequence
//   parallelism): attention, MLP, shared experts and Mamba projections;
// - kShard: the rank's sequence-parallel shard (tokens / tp): the router and LatentMoE's
//   projections, which every tensor-parallel rank runs on its own tokens;
// - kRouted: the routed copies of the tokens (top_k per token) spread over the experts.
enum class Rows { kTokens, kShard, kRouted };

struct LayerMatrix {
  std::string_view name;  // "attn.qkv", "mla.q_down", "mlp.up", "moe.experts.down", ...
  // The GEMM group it is priced in (step_flops.h GemmGroup): "attention", "mlp", "experts",
  // "shared_experts", "latent_projections", "mamba_in", "mamba_out"; "router" is counted in
  // parameters and model FLOPs but not priced as a GEMM group of its own.
  std::string_view group;
  Rows rows = Rows::kTokens;
  double in = 0, out = 0;            // the whole matrix (one expert's for kRouted)
  double in_rank = 0, out_rank = 0;  // one tensor-parallel rank's share (expert TP 1)
  // The attention output projection: it runs after the attention core (scores and values).
  bool after_core = false;

  double Params() const { return in * out; }
};

// The matrices of one block, in execution order, with the shares of `tp` tensor-parallel ranks
// (column-parallel matrices split their output, row-parallel ones their input; grouped-query
// key/value heads fewer than the ranks are replicated, one per rank; MLA's down-projections, the
// router and LatentMoE's projections are not split). Unsupported naming the [shape], [moe],
// [mla] or [hybrid] figure the block needs and the file lacks.
Result<std::vector<LayerMatrix>> BlockMatrices(const ModelSpec& spec, Block block, int tp = 1);

// Parameters of one block: the sum of its matrices, the routed experts `routed_copies` times (the
// experts a token visits: top_k; all of them: the expert count).
double BlockParams(const std::vector<LayerMatrix>& matrices, double routed_copies);

}  // namespace ys::predict

#endif  // YARDSTICK_PREDICT_LAYER_MATRICES_H_
