// The proxy plan: the ops of one training step on one GPU (one rank) of a model's recipe, from the
// model's weight matrices (predict/layer_matrices.h, the same the predictor prices) and the
// recipe's parallelism, optionally scaled down so that a CPU can run it.
//
// What one rank does per micro batch, for each of its layers, forward then backward (in reverse):
// - GEMMs at the tensor-parallel (TP) sharded shapes, C (m x n) = A (m x k) . B (k x n):
//   attention QKV (grouped-query: kv heads, at least one per rank) and output; MLA (DeepSeek-V3):
//   query down/up, key-value down/up and output; MLP up(+gate) and down; MoE: the router (on the
//   rank's sequence-parallel shard), shared experts (TP-sharded like a dense MLP) and the routed
//   experts held by this rank (experts/EP of them, expert TP = 1, each with the tokens balanced
//   routing sends it: (tokens/TP) x top_k x EP / experts); Mamba-2 in and out projections.
//   Attention's score (Q.Kᵀ) and value (P.V) products are batched GEMMs (batch = micro batch x
//   heads/TP), non-causal, the queries of this rank's context-parallel (CP) shard against the
//   whole sequence.
//   Backward is dgrad (m x k = (m x n).(n x k)) and wgrad (k x n = (k x m).(m x n)) of every
//   forward GEMM: 3 x the forward FLOPs.
// - TP collectives on activations with sequence parallelism: an all-gather before and a
//   reduce-scatter after each TP-sharded block (attention, dense MLP or shared experts, Mamba),
//   forward and backward, of the block's full activation (tokens x hidden). None when TP = 1.
// - MoE all-to-all, dispatch and combine, forward and backward, of the rank's routed token copies
//   ((tokens/TP) x top_k x hidden). None when EP = 1.
// Once per step: the data-parallel reduce-scatter of the gradients and all-gather of the
// parameters (distributed optimizer), each the size of the parameters this rank holds for its
// layers (the weights of its GEMMs). None when DP = 1.
//
// Stated exclusions (the plan's FLOPs agree with TrainingFlopsPerToken x tokens less these): the
// output head (hidden x vocab, on the last pipeline stage only) and the input embedding (a
// lookup); Mamba-2's scan (not a GEMM; NVIDIA's formula counts it in model FLOPs); norms,
// activations, softmax, rotary embeddings; pipeline-parallel send/receive between stages.
//
// Scale-down (for CPUs): hidden, FFN, expert FFN, head counts, MLA ranks, Mamba heads and groups
// and the sequence length are divided by `scale` (at least 1 each); head dimensions, expert count,
// top-k and state size stay. Each GEMM dimension shrinks by `scale`, so GEMM FLOPs shrink by
// about scale³ per layer and activation message bytes by scale², parameter bytes by scale².
//
// Pure: values in, values out.
#ifndef YARDSTICK_WORKLOADS_PROXY_PLAN_H_
#define YARDSTICK_WORKLOADS_PROXY_PLAN_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "predict/layer_matrices.h"
#include "predict/model_spec.h"

namespace ys::workloads {

// The class of an op, as the result table groups them.
enum class OpClass { kGemmFwd, kGemmBwd, kTpComm, kDpComm, kMoeAllToAll };
const char* OpClassName(OpClass c);  // "GEMM fwd", "GEMM bwd", "TP comm", "DP comm", "MoE a2a"

enum class PlanCollective { kAllGather, kReduceScatter, kAllToAll };
const char* PlanCollectiveName(PlanCollective c);  // "all_gather", "reduce_scatter", "alltoall"

// Which recipe group a collective runs in.
enum class CommGroup { kTp, kDp, kEp };
const char* CommGroupName(CommGroup g);  // "tp", "dp", "ep"

struct GemmShape3 {
  int64_t m = 0, n = 0, k = 0;
  int64_t batch = 1;
  double Flops() const { return 2.0 * batch * m * n * k; }
  bool operator==(const GemmShape3&) const = default;
};

struct ProxyOp {
  std::string name;  // "L0 attn.qkv fwd", "L1 moe.dispatch bwd", "dp.reduce_scatter"
  OpClass cls = OpClass::kGemmFwd;
  bool is_gemm = true;
  GemmShape3 gemm;                                         // is_gemm
  PlanCollective collective = PlanCollective::kAllGather;  // !is_gemm
  CommGroup group = CommGroup::kTp;
  uint64_t bytes = 0;  // nccl-tests size: the full buffer (all-gather's output, reduce-scatter's
                       // input, all-to-all's send buffer)
  // Identifies the distinct shape or message that calibration times once:
  // "gemm 8192x6144x4096x1", "tp all_gather 67108864".
  std::string Key() const;
};

struct PlanOptions {
  int scale = 1;                     // divide the shape by this (see the header comment)
  std::optional<int> layers;         // run this many layers instead of layers / PP
  std::optional<int> micro_batches;  // instead of the recipe's gradient accumulation
  int dtype_bytes = 2;               // activations and gradients: bf16 2, fp32 4
};

// The kinds of layer a plan runs (predict/layer_matrices.h).
using predict::LayerKind;
using predict::LayerKindName;

struct ProxyPlan {
  std::string model;
  predict::Parallelism parallelism;
  PlanOptions options;
  // The (scaled) figures the ops were built from.
  int hidden = 0, seq = 0, heads = 0, kv_heads = 0, head_dim = 0;
  int tokens = 0;                        // per micro batch on this rank: micro_batch x seq / CP
  int micro_batches = 0;                 // run per step
  int recipe_micro_batches = 0;          // the recipe's gradient accumulation
  std::vector<LayerKind> layers;         // this rank's layers, in order
  double weight_params = 0;              // parameters this rank holds for its layers
  std::vector<ProxyOp> micro_batch_ops;  // one micro batch, in execution order
  std::vector<ProxyOp> step_ops;         // once per step, after the micro batches
  std::vector<std::string> notes;        // what was stated: scale, layers, exclusions

  // GEMM FLOPs of one step (all micro batches).
  double StepGemmFlops() const;
  // Tokens this rank processes per step.
  double StepTokens() const { return static_cast<double>(tokens) * micro_batches; }
};

// Invalid when the parallelism does not divide the shape (heads by TP, experts by EP, sequence by
// CP) after scaling; Unsupported naming the missing figure (an MoE model without [moe], ...).
Result<ProxyPlan> PlanProxyStep(const predict::ModelSpec& spec, const predict::Parallelism& par,
                                const PlanOptions& options);

// The model a plan runs: every width divided by `scale` (at least 1 each) as the header states;
// head dimensions, expert count, top-k and state size kept; missing key/value heads are the query
// heads; no parallelism entries. The serving proxy runs the same scaled shape. The spec must give
// attention_heads.
predict::ModelSpec CpuScaledSpec(const predict::ModelSpec& spec, int scale);

// The CPU scale-down of a model under a recipe: the largest power of two that is at most
// hidden/256 and at most heads/TP (so every TP rank keeps a head), at least 1.
int CpuScaleFactor(const predict::ModelSpec& spec, const predict::Parallelism& par);

// The recipe a CPU proxy runs: the first h100 bf16 entry, else the first h100 entry, else the
// first entry (the choice is stated in `why`). NotFound when the spec has none.
Result<predict::Parallelism> CpuRecipe(const predict::ModelSpec& spec, std::string* why);

}  // namespace ys::workloads

#endif  // YARDSTICK_WORKLOADS_PROXY_PLAN_H_
