// The step-time model of `yardstick predict`: from the work of a step (step_flops.h) and the rates
// of a system (peak and calibrated efficiencies, or this cluster's measurements), the time of one
// training step and its breakdown:
//
//   step = compute + Σ exposed communication + host-bound wait + pipeline bubble + optimizer
//   compute      = m × (Σ GEMM FLOPs / (peak[dtype] × e[dtype] × chip × d/(d + d½))
//                       + attention FLOPs / (peak[bf16] × e_attn × chip)   (fused; unfused:
//                         UnfusedAttentionSeconds, its batched GEMMs at the bf16 GEMM rate)
//                       + elementwise bytes / HBM                    per micro-batch and GPU
//                       + routed-token bytes / HBM)
//                  on the stage the step waits for: the fullest, or the last when its layers and
//                  the whole logits GEMM outweigh it (SlowestStage)
//   exposed      = m × (tp_exposed × (TP + CP + PP) + EP) + DP beyond its overlap window
//   host         = m × HostBoundSeconds (host_issue.h: the kernels' issue time beyond the GPU's,
//                  and the stretch a MoE dispatcher's device-to-host synchronisation exposes)
//   bubble       = (pp − 1) / vp × (time of one micro-batch: its compute, exposed comm and host)
//   optimizer    = parameters per GPU / data-parallel shards × bytes per parameter / HBM
// where m is the number of micro-batches of a step and each collective's time is its nccl-tests
// size × the bus factor ((n−1)/n for all-gather, reduce-scatter, all-to-all; 1 for send/recv)
// ÷ the bus bandwidth of the link it crosses: NVLink when its group of ranks lies inside the part
// of one NVLink domain the job holds (span ≤ that part and the part a multiple of the span, so that
// no group straddles two domains), the network otherwise. On an NVL72 rack (18 nodes of 4 GPUs)
// a job holds a Slurm segment of nodes per domain: all its nodes up to 18, otherwise the largest
// divisor of its node count not above 18 (16 nodes, 64 GPUs, for a power-of-two job of 32 nodes
// or more), as the recipes' launcher (llmb-run, Megatron-Bridge executors) sets --segment;
// JobNvlinkDomain.
// Megatron's rank order (tp, cp, ep, dp, pp from the inside) gives the spans: TP tp, CP tp·cp, EP
// ep·etp, DP tp·cp·dp, PP the whole job. The expert all-to-all is exposed in full unless the
// recipe overlaps it (moe_a2a_overlap: OverlappedAllToAllSeconds). The DP reduce-scatter and
// all-gather hide under dp_overlap_microbatches micro-batches of compute; only what exceeds that
// window is exposed (FSDP: under every micro-batch).
//
// The constants (e[dtype], e_attn, d½, the exposed shares, ...) are named in kConstants with
// their meaning and whether they are fitted; their values live in calibration/step_model.toml.
//
// Thread safety: values only.
#ifndef YARDSTICK_PREDICT_STEP_MODEL_H_
#define YARDSTICK_PREDICT_STEP_MODEL_H_

#include <map>
#include <span>
#include <string>
#include <vector>

#include "core/status.h"
#include "predict/step_flops.h"

namespace ys::predict {

struct Constants {
  double gemm_efficiency_bf16 = 0.7;
  double gemm_efficiency_fp8 = 0.6;
  double gemm_efficiency_nvfp4 = 0.5;
  double gemm_half_dim = 256;
  double attention_efficiency = 0.3;
  double elementwise_passes = 30;
  double fp8_elementwise_extra = 0;
  double moe_dispatch_passes = 8;
  double tp_exposed = 0.5;
  double dp_overlap_microbatches = 2;
  double alltoall_seconds_per_peer = 5e-6;
  double blackwell_efficiency = 0.85;
  double nvlink_busbw_efficiency = 0.8;
  double network_busbw_efficiency = 0.85;
  double optimizer_bytes_per_param = 32;
  double host_seconds_per_op = 0;
};

// One named constant: its key in the calibration file, where it lives, the range a value may
// take, whether `predict --fit` fits it, and what it means.
struct ConstantInfo {
  const char* name;
  double Constants::*field;
  double lo, hi;
  bool fitted;
  const char* meaning;
};
std::span<const ConstantInfo> ConstantTable();

// The collectives a rate is kept for, as the coll.* units name them.
inline constexpr const char* kCollectives[] = {"all_reduce", "all_gather", "reduce_scatter",
                                               "alltoall", "sendrecv"};

// What one system offers: peaks from specs/, links from the calibration file, rates in units of
// bytes/s and FLOP/s. `origin` says where each rate came from ("reference", a measured run's
// path, "--set").
struct SystemRates {
  std::string chip;
  std::map<std::string, double> peak_flops;  // by dtype: dense peak
  double hbm_bytes_per_s = 0;
  int nvlink_domain = 8;
  int gpus_per_node = 8;       // a domain larger than a node (NVL72) is allocated in nodes
  double chip_efficiency = 1;  // sustained share relative to Hopper
  std::map<std::string, double> nvlink_busbw;  // by collective
  std::map<std::string, double> network_busbw;
  std::map<std::string, double> gemm_flops;   // measured achieved GEMM rate by dtype (overrides)
  std::map<std::string, std::string> origin;  // rate key → where it came from
};

// The reference rates of a chip's links: per-direction NVLink and the network's line rate per GPU
// (bytes/s) times the busbw efficiencies, the same for every collective on a link.
void SetReferenceLinks(SystemRates& rates, double nvlink_per_direction, double network_per_gpu,
                       const Constants& c);

// One communication term of the breakdown.
struct CommTerm {
  std::string name;        // "tp", "cp", "ep", "pp", "dp"
  std::string collective;  // "all_gather+reduce_scatter", "sendrecv", "alltoall", ...
  std::string link;        // "nvlink" | "network"
  double message_bytes = 0;
  double busbw = 0;      // bytes/s used
  double raw_s = 0;      // per step, were nothing overlapped
  double exposed_s = 0;  // per step, what the step waits for
};

struct StepPrediction {
  double step_time_s = 0;
  double compute_s = 0;  // gemm_s + attention_s + elementwise_s
  double gemm_s = 0, attention_s = 0, elementwise_s = 0;
  std::vector<CommTerm> comm;
  double bubble_s = 0;
  double optimizer_s = 0;
  double host_s = 0;  // per step, the GPU waits for the host to issue kernels (host_issue.h)
  int micro_batches = 0, data_parallel = 0;
  double tokens_per_step = 0;
  double tokens_per_s_per_gpu = 0;
  double model_flops_per_token = 0;
  double mfu = 0;  // model FLOPs / (step × peak[dtype] × GPUs)
  double ExposedComm() const;
};

// Layers of the slowest pipeline stage: ⌈layers / (pp·vp)⌉ per virtual stage, vp of them. Where
// pp·vp does not divide the layers the recipe splits them unevenly (DeepSeek-V3's 61 over 4
// stages: 15, 16, 16, 14 with the embedding and the loss on the end stages) and every stage waits
// for the one with the most.
double StageLayers(const Recipe& r);

// Layers of the last pipeline stage: what the first pp − 1 stages, StageLayers() each, leave.
double LastStageLayers(const Recipe& r);

// The stage the step waits for. The last stage also computes the logits (hidden × vocab, a whole
// GEMM on its GPUs), so it is the slowest when its layers plus the logits outweigh the fullest
// stage's layers; a recipe that gives the last stage fewer layers (an uneven split) takes that
// into account. layers_mb: one micro-batch's layer work (GEMMs, attention, elementwise) on a stage
// of layers / pp layers; logits_mb: the logits' time on the last stage. layer_factor multiplies
// layers_mb for the chosen stage; logits says whether that stage computes the logits (always
// without a pipeline).
struct CriticalStage {
  double layer_factor = 1;
  bool logits = true;
};
CriticalStage SlowestStage(const Recipe& r, double layers_mb, double logits_mb);

// Expected network copies of one token under DeepEP: the other NVLink domains (of `nodes` in the
// expert-parallel group) that hold at least one of its top_k experts, experts spread evenly and
// chosen uniformly (within topk_groups of the groups, where the model limits routing to groups).
double RemoteNodesPerToken(const MoeShape& moe, int64_t nodes);

// The exposed seconds per step of the expert-parallel all-to-alls when they overlap computation
// (moe_a2a_overlap: Megatron-Core's combined 1F1B schedule). In the steady state a micro-batch's
// forward runs beside another's backward: the forward's dispatch and combine (half of a2a_mb, the
// all-to-all seconds of one micro-batch) hide under the backward's computation (two thirds of
// compute_mb, the backward's FLOPs being twice the forward's) and the backward's half under the
// forward's third; what exceeds its partner's computation stays exposed. The passes outside the
// steady state have no partner and expose their all-to-alls in full: the warmup forwards of the
// first pipeline rank, pp − 1 of the m micro-batches, or 2(pp − 1) + (vp − 1)·pp of the vp·m
// virtual passes with an interleaved schedule (Megatron-Core's schedules), and one of m without a
// pipeline. An upper bound on the hiding: the all-to-all kernels' share of the SMs and the
// schedule's extra host synchronisation are not charged.
double OverlappedAllToAllSeconds(double a2a_mb, double compute_mb, double micro_batches, int pp,
                                 int vp);

// Seconds of an unfused attention core on one GPU (Transformer Engine's
// UnfusedDotProductAttention, bf16) over `elements` score elements (queries × keys × heads: the
// full S × S of every head, since batched GEMMs do not skip the causally masked half). Each
// kernel runs at the slower of its FLOPs at `gemm_flops` and its HBM traffic of bf16 score
// tensors (one pass = elements × 2 bytes):
//   forward, `forward_passes` times (recompute runs it again): Q·Kᵀ (writes the scores, 1 pass),
//     the fused causal softmax (reads and writes them, 2), P·V (reads them, 1);
//   backward: dP = dO·Vᵀ (writes, 1), dV = Pᵀ·dO (reads P, 1), the softmax backward (reads P and
//     dP, writes dS, 3), dQ = dS·K and dK = dSᵀ·Q (each reads dS, 1).
// A fused kernel keeps the scores on chip; this traffic, and the masked half, are what it saves.
double UnfusedAttentionSeconds(double elements, double qk_dim, double v_dim, double forward_passes,
                               double gemm_flops, double hbm_bytes_per_s);

// The GPUs of one NVLink domain a job of `gpus` holds (see above).
int JobNvlinkDomain(const SystemRates& rates, int64_t gpus);

// Invalid when the recipe's dtype has no peak (or measured GEMM rate), or a rate is not positive.
Result<StepPrediction> PredictStep(const Recipe& recipe, const SystemRates& rates,
                                   const Constants& c);
// The same with the recipe's work already computed (ComputeStepWork(recipe)): the work depends
// on the recipe alone, so a fit that predicts the same rows under many constants computes it once.
Result<StepPrediction> PredictStep(const Recipe& recipe, const StepWork& work,
                                   const SystemRates& rates, const Constants& c);

}  // namespace ys::predict

#endif  // YARDSTICK_PREDICT_STEP_MODEL_H_
