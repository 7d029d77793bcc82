#include "predict/step_flops.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

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

}  // namespace

int DataParallel(const Recipe& r) { return r.par.gpus / (r.par.tp * r.par.pp * r.par.cp); }

int MicroBatches(const Recipe& r) {
  return static_cast<int>(r.par.global_batch / (int64_t{r.par.micro_batch} * DataParallel(r)));
}

Result<StepWork> ComputeStepWork(const Recipe& r) {
  const ModelSpec& m = *r.model;
  const ModelShape& s = m.shape;
  const Parallelism& p = r.par;
  const int model_parallel = p.tp * p.pp * p.cp;
  if (p.gpus % model_parallel != 0) {
    return Status::Invalid(Where(r) + ": gpus " + std::to_string(p.gpus) +
                           " is not a multiple of tp·pp·cp = " + std::to_string(model_parallel));
  }
  const int64_t per_step = int64_t{p.micro_batch} * DataParallel(r);
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
  if (m.moe && stage_gpus % (r.Etp() * p.ep) != 0) {
    return Status::Invalid(Where(r) + ": etp·ep = " + std::to_string(r.Etp()) + "·" +
                           std::to_string(p.ep) + " does not divide the " +
                           std::to_string(stage_gpus) + " GPUs of one pipeline stage (gpus / pp)" +
                           (p.etp ? ""
                                  : "; etp defaults to tp: give --etp (recipes with ep > 1 "
                                    "often run etp 1)"));
  }
  if (!s.vocab_size) return Status::Unsupported(m.path + ": [shape] vocab_size is not given");
  auto attn = AttentionOf(m);
  if (!attn.ok()) return attn.status();

  // Layer counts of a stack of r.layers (a proxy may run fewer than the file's).
  const double scale = static_cast<double>(r.layers) / s.layers;
  int mamba = 0, mlp_layers = 0, moe_layers = 0;
  int attention_layers = r.layers;
  if (m.hybrid) {
    attention_layers = static_cast<int>(m.hybrid->attention_layers * scale + 0.5);
    mamba = static_cast<int>(m.hybrid->mamba_layers * scale + 0.5);
    moe_layers = static_cast<int>(m.hybrid->moe_layers * scale + 0.5);
    mlp_layers = std::max(0, r.layers - attention_layers - mamba - moe_layers);
  } else if (m.moe) {
    moe_layers = m.moe->MoeLayers(r.layers);
    mlp_layers = r.layers - moe_layers;
  } else {
    mlp_layers = r.layers;
  }
  if (mlp_layers > 0 && !s.ffn_hidden_size)
    return Status::Unsupported(m.path + ": [shape] ffn_hidden_size is not given");

  // fwd + bwd = 3 passes of 2 FLOPs per weight; a module whose forward is recomputed adds one
  // in the share of layers that recompute it (model_spec.h RecomputedShare; the attention
  // projections, Mamba layers and MTP modules only under "full").
  auto passes_of = [&](std::string_view module) {
    return 6.0 + 2.0 * RecomputedShare(p, r.layers, module);
  };
  const double passes = passes_of("full");
  const double h = s.hidden_size;
  const double tp = p.tp, etp = r.Etp();
  const double tokens_mb = static_cast<double>(p.micro_batch) * r.seq;  // per replica
  StepWork w;
  w.attention_layers = attention_layers;
  w.moe_layers = moe_layers;
  w.mlp_layers = mlp_layers;
  w.mamba_layers = mamba;
  // Recompute of MLA's up-projections (Megatron's recompute_modules mla_up_proj): their forward
  // again, 2 FLOPs per weight of the query (q_lora_rank × heads × qk head dim) and key/value
  // (kv_lora_rank × heads × (qk_nope + v)) up-projection matrices.
  double recomputed = 0;
  if (p.recompute != "full" && RecomputesModule(p.recompute, "mla_up_proj")) {
    if (!m.mla) return Status::Invalid(Where(r) + ": recompute mla_up_proj needs an [mla] table");
    const MlaShape& a = *m.mla;
    recomputed = 2.0 * attn->heads *
                 (static_cast<double>(a.q_lora_rank) * (a.qk_nope_head_dim + a.qk_rope_head_dim) +
                  static_cast<double>(a.kv_lora_rank) * (a.qk_nope_head_dim + a.v_head_dim));
  }
  w.gemms.push_back({"attention", (passes * attn->params + recomputed) * attention_layers,
                     std::min(h, attn->heads * attn->qk_dim / tp)});
  // Attention core: 2·s·heads·(qk + v) per token forward, causal (half), × 3 with backward;
  // selective or full recompute run its forward again.
  const double core_passes = 3.0 + RecomputedShare(p, r.layers, "core_attn");
  w.attention_core_flops_per_token = core_passes * 2.0 * r.seq * attn->heads *
                                     (attn->qk_dim + attn->v_dim) * 0.5 * attention_layers;
  w.attention_flops_per_token = w.attention_core_flops_per_token;
  w.score_elements_per_token = static_cast<double>(r.seq) * attn->heads * attention_layers;
  w.qk_head_dim = attn->qk_dim;
  w.v_head_dim = attn->v_dim;
  double dense_params = attn->params * attention_layers;
  double expert_params = 0;
  double width = h * r.layers;
  if (mlp_layers > 0) {
    const double ffn = *s.ffn_hidden_size;
    const double mlp = MlpParams(h, ffn, s.gated_mlp);
    w.gemms.push_back({"mlp", passes_of("mlp") * mlp * mlp_layers, std::min(h, ffn / tp)});
    dense_params += mlp * mlp_layers;
  }
  if (m.moe) {
    const MoeShape& e = *m.moe;
    const double expert = MlpParams(e.RoutedWidth(h), e.expert_ffn_hidden_size, s.gated_mlp);
    // Tokens one local expert sees per micro-batch: the EP group's tokens, top_k copies each,
    // spread over the experts (with tensor-parallel attention and ETP 1, each TP rank routes its
    // own sequence shard).
    const double tokens_per_expert =
        tokens_mb / p.cp * e.top_k * p.ep / e.experts / (etp == 1 ? tp : 1.0);
    const double routed = e.RoutedWidth(h);
    w.gemms.push_back({"experts", passes_of("moe") * expert * e.top_k * moe_layers,
                       std::min({routed, e.expert_ffn_hidden_size / etp, tokens_per_expert})});
    expert_params = expert * e.experts * moe_layers;
    w.routed_width = static_cast<double>(e.top_k) * routed * moe_layers;
    const double router = h * e.experts;
    dense_params += router * moe_layers;
    if (e.latent_size > 0) {
      // LatentMoE's projections hidden → latent before the dispatch and back after the combine,
      // on every token.
      const double latent = 2.0 * h * e.latent_size;
      w.gemms.push_back({"latent_projections", passes_of("moe") * latent * moe_layers,
                         std::min<double>(h, e.latent_size)});
      dense_params += latent * moe_layers;
    }
    if (e.shared_experts > 0) {
      const double ffn = e.shared_expert_ffn_hidden_size.value_or(e.expert_ffn_hidden_size);
      const double shared = e.shared_experts * MlpParams(h, ffn, s.gated_mlp);
      const double shared_passes = std::max(passes_of("moe"), passes_of("shared_experts"));
      w.gemms.push_back(
          {"shared_experts", shared_passes * shared * moe_layers, std::min(h, ffn / tp)});
      dense_params += shared * moe_layers;
    }
  }
  if (m.hybrid) {
    const HybridShape& y = *m.hybrid;
    const double d_inner = static_cast<double>(y.mamba_heads) * y.mamba_head_dim;
    const double mix =
        h * (2 * d_inner + 2.0 * y.groups * y.ssm_state_size + y.mamba_heads) + d_inner * h;
    const double out_proj = d_inner * h;
    w.gemms.push_back({"mamba_in", passes * (mix - out_proj) * mamba, std::min(h, d_inner / tp)});
    w.gemms.push_back({"mamba_out", passes * out_proj * mamba, std::min(h, d_inner / tp)});
    dense_params += mix * mamba;
    // The scan terms of NVIDIA's Nemotron-H formula (model_spec.cc), executed as they are counted.
    w.attention_flops_per_token += 6.0 * mamba * MambaScanPerToken(y);
  }
  const double vocab = *s.vocab_size;
  w.gemms.push_back({"logits", 6.0 * vocab * h, std::min(h, vocab / tp)});
  if (p.mtp_layers > 0) {
    // Each multi-token-prediction module: its input projection (the hidden state and the next
    // token's embedding, 2h → h), one layer of the model's kind and the output head again, all
    // on the last stage (the GEMMs of one attention layer and, for a MoE model, one MoE layer's
    // active experts, shared experts and router; a dense model's MLP otherwise).
    double layer = attn->params;
    if (m.moe) {
      const MoeLayerParams e = MoeLayerOf(*m.moe, h, s.gated_mlp);
      layer += e.common + e.routed_active;
    } else if (s.ffn_hidden_size) {
      layer += MlpParams(h, *s.ffn_hidden_size, s.gated_mlp);
    }
    w.gemms.push_back(
        {"mtp", p.mtp_layers * passes * (2.0 * h * h + layer), std::min(h, vocab / tp)});
    w.gemms.push_back({"mtp_heads", p.mtp_layers * 6.0 * vocab * h, std::min(h, vocab / tp)});
  }
  SetFormats(r, w.gemms);
  dense_params += vocab * h * (s.tied_embeddings ? 1 : 2);
  w.elementwise_width = width;

  // MFU's model FLOPs: the file's convention at this sequence; a stack of fewer layers scales it
  // (the embeddings and logits with it: an approximation for proxies only).
  auto model_flops = TrainingFlopsPerToken(m, r.seq);
  if (!model_flops.ok()) return model_flops.status();
  w.model_flops_per_token = *model_flops * scale;

  w.dense_params_per_gpu = dense_params / (tp * p.pp);
  w.expert_params_per_gpu = expert_params / (p.ep * etp * p.pp);
  const int dp = DataParallel(r);
  w.dense_dp = dp * p.cp;
  w.expert_dp = std::max(
      1, static_cast<int>(static_cast<int64_t>(dp) * p.cp * p.tp / (int64_t{p.ep} * r.Etp())));

  const double tokens_rank = tokens_mb / p.cp;  // tokens of one context-parallel rank
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
  return w;
}

}  // namespace ys::predict
