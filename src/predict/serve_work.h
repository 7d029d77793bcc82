// What serving one model costs per token, from its shape (model_spec.h): the bytes of its weights
// in a serving precision, the KV cache (or Mamba state) a sequence holds, and the forward FLOPs of
// a token. The serving model (serve_model.h) turns these into seconds.
//
// Conventions (stated, because the predictions depend on them):
// - Weights: every matrix in the serving dtype, at bytes_per_param: bf16 2, fp8 1, nvfp4 0.5 plus
//   one fp8 scale per 16 values (0.5625); fp32 4 (the CPU serving proxy). The input embedding and
//   the output head stay in bf16 (fp32 when serving fp32), as the quantisation recipes of
//   TensorRT Model Optimizer and vLLM leave them by default. The
//   input embedding is a lookup (held in HBM, not read per step); the head is read every step.
// - KV cache: fp8 when serving fp8 or nvfp4, bf16 when serving bf16, fp32 when serving fp32. Per
//   token and attention layer 2 × kv_heads × head_dim values; with MLA (DeepSeek-V3) the
//   compressed latent, kv_lora_rank + qk_rope_head_dim values, one copy on every tensor-parallel
//   rank (it is not split by heads).
// - Mamba-2 layers (Nemotron-H) keep a fixed state per sequence instead: the SSM state
//   (d_inner × ssm_state_size) and the convolution window (3 × (d_inner + 2 × groups ×
//   ssm_state_size), a kernel of 4), both bf16.
// - FLOPs: forward only, 2 per multiply-add, over the active matrix parameters (a lookup embedding
//   excluded), the attention score and value products (2 × heads × (qk + v) per attention layer and
//   context position), and the Mamba scan terms (model_spec.h MambaScanPerToken, doubled).
//
// Thread safety: values only.
#ifndef YARDSTICK_PREDICT_SERVE_WORK_H_
#define YARDSTICK_PREDICT_SERVE_WORK_H_

#include <string_view>

#include "core/status.h"
#include "predict/model_spec.h"

namespace ys::predict {

struct ServeWork {
  double bytes_per_param = 0;  // the serving dtype's weights, scales included
  double kv_bytes_per_value = 0;
  double body_bytes = 0;    // every matrix but the routed experts, the embedding and the head
  double routed_bytes = 0;  // every routed expert of every MoE layer
  double head_bytes = 0;    // output head (bf16), read every step
  double embed_bytes = 0;   // input embedding (bf16), a lookup; 0 when tied to the head
  double dense_flops_per_token = 0;         // forward GEMM FLOPs outside the routed experts
  double head_flops_per_token = 0;          // the output head's part of them (a prefill runs
                                            // the head on its last token only)
  double routed_flops_per_token = 0;        // forward GEMM FLOPs of the top_k routed experts
  double attention_flops_per_position = 0;  // per token, per context position it attends to
  double scan_flops_per_token = 0;          // Mamba-2 scan terms
  double kv_bytes_per_token = 0;            // one sequence position, every attention layer
  double state_bytes_per_sequence = 0;      // Mamba-2 state, every Mamba layer
  bool kv_split_by_tp = true;               // false for MLA (the latent is replicated)
  int kv_heads = 0;
  int experts = 0, top_k = 0, moe_layers = 0;
  int hidden = 0;
  int layers = 0;            // every layer of the stack (attention, MoE, Mamba)
  int allreduce_points = 0;  // TP all-reduces a token meets: 2 per transformer layer, 1 per
                             // single-block hybrid layer

  double WeightBytes() const { return body_bytes + routed_bytes + head_bytes + embed_bytes; }
};

// Bytes per weight of a serving dtype (bf16, fp8, nvfp4, fp32); 0 for another.
double BytesPerParam(std::string_view dtype);
// Bytes per KV-cache value when serving in `dtype`: 1 for fp8 and nvfp4, 2 for bf16, 4 for fp32.
double KvBytesPerValue(std::string_view dtype);

// Invalid for a dtype other than bf16, fp8, nvfp4, fp32; Unsupported (from model_spec.h) when the
// model file lacks a figure the arithmetic needs.
Result<ServeWork> ComputeServeWork(const ModelSpec& model, std::string_view dtype);

// Expected distinct experts of `experts` that `tokens` tokens touch, each choosing top_k distinct
// experts uniformly: experts × (1 − (1 − top_k / experts)^tokens).
double ExpectedDistinctExperts(int experts, int top_k, double tokens);

}  // namespace ys::predict

#endif  // YARDSTICK_PREDICT_SERVE_WORK_H_
