#include "predict/step_model.h"

#include <algorithm>
#include <cmath>

#include "predict/host_issue.h"
#include "predict/step_comm.h"

namespace ys::predict {
namespace {

constexpr ConstantInfo kConstants[] = {
    {"gemm_efficiency_bf16", &Constants::gemm_efficiency_bf16, 0.05, 1, true,
     "share of the bf16 dense peak a large GEMM sustains in a training step (Hopper)"},
    {"gemm_efficiency_fp8", &Constants::gemm_efficiency_fp8, 0.05, 1, true,
     "share of the fp8 dense peak a large GEMM sustains (per-tensor scaling, Transformer Engine)"},
    {"gemm_efficiency_nvfp4", &Constants::gemm_efficiency_nvfp4, 0.05, 1, false,
     "share of the nvfp4 dense peak; no published row runs nvfp4, so this is a prior, not a fit"},
    {"gemm_half_dim", &Constants::gemm_half_dim, 1, 65536, false,
     "per-GPU GEMM dimension at which the efficiency is half its large-GEMM value: e × d/(d + d½)"},
    {"attention_efficiency", &Constants::attention_efficiency, 0.05, 1, false,
     "share of the bf16 peak the attention core (flash attention) and the Mamba scan sustain; a "
     "prior from the fused attention kernel's own rate, since the published rows cannot separate "
     "it from the GEMM efficiency"},
    {"elementwise_passes", &Constants::elementwise_passes, 0, 1000, false,
     "HBM traffic of the non-GEMM work (norms, activations, residuals, casts) per token and layer, "
     "in tensors of hidden_size × 2 bytes"},
    {"fp8_elementwise_extra", &Constants::fp8_elementwise_extra, 0, 10, true,
     "extra elementwise traffic of an fp8 recipe (casts, amax), as a share of elementwise_passes"},
    {"moe_dispatch_passes", &Constants::moe_dispatch_passes, 0, 1000, true,
     "HBM traffic of a MoE layer's token dispatch per token, in tensors of top_k × hidden_size × "
     "2 bytes: the routed copies permuted, sorted by expert, unsorted and combined, forward and "
     "backward (Megatron's all-to-all dispatcher)"},
    {"tp_exposed", &Constants::tp_exposed, 0, 1, true,
     "share of the tensor-, context- and pipeline-parallel transfers the step waits for"},
    {"dp_overlap_microbatches", &Constants::dp_overlap_microbatches, 0, 64, true,
     "micro-batches of compute a step's data-parallel reduce-scatter and all-gather hide under "
     "(distributed optimizer, overlapped grad reduce and param gather); beyond it they are "
     "exposed"},
    // At most 20 us: the sends and receives of all peers are issued as one group, so a peer costs
    // at most about one small-message point-to-point latency through NCCL (3.7 us over NVLink on
    // H800, NVIDIA/nccl#1984; several times that across InfiniBand).
    {"alltoall_seconds_per_peer", &Constants::alltoall_seconds_per_peer, 0, 2e-5, true,
     "fixed time an all-to-all spends per peer it exchanges with (one send and one receive "
     "each), on top of its bytes at the link's bus bandwidth: what makes small per-peer chunks "
     "slow"},
    {"blackwell_efficiency", &Constants::blackwell_efficiency, 0.2, 1.5, true,
     "sustained compute share of a Blackwell GPU relative to Hopper at the same share of peak"},
    {"nvlink_busbw_efficiency", &Constants::nvlink_busbw_efficiency, 0.05, 1, false,
     "nccl-tests bus bandwidth inside an NVLink domain as a share of per-direction NVLink"},
    {"network_busbw_efficiency", &Constants::network_busbw_efficiency, 0.05, 1, false,
     "nccl-tests bus bandwidth across the network as a share of the per-GPU line rate"},
    {"optimizer_bytes_per_param", &Constants::optimizer_bytes_per_param, 1, 1000, false,
     "HBM bytes the Adam step moves per parameter shard (fp32 master, moments and gradient, read "
     "and written)"},
    {"host_seconds_per_op", &Constants::host_seconds_per_op, 0, 1e-3, false,
     "host time to issue one framework op of an eager step (PyTorch dispatch, Transformer "
     "Engine's Python and the kernel launch); a prior from a published kernel-count change"},
};

// Probability that none of `pick` items drawn without replacement from `total` falls among
// `marked`: C(total − marked, pick) / C(total, pick).
double NoneDrawn(double total, double marked, int pick) {
  double q = 1;
  for (int i = 0; i < pick; ++i) q *= std::max(0.0, (total - marked - i) / (total - i));
  return q;
}

}  // namespace

double StageLayers(const Recipe& r) {
  const int chunks = r.par.pp * r.Vp();
  return static_cast<double>((r.layers + chunks - 1) / chunks) * r.Vp();
}

double LastStageLayers(const Recipe& r) {
  return std::max(0.0, r.layers - (r.par.pp - 1) * StageLayers(r));
}

CriticalStage SlowestStage(const Recipe& r, double layers_mb, double logits_mb) {
  const double even = static_cast<double>(r.layers) / r.par.pp;
  const double fullest = StageLayers(r) / even, last = LastStageLayers(r) / even;
  if (r.par.pp == 1 || layers_mb * last + logits_mb >= layers_mb * fullest) return {last, true};
  return {fullest, false};
}

double OverlappedAllToAllSeconds(double a2a_mb, double compute_mb, double micro_batches, int pp,
                                 int vp) {
  const double m = std::max(1.0, micro_batches);
  double unpaired = 1.0 / m;
  if (pp > 1) {
    unpaired = vp > 1 ? (2.0 * (pp - 1) + (vp - 1.0) * pp) / (vp * m) : (pp - 1.0) / m;
  }
  unpaired = std::min(1.0, unpaired);
  const double paired =
      std::max(0.0, a2a_mb / 2 - compute_mb * 2 / 3) + std::max(0.0, a2a_mb / 2 - compute_mb / 3);
  return m * (unpaired * a2a_mb + (1 - unpaired) * paired);
}

double RemoteNodesPerToken(const MoeShape& moe, int64_t nodes) {
  if (nodes <= 1) return 0;
  double p_hit = 0;
  if (moe.groups > 0 && moe.groups % nodes == 0) {
    // Group-limited routing: a token's experts lie in topk_groups of the groups; a node holds
    // groups / nodes of them. Counted as if every chosen group is hit (an upper bound).
    p_hit = 1 - NoneDrawn(moe.groups, static_cast<double>(moe.groups) / nodes, moe.topk_groups);
  } else {
    p_hit = 1 - NoneDrawn(moe.experts, static_cast<double>(moe.experts) / nodes, moe.top_k);
  }
  return (nodes - 1.0) * p_hit;
}

std::span<const ConstantInfo> ConstantTable() { return kConstants; }

double UnfusedAttentionSeconds(double elements, double qk_dim, double v_dim, double forward_passes,
                               double gemm_flops, double hbm_bytes_per_s) {
  const double pass = elements * 2.0 / hbm_bytes_per_s;
  auto gemm = [&](double dim) { return std::max(2.0 * elements * dim / gemm_flops, pass); };
  const double forward = gemm(qk_dim) + 2 * pass + gemm(v_dim);
  const double backward = 2 * gemm(v_dim) + 3 * pass + 2 * gemm(qk_dim);
  return forward_passes * forward + backward;
}

int JobNvlinkDomain(const SystemRates& rates, int64_t gpus) {
  const int per_node = std::max(1, rates.gpus_per_node);
  if (rates.nvlink_domain <= per_node || gpus <= per_node) return rates.nvlink_domain;
  const int64_t nodes = gpus / per_node;
  const int64_t domain_nodes = rates.nvlink_domain / per_node;
  int64_t segment = 1;
  for (int64_t d = std::min(nodes, domain_nodes); d >= 1; --d) {
    if (nodes % d == 0) {
      segment = d;
      break;
    }
  }
  return static_cast<int>(segment * per_node);
}

void SetReferenceLinks(SystemRates& rates, double nvlink_per_direction, double network_per_gpu,
                       const Constants& c) {
  for (const char* coll : kCollectives) {
    rates.nvlink_busbw[coll] = nvlink_per_direction * c.nvlink_busbw_efficiency;
    rates.network_busbw[coll] = network_per_gpu * c.network_busbw_efficiency;
    rates.origin[std::string("nvlink.") + coll + ".busbw"] = "reference";
    rates.origin[std::string("coll.") + coll + ".busbw"] = "reference";
  }
}

double StepPrediction::ExposedComm() const {
  double s = 0;
  for (const CommTerm& t : comm) s += t.exposed_s;
  return s;
}

Result<StepPrediction> PredictStep(const Recipe& r, const SystemRates& rates, const Constants& c) {
  auto work = ComputeStepWork(r);
  if (!work.ok()) return work.status();
  return PredictStep(r, *work, rates, c);
}

namespace {

// The rates a prediction reads: a format's peak, and a GEMM's rate in a format: this cluster's
// measured rate where given, else the share of the format's peak that large GEMMs sustain, less
// for a small per-GPU dimension.
class GemmRates {
 public:
  GemmRates(const SystemRates& rates, const Constants& c) : rates_(rates), c_(c) {}

  Result<double> Peak(const std::string& dtype) const {
    auto it = rates_.peak_flops.find(dtype);
    if (it == rates_.peak_flops.end() || !(it->second > 0))
      return Status::Invalid(rates_.chip + ": no " + dtype + " peak in specs/");
    return it->second;
  }
  Result<double> Gemm(const std::string& format, double dim) const {
    auto measured = rates_.gemm_flops.find(format);
    if (measured != rates_.gemm_flops.end()) return measured->second;
    auto pk = Peak(format);
    if (!pk.ok()) return pk.status();
    const double efficiency = format == "bf16"  ? c_.gemm_efficiency_bf16
                              : format == "fp8" ? c_.gemm_efficiency_fp8
                                                : c_.gemm_efficiency_nvfp4;
    return *pk * efficiency * rates_.chip_efficiency * dim / (dim + c_.gemm_half_dim);
  }

 private:
  const SystemRates& rates_;
  const Constants& c_;
};

// Compute of one micro-batch on one GPU of the stage the step waits for.
struct MicroBatchCompute {
  double gemm = 0, attention = 0, elementwise = 0;
  double stage = 1;  // the critical stage's layer factor (SlowestStage)
  double Total() const { return gemm + attention + elementwise; }
};

// The GEMM groups' seconds per micro-batch on a stage holding layers / pp layers, and the last
// stage's (the logits and the multi-token-prediction modules run there only, whole).
Status AddGemmSeconds(const Recipe& r, const StepWork& w, const GemmRates& book, double share,
                      double& layers_mb, double& last_mb) {
  const double tokens_mb = static_cast<double>(r.par.micro_batch) * r.seq;
  for (const GemmGroup& g : w.gemms) {
    auto rate = book.Gemm(g.format.empty() ? r.dtype : g.format, g.dim);
    if (!rate.ok()) return rate.status();
    double seconds_per_flop = (1 - g.bf16_share) / *rate;
    if (g.bf16_share > 0) {
      auto bf16 = book.Gemm("bf16", g.dim);
      if (!bf16.ok()) return bf16.status();
      seconds_per_flop += g.bf16_share / *bf16;
    }
    const bool last = g.name == "logits" || g.name == "mtp" || g.name == "mtp_heads";
    (last ? last_mb : layers_mb) += g.flops_per_token * tokens_mb * share * seconds_per_flop;
  }
  last_mb *= r.par.pp;
  return Status::Ok();
}

// The attention core and Mamba scan of one micro-batch: at the attention kernels' share of the
// bf16 peak, or unfused (the scores go through HBM; the batched GEMMs run at the bf16 GEMM rate
// without the small-dimension penalty: their S × S outputs fill the GPU, and a short reduction
// dimension makes them memory-bound, which UnfusedAttentionSeconds takes).
double AttentionSeconds(const Recipe& r, const StepWork& w, const SystemRates& rates,
                        const Constants& c, double bf16_peak, double share) {
  const double tokens_mb = static_cast<double>(r.par.micro_batch) * r.seq;
  const double attention_rate = bf16_peak * c.attention_efficiency * rates.chip_efficiency;
  if (r.par.attention_backend != "unfused")
    return w.attention_flops_per_token * tokens_mb * share / attention_rate;
  auto measured_bf16 = rates.gemm_flops.find("bf16");
  const double gemm_rate = measured_bf16 != rates.gemm_flops.end()
                               ? measured_bf16->second
                               : bf16_peak * c.gemm_efficiency_bf16 * rates.chip_efficiency;
  const double scan = w.attention_flops_per_token - w.attention_core_flops_per_token;
  return scan * tokens_mb * share / attention_rate +
         UnfusedAttentionSeconds(w.score_elements_per_token * tokens_mb * share, w.qk_head_dim,
                                 w.v_head_dim, 1 + RecomputedShare(r.par, r.layers, "core_attn"),
                                 gemm_rate, rates.hbm_bytes_per_s);
}

// Elementwise traffic of one micro-batch through HBM. A recomputed MoE block permutes and
// combines its tokens again: the dispatch traffic is half forward, half backward (a permute's
// gradient is the matching unpermute), so 1.5 times in the share of layers that recompute it.
double ElementwiseSeconds(const Recipe& r, const StepWork& w, const SystemRates& rates,
                          const Constants& c, double share) {
  const double tokens_mb = static_cast<double>(r.par.micro_batch) * r.seq;
  const double passes =
      c.elementwise_passes * (r.dtype == "bf16" ? 1.0 : 1.0 + c.fp8_elementwise_extra);
  const double dispatch_passes =
      c.moe_dispatch_passes * (1.0 + 0.5 * RecomputedShare(r.par, r.layers, "moe"));
  return (passes * w.elementwise_width + dispatch_passes * w.routed_width) * tokens_mb * 2.0 *
         share / rates.hbm_bytes_per_s;
}

// Compute of one micro-batch on one GPU of a stage holding layers / pp layers, then scaled to the
// stage the step waits for (with the logits where that stage is the last).
Result<MicroBatchCompute> ComputeMicroBatch(const Recipe& r, const StepWork& w,
                                            const SystemRates& rates, const Constants& c,
                                            const GemmRates& book, double bf16_peak) {
  const Parallelism& p = r.par;
  const double share = 1.0 / (static_cast<double>(p.tp) * p.cp * p.pp);
  MicroBatchCompute mb;
  double logits = 0;
  YS_RETURN_IF_ERROR(AddGemmSeconds(r, w, book, share, mb.gemm, logits));
  mb.attention = AttentionSeconds(r, w, rates, c, bf16_peak, share);
  mb.elementwise = ElementwiseSeconds(r, w, rates, c, share);
  const CriticalStage critical = SlowestStage(r, mb.gemm + mb.attention + mb.elementwise, logits);
  mb.stage = critical.layer_factor;
  mb.gemm = mb.gemm * mb.stage + (critical.logits ? logits : 0.0);
  mb.attention *= mb.stage;
  mb.elementwise *= mb.stage;
  return mb;
}

}  // namespace

Result<StepPrediction> PredictStep(const Recipe& r, const StepWork& w, const SystemRates& rates,
                                   const Constants& c) {
  const Parallelism& p = r.par;
  const GemmRates book(rates, c);
  auto bf16_peak = book.Peak("bf16");
  if (!bf16_peak.ok()) return bf16_peak.status();
  if (r.dtype != "bf16" && r.dtype != "fp8" && r.dtype != "nvfp4")
    return Status::Invalid("dtype \"" + r.dtype + "\" (expected bf16, fp8 or nvfp4)");
  if (!(rates.hbm_bytes_per_s > 0)) return Status::Invalid(rates.chip + ": no HBM bandwidth");

  StepPrediction out;
  out.data_parallel = DataParallel(r);
  out.micro_batches = MicroBatches(r);
  const double m = out.micro_batches;
  auto mb = ComputeMicroBatch(r, w, rates, c, book, *bf16_peak);
  if (!mb.ok()) return mb.status();
  const int domain = JobNvlinkDomain(rates, p.gpus);
  YS_RETURN_IF_ERROR(
      AddMicroBatchComm(r, w, rates, c, domain, m, MicroBatchShape{mb->stage, mb->Total()}, out));
  double per_mb_exposed = 0;
  for (const CommTerm& t : out.comm) per_mb_exposed += t.exposed_s / m;
  const double compute_mb = mb->Total();
  const double host_mb =
      HostBoundSeconds(CountHostOps(r, w), c.host_seconds_per_op, compute_mb + per_mb_exposed);
  const double mb_time = compute_mb + per_mb_exposed + host_mb;
  YS_RETURN_IF_ERROR(AddDataParallelComm(r, w, rates, c, domain, m, compute_mb, out));

  out.gemm_s = m * mb->gemm;
  out.attention_s = m * mb->attention;
  out.elementwise_s = m * mb->elementwise;
  out.compute_s = out.gemm_s + out.attention_s + out.elementwise_s;
  out.bubble_s = (p.pp - 1.0) / r.Vp() * mb_time;
  out.optimizer_s = (w.dense_params_per_gpu / w.dense_dp + w.expert_params_per_gpu / w.expert_dp) *
                    c.optimizer_bytes_per_param / rates.hbm_bytes_per_s;
  out.host_s = m * host_mb;
  out.step_time_s = out.compute_s + out.ExposedComm() + out.host_s + out.bubble_s + out.optimizer_s;
  out.tokens_per_step = static_cast<double>(p.global_batch) * r.seq;
  out.tokens_per_s_per_gpu = out.tokens_per_step / out.step_time_s / p.gpus;
  out.model_flops_per_token = w.model_flops_per_token;
  auto mfu_peak = book.Peak(r.dtype);
  if (mfu_peak.ok()) out.mfu = w.model_flops_per_token * out.tokens_per_s_per_gpu / *mfu_peak;
  return out;
}

}  // namespace ys::predict
