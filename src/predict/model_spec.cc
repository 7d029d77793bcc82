#include "predict/model_spec.h"

#include <algorithm>
#include <span>

#include "core/text.h"
#include "predict/layer_matrices.h"

namespace ys::predict {

const char* ArchitectureName(Architecture a) {
  switch (a) {
    case Architecture::kDense:
      return "dense";
    case Architecture::kMoe:
      return "moe";
    case Architecture::kHybrid:
      return "hybrid";
  }
  return "?";
}

Result<AttentionShape> AttentionOf(const ModelSpec& spec) {
  auto matrices = BlockMatrices(spec, Block::kAttention);
  if (!matrices.ok()) return matrices.status();
  AttentionShape a;
  a.heads = *spec.shape.attention_heads;
  a.params = BlockParams(*matrices, 0);
  if (spec.mla) {
    a.qk_dim = spec.mla->qk_nope_head_dim + spec.mla->qk_rope_head_dim;
    a.v_dim = spec.mla->v_head_dim;
  } else {
    const ModelShape& s = spec.shape;
    a.qk_dim = a.v_dim = s.head_dim ? *s.head_dim : s.hidden_size / a.heads;
  }
  return a;
}

namespace {

// The "+"-joined parts of a cuda_graphs value.
bool Names(std::string_view value, std::string_view part) {
  const auto parts = Split(value, '+');
  return std::find(parts.begin(), parts.end(), part) != parts.end();
}

// Empty when every "+"-joined part of `value` is one of `known`, else `expected`.
std::string CheckPlusJoined(std::string_view value, std::span<const std::string_view> known,
                            const char* expected) {
  for (std::string_view part : Split(value, '+')) {
    if (std::find(known.begin(), known.end(), part) == known.end()) return expected;
  }
  return "";
}

}  // namespace

bool CapturesScope(std::string_view cuda_graphs, std::string_view scope) {
  return cuda_graphs == "full_iteration" || Names(cuda_graphs, scope);
}

std::string CheckCudaGraphs(std::string_view cuda_graphs) {
  static constexpr std::string_view kScopes[] = {"attn", "mamba",      "mlp",
                                                 "moe",  "moe_router", "moe_preprocess"};
  if (cuda_graphs == "none" || cuda_graphs == "full_iteration") return "";
  return CheckPlusJoined(cuda_graphs, kScopes,
                         "none, full_iteration, or scopes joined by + of attn, mamba, mlp, moe, "
                         "moe_router, moe_preprocess");
}

bool RecomputesModule(std::string_view recompute, std::string_view module) {
  if (recompute == "full") return true;
  if (recompute == "selective") return module == "core_attn";
  return Names(recompute, module);
}

double RecomputedShare(const Parallelism& p, int layers, std::string_view module) {
  if (p.recompute != "full") return module != "full" && RecomputesModule(p.recompute, module);
  if (!p.recompute_layers) return 1.0;
  const int chunks = std::max(1, p.pp * p.vp.value_or(1));
  const int per_chunk = std::max(1, (layers + chunks - 1) / chunks);
  return std::min(1.0, static_cast<double>(*p.recompute_layers) / per_chunk);
}

std::string CheckRecompute(std::string_view recompute) {
  static constexpr std::string_view kModules[] = {
      "core_attn", "mla_up_proj", "mlp", "moe", "shared_experts", "moe_act", "layernorm"};
  if (recompute == "none" || recompute == "selective" || recompute == "full") return "";
  return CheckPlusJoined(recompute, kModules,
                         "none, selective, full, or modules joined by + of core_attn, "
                         "mla_up_proj, mlp, moe, shared_experts, moe_act, layernorm");
}

std::string ModulePrecision(std::string_view module_precision, std::string_view module) {
  if (module_precision.empty()) return "";
  for (std::string_view part : Split(module_precision, '+')) {
    const size_t colon = part.find(':');
    if (colon != std::string_view::npos && part.substr(0, colon) == module)
      return std::string(part.substr(colon + 1));
  }
  return "";
}

std::string CheckModulePrecision(std::string_view module_precision) {
  static constexpr std::string_view kModules[] = {
      "attn", "mlp", "experts", "shared_experts", "latent", "mamba_in", "mamba_out", "mtp"};
  static constexpr const char* kExpected =
      "module:format pairs joined by +, modules attn, mlp, experts, shared_experts, latent, "
      "mamba_in, mamba_out, mtp, formats bf16 or fp8";
  if (module_precision.empty()) return "";
  for (std::string_view part : Split(module_precision, '+')) {
    const size_t colon = part.find(':');
    if (colon == std::string_view::npos) return kExpected;
    const std::string_view module = part.substr(0, colon), format = part.substr(colon + 1);
    if (std::find(std::begin(kModules), std::end(kModules), module) == std::end(kModules) ||
        (format != "bf16" && format != "fp8"))
      return kExpected;
  }
  return "";
}

double MambaScanPerToken(const HybridShape& y) {
  const double d_inner = static_cast<double>(y.mamba_heads) * y.mamba_head_dim;
  return d_inner * y.chunk_size + 2.0 * d_inner * y.ssm_state_size +
         static_cast<double>(y.chunk_size) * y.ssm_state_size * y.groups;
}

namespace {

// Parameters of one block of the model (layer_matrices.h), the routed experts `routed_copies`
// times.
Result<double> ParamsOf(const ModelSpec& spec, Block block, double routed_copies = 0) {
  auto matrices = BlockMatrices(spec, block);
  if (!matrices.ok()) return matrices.status();
  return BlockParams(*matrices, routed_copies);
}

}  // namespace

Result<MoeLayerParams> MoeLayerOf(const ModelSpec& spec) {
  auto matrices = BlockMatrices(spec, Block::kMoe);
  if (!matrices.ok()) return matrices.status();
  const double common = BlockParams(*matrices, 0);
  return MoeLayerParams{common, BlockParams(*matrices, spec.moe->experts) - common,
                        BlockParams(*matrices, spec.moe->top_k) - common};
}

Result<ParameterCount> CountParameters(const ModelSpec& spec) {
  const ModelShape& s = spec.shape;
  if (!s.vocab_size) return Status::Unsupported(spec.path + ": [shape] vocab_size is not given");
  const double embed = static_cast<double>(*s.vocab_size) * s.hidden_size;
  const double head = s.tied_embeddings ? 0 : embed;
  auto attn = ParamsOf(spec, Block::kAttention);
  if (!attn.ok()) return attn.status();
  // Layers of each block: a hybrid stack's counts, else every layer's attention beside a dense MLP
  // or a MoE block.
  double attention_layers = s.layers, mlp_layers = s.layers, moe_layers = 0, mamba_layers = 0;
  if (spec.hybrid) {
    const HybridShape& y = *spec.hybrid;
    attention_layers = y.attention_layers;
    mlp_layers = y.mlp_layers;
    moe_layers = y.moe_layers;
    mamba_layers = y.mamba_layers;
  } else if (spec.moe) {
    moe_layers = spec.moe->MoeLayers(s.layers);
    mlp_layers = s.layers - moe_layers;
  }
  double body = attention_layers * *attn;
  if (mlp_layers > 0) {
    auto mlp = ParamsOf(spec, Block::kMlp);
    if (!mlp.ok()) return mlp.status();
    body += mlp_layers * *mlp;
  }
  if (mamba_layers > 0) {
    auto mamba = ParamsOf(spec, Block::kMamba);
    if (!mamba.ok()) return mamba.status();
    body += mamba_layers * *mamba;
  }
  ParameterCount c;
  c.total = c.active = embed + head + body;
  if (moe_layers > 0) {
    auto e = MoeLayerOf(spec);
    if (!e.ok()) return e.status();
    c.total += moe_layers * (e->common + e->routed_total);
    c.active += moe_layers * (e->common + e->routed_active);
  }
  c.active_matmul = c.active - embed;  // the input embedding is a lookup
  return c;
}

Result<double> TrainingFlopsPerToken(const ModelSpec& spec, std::optional<int> seq_length) {
  auto params = CountParameters(spec);
  if (!params.ok()) return params.status();
  auto attn = AttentionOf(spec);
  if (!attn.ok()) return attn.status();
  double seq = seq_length.value_or(spec.shape.seq_length);
  int attention_layers = spec.hybrid ? spec.hybrid->attention_layers : spec.shape.layers;
  // Scores (QKᵀ) and the value product, non-causal: 2·s·heads·(qk + v) forward, ×3 with backward.
  double attention = 6.0 * seq * attn->heads * (attn->qk_dim + attn->v_dim) * attention_layers;
  double scan = 0;
  if (spec.hybrid) {
    const HybridShape& y = *spec.hybrid;
    // NVIDIA's Nemotron-H formula (dgxc-benchmarking v25.07 nemotron-h/README.md, Notes), per
    // token.
    scan = 6.0 * y.mamba_layers * MambaScanPerToken(y);
  }
  return 6.0 * params->active_matmul + attention + scan;
}

}  // namespace ys::predict
