// The work of one training step, from a model's weight matrices (layer_matrices.h, which the
// proxies' plan reads too) and a recipe's parallelism: the FLOPs the
// GPUs execute per token (by kind: GEMMs with the per-GPU dimension that limits their efficiency,
// the attention core, the Mamba scan), the bytes of the elementwise work, the parameters each GPU
// holds (dense and expert), and the message sizes of the tensor-, context-, expert-, pipeline- and
// data-parallel collectives.
//
// Conventions (stated, as in model_spec.h):
// - Executed FLOPs differ from the model FLOPs of MFU (model_spec.h TrainingFlopsPerToken): the
//   attention core is causal (flash attention skips the masked half of the score and value
//   products), and recompute adds forward work ("selective": the attention core again;
//   "mla_up_proj": MLA's up-projection GEMMs again; "full": every layer's forward again).
//   fwd + bwd = 3 × fwd throughout.
// - The work of a step is shared evenly over the GPUs (tp·cp·pp split every layer's work; ep·etp
//   split the experts); the pipeline stages are taken as balanced.
// - Activations move in bf16 (2 bytes); gradients are reduced in fp32 (4 bytes, NeMo's
//   grad_reduce_in_fp32) and parameters gathered in bf16 (2 bytes).
//
// Thread safety: values only.
#ifndef YARDSTICK_PREDICT_STEP_FLOPS_H_
#define YARDSTICK_PREDICT_STEP_FLOPS_H_

#include <string>
#include <vector>

#include "core/status.h"
#include "predict/model_spec.h"

namespace ys::predict {

// A recipe as predicted: the model file's shape and one [[parallelism]] entry, with the fields
// the command line may change.
struct Recipe {
  const ModelSpec* model = nullptr;  // borrowed, outlives the recipe
  Parallelism par;
  int layers = 0;  // [shape] layers unless --layers
  int seq = 0;     // [shape] seq_length unless --seq
  std::string dtype;

  int Etp() const { return par.etp.value_or(par.tp); }
  int Vp() const { return par.vp.value_or(1); }
};

// One group of GEMMs: FLOPs per token of the whole model (fwd + bwd + recompute), the smallest
// per-GPU dimension of its matrices, and the formats it runs in.
struct GemmGroup {
  // "attention", "mlp", "experts", "shared_experts", "latent_projections", "mamba_in",
  // "mamba_out", "logits", "mtp" (the MTP modules' layers), "mtp_heads" (their output heads)
  std::string name;
  double flops_per_token = 0;
  double dim = 0;
  // The format of its GEMMs: "" the recipe's, else "bf16" or "fp8" (the LM head, a recipe's
  // module_precision); and the share of them in the recipe's bf16_layers, which run in bf16.
  std::string format;
  double bf16_share = 0;
};

struct StepWork {
  std::vector<GemmGroup> gemms;
  double attention_flops_per_token = 0;       // attention core and Mamba scan (bf16 kernels)
  double attention_core_flops_per_token = 0;  // of which the attention core (causal, fused)
  // What an unfused attention core materialises: score elements per token (the keys each query
  // sees × query heads × attention layers) and the head dimensions of its batched GEMMs.
  double score_elements_per_token = 0;
  double qk_head_dim = 0, v_head_dim = 0;
  double elementwise_width = 0;      // hidden size × layers: what elementwise work scales with
  double routed_width = 0;           // top_k × hidden size × MoE layers: the routed copies
  double model_flops_per_token = 0;  // MFU convention (model_spec.h)
  int attention_layers = 0, moe_layers = 0;
  int mlp_layers = 0, mamba_layers = 0;  // dense MLP blocks and Mamba layers
  // Parameters held by one GPU (its stage, its tensor/expert shard).
  double dense_params_per_gpu = 0, expert_params_per_gpu = 0;
  // Data-parallel group sizes: dense parameters reduce over dp·cp, experts over the expert data
  // parallel ranks (dp·cp·tp / (ep·etp)).
  int dense_dp = 1, expert_dp = 1;
  // Bytes of one collective of each kind, per GPU (nccl-tests "size").
  double tp_message_bytes = 0;  // one all-gather or reduce-scatter of a layer's activations
  double cp_message_bytes = 0;  // one key/value block passed around the ring
  double ep_message_bytes = 0;  // one all-to-all of routed tokens (dispatch or combine)
  double pp_message_bytes = 0;  // one activation send to the next stage
};

// Invalid when the recipe does not divide (gpus by tp·pp·cp, the global batch by micro_batch·dp,
// the sequence by cp). Layers need not divide by pp: recipes balance uneven stages by counting
// the embedding and the loss as layers (Llama 3.1 405B: 126 + 2 over 8 × 8 chunks); Unsupported
// naming a shape figure the arithmetic needs and the file lacks.
Result<StepWork> ComputeStepWork(const Recipe& r);

// Data-parallel size and micro-batches per step (gradient accumulation) of a recipe.
int DataParallel(const Recipe& r);
int MicroBatches(const Recipe& r);

}  // namespace ys::predict

#endif  // YARDSTICK_PREDICT_STEP_FLOPS_H_
