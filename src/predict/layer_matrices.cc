#include "predict/layer_matrices.h"

#include <algorithm>
#include <cstdint>

namespace ys::predict {
namespace {

std::string SpecWhere(const ModelSpec& spec) { return spec.path.empty() ? spec.name : spec.path; }

// A matrix of `rows` whose rank share is given apart from its whole.
LayerMatrix Matrix(std::string_view name, std::string_view group, Rows rows, double in, double out,
                   double in_rank, double out_rank) {
  LayerMatrix m;
  m.name = name;
  m.group = group;
  m.rows = rows;
  m.in = in;
  m.out = out;
  m.in_rank = in_rank;
  m.out_rank = out_rank;
  return m;
}

// An MLP's two matrices (the first gated: two outputs under SwiGLU), column- then row-parallel.
void AddMlp(std::vector<LayerMatrix>& out, std::string_view up, std::string_view down,
            std::string_view group, Rows rows, double h, int64_t ffn, bool gated, int tp) {
  const int64_t width = (gated ? 2 : 1) * ffn;
  out.push_back(
      Matrix(up, group, rows, h, static_cast<double>(width), h, static_cast<double>(width / tp)));
  out.push_back(
      Matrix(down, group, rows, static_cast<double>(ffn), h, static_cast<double>(ffn / tp), h));
}

Result<std::vector<LayerMatrix>> AttentionMatrices(const ModelSpec& spec, int tp) {
  const ModelShape& s = spec.shape;
  if (!s.attention_heads)
    return Status::Unsupported(SpecWhere(spec) + ": [shape] attention_heads is not given");
  const double h = s.hidden_size;
  const int heads = *s.attention_heads;
  const double heads_rank = heads / tp;
  std::vector<LayerMatrix> out;
  double v = 0;
  if (spec.mla) {
    const MlaShape& a = *spec.mla;
    const double qk = a.qk_nope_head_dim + a.qk_rope_head_dim;
    const double ql = a.q_lora_rank, kvl = a.kv_lora_rank;
    v = a.v_head_dim;
    const double up = a.qk_nope_head_dim + v;
    // The down-projections are not split in Megatron's MLA: every tensor-parallel rank runs them.
    out.push_back(Matrix("mla.q_down", "attention", Rows::kTokens, h, ql, h, ql));
    out.push_back(
        Matrix("mla.q_up", "attention", Rows::kTokens, ql, heads * qk, ql, heads_rank * qk));
    out.push_back(Matrix("mla.kv_down", "attention", Rows::kTokens, h, kvl + a.qk_rope_head_dim, h,
                         kvl + a.qk_rope_head_dim));
    out.push_back(
        Matrix("mla.kv_up", "attention", Rows::kTokens, kvl, heads * up, kvl, heads_rank * up));
  } else {
    if (!s.kv_heads)
      return Status::Unsupported(SpecWhere(spec) + ": [shape] kv_heads is not given");
    const double hd = s.head_dim ? *s.head_dim : h / heads;
    v = hd;
    // Fewer key/value heads than tensor-parallel ranks: each rank keeps one (Megatron replicates
    // them).
    const double kv_rank = std::max(1, *s.kv_heads / tp);
    out.push_back(Matrix("attn.qkv", "attention", Rows::kTokens, h,
                         (heads + 2.0 * *s.kv_heads) * hd, h, (heads_rank + 2 * kv_rank) * hd));
  }
  LayerMatrix o = Matrix("attn.out", "attention", Rows::kTokens, heads * v, h, heads_rank * v, h);
  o.after_core = true;
  out.push_back(o);
  return out;
}

Result<std::vector<LayerMatrix>> MoeMatrices(const ModelSpec& spec, int tp) {
  if (!spec.moe) return Status::Unsupported(SpecWhere(spec) + ": MoE layers without [moe]");
  const MoeShape& m = *spec.moe;
  const ModelShape& s = spec.shape;
  const double h = s.hidden_size;
  std::vector<LayerMatrix> out;
  out.push_back(Matrix("moe.router", "router", Rows::kShard, h, m.experts, h, m.experts));
  if (m.shared_experts > 0) {
    const int64_t ffn =
        int64_t{m.shared_expert_ffn_hidden_size.value_or(m.expert_ffn_hidden_size)} *
        m.shared_experts;
    AddMlp(out, "moe.shared.up", "moe.shared.down", "shared_experts", Rows::kTokens, h, ffn,
           s.gated_mlp, tp);
  }
  // LatentMoE: the routed block works at the latent width, between a projection down before the
  // dispatch and one up after the combine.
  const double routed = m.RoutedWidth(h);
  if (m.latent_size > 0)
    out.push_back(
        Matrix("moe.latent_down", "latent_projections", Rows::kShard, h, routed, h, routed));
  AddMlp(out, "moe.experts.up", "moe.experts.down", "experts", Rows::kRouted, routed,
         m.expert_ffn_hidden_size, s.gated_mlp, 1);
  if (m.latent_size > 0)
    out.push_back(
        Matrix("moe.latent_up", "latent_projections", Rows::kShard, routed, h, routed, h));
  return out;
}

Result<std::vector<LayerMatrix>> MambaMatrices(const ModelSpec& spec, int tp) {
  if (!spec.hybrid) return Status::Unsupported(SpecWhere(spec) + ": Mamba layers without [hybrid]");
  const HybridShape& y = *spec.hybrid;
  const double h = spec.shape.hidden_size;
  const int64_t d_inner = int64_t{y.mamba_heads} * y.mamba_head_dim;
  // in_proj: x and z (2·d_inner), B and C (2·groups·state), dt (heads); out_proj: d_inner → h.
  const int64_t mix = 2 * d_inner + int64_t{2} * y.groups * y.ssm_state_size + y.mamba_heads;
  std::vector<LayerMatrix> out;
  out.push_back(Matrix("mamba.in_proj", "mamba_in", Rows::kTokens, h, static_cast<double>(mix), h,
                       static_cast<double>(mix / tp)));
  out.push_back(Matrix("mamba.out_proj", "mamba_out", Rows::kTokens, static_cast<double>(d_inner),
                       h, static_cast<double>(d_inner / tp), h));
  return out;
}

}  // namespace

const char* LayerKindName(LayerKind k) {
  switch (k) {
    case LayerKind::kDense:
      return "dense";
    case LayerKind::kMoe:
      return "moe";
    case LayerKind::kMamba:
      return "mamba";
    case LayerKind::kAttention:
      return "attention";
    case LayerKind::kMlp:
      return "mlp";
    case LayerKind::kMoeMlp:
      return "moe_mlp";
  }
  return "?";
}

std::vector<Block> BlocksOf(LayerKind k) {
  switch (k) {
    case LayerKind::kDense:
      return {Block::kAttention, Block::kMlp};
    case LayerKind::kMoe:
      return {Block::kAttention, Block::kMoe};
    case LayerKind::kMamba:
      return {Block::kMamba};
    case LayerKind::kAttention:
      return {Block::kAttention};
    case LayerKind::kMlp:
      return {Block::kMlp};
    case LayerKind::kMoeMlp:
      return {Block::kMoe};
  }
  return {};
}

Result<std::vector<LayerMatrix>> BlockMatrices(const ModelSpec& spec, Block block, int tp) {
  tp = std::max(1, tp);
  switch (block) {
    case Block::kAttention:
      return AttentionMatrices(spec, tp);
    case Block::kMlp: {
      const ModelShape& s = spec.shape;
      if (!s.ffn_hidden_size)
        return Status::Unsupported(SpecWhere(spec) + ": [shape] ffn_hidden_size is not given");
      std::vector<LayerMatrix> out;
      AddMlp(out, "mlp.up", "mlp.down", "mlp", Rows::kTokens, s.hidden_size, *s.ffn_hidden_size,
             s.gated_mlp, tp);
      return out;
    }
    case Block::kMoe:
      return MoeMatrices(spec, tp);
    case Block::kMamba:
      return MambaMatrices(spec, tp);
  }
  return Status::Invalid("unknown block");
}

double BlockParams(const std::vector<LayerMatrix>& matrices, double routed_copies) {
  double sum = 0;
  for (const LayerMatrix& m : matrices)
    sum += m.Params() * (m.rows == Rows::kRouted ? routed_copies : 1.0);
  return sum;
}

}  // namespace ys::predict
