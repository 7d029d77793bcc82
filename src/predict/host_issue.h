// Host-bound execution of an eager (no CUDA graphs) training step: the host issues every kernel
// of a layer through PyTorch and Transformer Engine, and the GPU cannot run a layer faster than
// the host issues it. A device-to-host synchronisation empties the queue: the MoE token
// dispatchers of Megatron-Core (dropless all-to-all, DeepEP normal mode) copy the tokens per expert
// to the host every MoE layer's forward to size the all-to-all splits and the grouped GEMM, so the
// small kernels around it (router, dispatch preprocess, permute) run at the host's pace with the
// GPU waiting. With token drop padded to capacity (moe_token_drop) the sizes are static and the
// all-to-all dispatcher does not synchronise.
//
// Per micro-batch on the slowest stage, with h the host time per framework op:
//   host      = h × Σ layers (forward ops × (1 + kBackwardOpsPerForwardOp) + recomputed ops)
//   exposed   = h × MoE layers × ops from the router to the first expert GEMM (forward)
//   host_s    = exposed + max(0, host − exposed − GPU time of the micro-batch)
// The op counts are counted from Megatron-Core's Transformer Engine layer specs (host_issue.cc);
// they are counts, not fitted. CUDA graphs (the recipe's cuda_graphs): a captured module (attn,
// mamba, mlp, moe_router, moe_preprocess, or a whole moe block) is one launch forward; a
// full-iteration graph issues the whole step at once.
//
// Thread safety: values only.
#ifndef YARDSTICK_PREDICT_HOST_ISSUE_H_
#define YARDSTICK_PREDICT_HOST_ISSUE_H_

#include "predict/step_flops.h"

namespace ys::predict {

// Backward kernels the autograd engine issues per forward op (the input and the weight gradient).
inline constexpr double kBackwardOpsPerForwardOp = 2;

// Framework ops of one micro-batch on the slowest pipeline stage (one GPU).
struct HostOps {
  double total = 0;         // forward, backward and recompute
  double sync_exposed = 0;  // forward ops of the MoE layers' synchronised stretch
};

// Forward ops of each layer type (exposed for the tests' hand arithmetic).
double AttentionForwardOps(const Recipe& r);
double DenseMlpForwardOps(const Recipe& r);
double MambaForwardOps(const Recipe& r);
// The MoE block's forward ops; `*sync_stretch` (may be null) receives those from the router to
// the first expert GEMM, which the dispatcher's synchronisation exposes.
double MoeForwardOps(const Recipe& r, double* sync_stretch);

// `w` is the recipe's ComputeStepWork (its layer counts).
// Forward ops run again in the backward by a recompute of modules (not "full", which runs the whole
// forward again): each recomputed module's own ops, `moe_ops` for a MoE block.
double RecomputedModuleOps(const Recipe& r, const StepWork& w, double moe_ops);
HostOps CountHostOps(const Recipe& r, const StepWork& w);

// Seconds per micro-batch the step waits for the host beyond `gpu_mb_s` (the micro-batch's GPU
// time: compute and exposed communication), at `seconds_per_op`.
double HostBoundSeconds(const HostOps& ops, double seconds_per_op, double gpu_mb_s);

}  // namespace ys::predict

#endif  // YARDSTICK_PREDICT_HOST_ISSUE_H_
