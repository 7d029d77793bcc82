#include "predict/step_flops.h"

#include <algorithm>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "predict/layer_matrices.h"

namespace ys::predict {
namespace {

constexpr double kActivationBytes = 2;  // bf16

std::string Where(const Recipe& r) {
  return r.model->path + " (" + r.par.chip + "/" + r.dtype + "/" + std::to_string(r.par.gpus) +
         " GPUs)";
}

// The formats of a low-precision recipe's GEMM groups: its module_precision names some modules'
// formats; its bf16_layers put that share of every layer GEMM in bf16. The LM head (the logits and
// the MTP modules' heads) keeps the recipe's rate. Megatron-Core's output layer is its own
// ColumnParallelLinear outside Transformer Engine, so it runs bf16 (an MXFP8 LM head is opt-in
// since Megatron-LM #4825, May 2026), but pricing it so, with the constants re-fitted, moved the
// held-out Llama 3.1 8B fp8 rows of dgxc v25.04.02 from -1..-3% to -8..-10%: left as it was.
void SetFormats(const Recipe& r, std::vector<GemmGroup>& gemms) {
  if (r.dtype == "bf16") return;
  const double bf16_share =
      r.layers > 0 ? std::min(1.0, static_cast<double>(r.par.bf16_layers) / r.layers) : 0.0;
  for (GemmGroup& g : gemms) {
    if (g.name == "logits" || g.name == "mtp_heads") continue;
    const std::string_view module = g.name == "attention"            ? "attn"
                                    : g.name == "latent_projections" ? "latent"
                                                                     : std::string_view(g.name);
    g.format = ModulePrecision(r.par.module_precision, module);
    if (g.name != "mtp") g.bf16_share = bf16_share;
  }
}

// Invalid when the recipe does not divide (see ComputeStepWork).
Status CheckRecipeDivides(const Recipe& r) {
  const Parallelism& p = r.par;
  const int model_parallel = p.tp * p.pp * p.cp;
  if (p.gpus % model_parallel != 0) {
    return Status::Invalid(Where(r) + ": gpus " + std::to_string(p.gpus) +
                           " is not a multiple of tp·pp·cp = " + std::to_string(model_parallel));
  }
  const int64_t per_step = int64_t{p.micro_batch} * (p.gpus / model_parallel);
  if (p.global_batch % per_step != 0) {
    return Status::Invalid(Where(r) + ": global_batch " + std::to_string(p.global_batch) +
                           " is not a multiple of micro_batch × dp = " + std::to_string(per_step));
  }
  if (r.seq % p.cp != 0) {
    return Status::Invalid(Where(r) + ": seq " + std::to_string(r.seq) +
                           " is not a multiple of cp " + std::to_string(p.cp));
  }
  // Megatron-Core lays the experts of one pipeline stage out as etp x ep x expert-dp over that
  // stage's GPUs, so etp·ep must divide gpus / pp (etp defaults to tp, as Megatron's does).
  const int stage_gpus = p.gpus / p.pp;
  if (r.model->moe && stage_gpus % (r.Etp() * p.ep) != 0) {
    return Status::Invalid(Where(r) + ": etp·ep = " + std::to_string(r.Etp()) + "·" +
                           std::to_string(p.ep) + " does not divide the " +
                           std::to_string(stage_gpus) + " GPUs of one pipeline stage (gpus / pp)" +
                           (p.etp ? ""
                                  : "; etp defaults to tp: give --etp (recipes with ep > 1 "
                                    "often run etp 1)"));
  }
  return Status::Ok();
}

// Layer counts of a stack of r.layers (a proxy may run fewer than the file's): a hybrid stack's
// kinds in the file's proportion, else attention in every layer beside a MoE block or a dense MLP.
void CountStackLayers(const Recipe& r, StepWork& w) {
  const ModelSpec& m = *r.model;
  const double scale = static_cast<double>(r.layers) / m.shape.layers;
  w.attention_layers = r.layers;
  if (m.hybrid) {
    w.attention_layers = static_cast<int>(m.hybrid->attention_layers * scale + 0.5);
    w.mamba_layers = static_cast<int>(m.hybrid->mamba_layers * scale + 0.5);
    w.moe_layers = static_cast<int>(m.hybrid->moe_layers * scale + 0.5);
    w.mlp_layers = std::max(0, r.layers - w.attention_layers - w.mamba_layers - w.moe_layers);
  } else if (m.moe) {
    w.moe_layers = m.moe->MoeLayers(r.layers);
    w.mlp_layers = r.layers - w.moe_layers;
  } else {
    w.mlp_layers = r.layers;
  }
}

// The priced GEMM groups, in the order the breakdown lists them, with the recompute module whose
// share of layers runs their forward again (the attention projections and Mamba layers only under
// "full"; the shared experts under "moe" or "shared_experts").
struct PricedGroup {
  std::string_view name;
  Block block;
  std::string_view module;
};
constexpr PricedGroup kPricedGroups[] = {
    {"attention", Block::kAttention, "full"}, {"mlp", Block::kMlp, "mlp"},
    {"experts", Block::kMoe, "moe"},          {"latent_projections", Block::kMoe, "moe"},
    {"shared_experts", Block::kMoe, "moe"},   {"mamba_in", Block::kMamba, "full"},
    {"mamba_out", Block::kMamba, "full"}};

// fwd + bwd = 3 passes of 2 FLOPs per weight; a module whose forward is recomputed adds one in
// the share of layers that recompute it (model_spec.h RecomputedShare).
double GroupPasses(const Recipe& r, const PricedGroup& g) {
  double passes = 6.0 + 2.0 * RecomputedShare(r.par, r.layers, g.module);
  if (g.name == "shared_experts")
    passes = std::max(passes, 6.0 + 2.0 * RecomputedShare(r.par, r.layers, "shared_experts"));
  return passes;
}

// The per-GPU dimension that limits a group's GEMM efficiency: the smaller of the hidden size and
// the tensor-parallel share of the group's wide dimension; the routed experts' also by the tokens
// one local expert sees per micro-batch (the EP group's tokens, top_k copies each, spread over
// the experts; with tensor-parallel attention and ETP 1 each TP rank routes its own shard).
double GroupDim(const Recipe& r, std::string_view group, const AttentionShape& attn) {
  const ModelSpec& m = *r.model;
  const double h = m.shape.hidden_size, tp = r.par.tp, etp = r.Etp();
  if (group == "attention") return std::min(h, attn.heads * attn.qk_dim / tp);
  if (group == "mlp") return std::min(h, *m.shape.ffn_hidden_size / tp);
  if (group == "mamba_in" || group == "mamba_out")
    return std::min(h, static_cast<double>(m.hybrid->mamba_heads) * m.hybrid->mamba_head_dim / tp);
  const MoeShape& e = *m.moe;
  if (group == "latent_projections") return std::min<double>(h, e.latent_size);
  if (group == "shared_experts")
    return std::min(h, e.shared_expert_ffn_hidden_size.value_or(e.expert_ffn_hidden_size) / tp);
  const double tokens_per_expert = static_cast<double>(r.par.micro_batch) * r.seq / r.par.cp *
                                   e.top_k * r.par.ep / e.experts / (etp == 1 ? tp : 1.0);
  return std::min({e.RoutedWidth(h), e.expert_ffn_hidden_size / etp, tokens_per_expert});
}

// Recompute of MLA's up-projections (Megatron's recompute_modules mla_up_proj): the forward of the
// query and key/value up-projection matrices again, per token of one attention layer.
Result<double> RecomputedUpProjection(const Recipe& r, const std::vector<LayerMatrix>& attention) {
  if (r.par.recompute == "full" || !RecomputesModule(r.par.recompute, "mla_up_proj")) return 0.0;
  if (!r.model->mla)
    return Status::Invalid(Where(r) + ": recompute mla_up_proj needs an [mla] table");
  double flops = 0;
  for (const LayerMatrix& x : attention)
    if (x.name == "mla.q_up" || x.name == "mla.kv_up") flops += 2.0 * x.Params();
  return flops;
}

// The blocks' priced GEMM groups and the parameters of the whole stack: dense (every GPU of a
// tensor group holds a share) and the routed experts.
struct StackParams {
  double dense = 0, expert = 0;
};
Result<StackParams> AddBlockGemms(const Recipe& r, const AttentionShape& attn, StepWork& w) {
  const int layers_of[] = {w.attention_layers, w.mlp_layers, w.moe_layers, w.mamba_layers};
  const double top_k = r.model->moe ? r.model->moe->top_k : 0;
  const double experts = r.model->moe ? r.model->moe->experts : 0;
  StackParams params;
  std::map<std::string_view, double> per_layer;  // a group's weights one token passes per layer
  double up_projection = 0;
  for (Block block : {Block::kAttention, Block::kMlp, Block::kMoe, Block::kMamba}) {
    const int layers = layers_of[static_cast<int>(block)];
    if (layers <= 0) continue;
    auto matrices = BlockMatrices(*r.model, block);
    if (!matrices.ok()) return matrices.status();
    if (block == Block::kAttention) {
      auto recomputed = RecomputedUpProjection(r, *matrices);
      if (!recomputed.ok()) return recomputed.status();
      up_projection = *recomputed;
    }
    for (const LayerMatrix& x : *matrices) {
      const bool routed = x.rows == Rows::kRouted;
      per_layer[x.group] += x.Params() * (routed ? top_k : 1.0);
      (routed ? params.expert : params.dense) += x.Params() * (routed ? experts : 1.0) * layers;
    }
  }
  for (const PricedGroup& g : kPricedGroups) {
    const auto it = per_layer.find(g.name);
    if (it == per_layer.end()) continue;
    const int layers = layers_of[static_cast<int>(g.block)];
    const double extra = g.name == "attention" ? up_projection : 0.0;
    w.gemms.push_back({std::string(g.name), (GroupPasses(r, g) * it->second + extra) * layers,
                       GroupDim(r, g.name, attn)});
  }
  return params;
}

// The output head, and each multi-token-prediction module: its input projection (the hidden state
// and the next token's embedding, 2h → h), one layer of the model's kind and the output head
// again, all on the last stage (the GEMMs of one attention layer and, for a MoE model, one MoE
// layer's active experts, shared experts and router; a dense model's MLP otherwise).
Status AddHeadGemms(const Recipe& r, const AttentionShape& attn, StepWork& w) {
  const ModelSpec& m = *r.model;
  const double h = m.shape.hidden_size, vocab = *m.shape.vocab_size, tp = r.par.tp;
  const double passes = 6.0 + 2.0 * RecomputedShare(r.par, r.layers, "full");
  w.gemms.push_back({"logits", 6.0 * vocab * h, std::min(h, vocab / tp)});
  if (r.par.mtp_layers <= 0) return Status::Ok();
  double layer = attn.params;
  if (m.moe || m.shape.ffn_hidden_size) {
    auto matrices = BlockMatrices(m, m.moe ? Block::kMoe : Block::kMlp);
    if (!matrices.ok()) return matrices.status();
    layer += BlockParams(*matrices, m.moe ? m.moe->top_k : 0);
  }
  w.gemms.push_back(
      {"mtp", r.par.mtp_layers * passes * (2.0 * h * h + layer), std::min(h, vocab / tp)});
  w.gemms.push_back({"mtp_heads", r.par.mtp_layers * 6.0 * vocab * h, std::min(h, vocab / tp)});
  return Status::Ok();
}

// The attention core: 2·s·heads·(qk + v) per token forward, causal (half), × 3 with backward;
// selective or full recompute run its forward again. The Mamba scan: the terms of NVIDIA's
// Nemotron-H formula (model_spec.cc), executed as they are counted.
void AddCoreWork(const Recipe& r, const AttentionShape& attn, StepWork& w) {
  const double core_passes = 3.0 + RecomputedShare(r.par, r.layers, "core_attn");
  w.attention_core_flops_per_token = core_passes * 2.0 * r.seq * attn.heads *
                                     (attn.qk_dim + attn.v_dim) * 0.5 * w.attention_layers;
  w.attention_flops_per_token = w.attention_core_flops_per_token;
  w.score_elements_per_token = static_cast<double>(r.seq) * attn.heads * w.attention_layers;
  w.qk_head_dim = attn.qk_dim;
  w.v_head_dim = attn.v_dim;
  if (r.model->hybrid)
    w.attention_flops_per_token += 6.0 * w.mamba_layers * MambaScanPerToken(*r.model->hybrid);
}

// Parameters per GPU, data-parallel group sizes and the bytes of one collective of each kind.
void AddParallelWork(const Recipe& r, const StackParams& params, StepWork& w) {
  const ModelSpec& m = *r.model;
  const ModelShape& s = m.shape;
  const Parallelism& p = r.par;
  const double h = s.hidden_size, tp = p.tp;
  const double dense = params.dense + *s.vocab_size * h * (s.tied_embeddings ? 1 : 2);
  w.dense_params_per_gpu = dense / (tp * p.pp);
  w.expert_params_per_gpu = params.expert / (p.ep * r.Etp() * p.pp);
  const int dp = DataParallel(r);
  w.dense_dp = dp * p.cp;
  w.expert_dp = std::max(
      1, static_cast<int>(static_cast<int64_t>(dp) * p.cp * p.tp / (int64_t{p.ep} * r.Etp())));

  // Tokens of one context-parallel rank per micro-batch.
  const double tokens_rank = static_cast<double>(p.micro_batch) * r.seq / p.cp;
  w.tp_message_bytes = tokens_rank * h * kActivationBytes;
  if (m.mla) {
    w.cp_message_bytes = 0;  // MLA recipes run without context parallelism here
  } else if (s.kv_heads) {
    const double head_dim = s.head_dim ? *s.head_dim : h / *s.attention_heads;
    w.cp_message_bytes = tokens_rank * 2.0 * *s.kv_heads * head_dim / tp * kActivationBytes;
  }
  if (m.moe)
    w.ep_message_bytes = tokens_rank / tp * m.moe->top_k * m.moe->RoutedWidth(h) * kActivationBytes;
  w.pp_message_bytes = tokens_rank * h / tp * kActivationBytes;
}

}  // namespace

int DataParallel(const Recipe& r) { return r.par.gpus / (r.par.tp * r.par.pp * r.par.cp); }

int MicroBatches(const Recipe& r) {
  return static_cast<int>(r.par.global_batch / (int64_t{r.par.micro_batch} * DataParallel(r)));
}

Result<StepWork> ComputeStepWork(const Recipe& r) {
  const ModelSpec& m = *r.model;
  YS_RETURN_IF_ERROR(CheckRecipeDivides(r));
  if (!m.shape.vocab_size) return Status::Unsupported(m.path + ": [shape] vocab_size is not given");
  auto attn = AttentionOf(m);
  if (!attn.ok()) return attn.status();
  StepWork w;
  CountStackLayers(r, w);
  auto params = AddBlockGemms(r, *attn, w);
  if (!params.ok()) return params.status();
  AddCoreWork(r, *attn, w);
  YS_RETURN_IF_ERROR(AddHeadGemms(r, *attn, w));
  SetFormats(r, w.gemms);
  w.elementwise_width = static_cast<double>(m.shape.hidden_size) * r.layers;
  w.routed_width = m.moe ? static_cast<double>(m.moe->top_k) *
                               m.moe->RoutedWidth(m.shape.hidden_size) * w.moe_layers
                         : 0.0;

  // MFU's model FLOPs: the file's convention at this sequence; a stack of fewer layers scales it
  // (the embeddings and logits with it: an approximation for proxies only).
  auto model_flops = TrainingFlopsPerToken(m, r.seq);
  if (!model_flops.ok()) return model_flops.status();
  w.model_flops_per_token = *model_flops * (static_cast<double>(r.layers) / m.shape.layers);
  AddParallelWork(r, *params, w);
  return w;
}

}  // namespace ys::predict
