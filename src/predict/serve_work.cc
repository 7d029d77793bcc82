#include "predict/serve_work.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace ys::predict {
namespace {

constexpr double kBf16Bytes = 2;
// A Mamba-2 convolution of kernel 4 keeps the last 3 inputs of its channels.
constexpr double kConvWindow = 3;

int MoeLayersOf(const ModelSpec& m) {
  if (m.hybrid) return m.hybrid->moe_layers;
  return m.moe ? m.moe->MoeLayers(m.shape.layers) : 0;
}

// The attention side: FLOPs per context position and KV bytes per token.
Status AddAttention(const ModelSpec& m, ServeWork& w) {
  const int layers = m.hybrid ? m.hybrid->attention_layers : m.shape.layers;
  if (layers == 0) return Status::Ok();
  auto attn = AttentionOf(m);
  if (!attn.ok()) return attn.status();
  w.attention_flops_per_position = 2.0 * attn->heads * (attn->qk_dim + attn->v_dim) * layers;
  w.kv_heads = m.shape.kv_heads.value_or(static_cast<int>(attn->heads));
  if (m.mla) {
    w.kv_split_by_tp = false;
    w.kv_bytes_per_token = static_cast<double>(m.mla->kv_lora_rank + m.mla->qk_rope_head_dim) *
                           layers * w.kv_bytes_per_value;
  } else {
    w.kv_bytes_per_token = 2.0 * w.kv_heads * attn->v_dim * layers * w.kv_bytes_per_value;
  }
  return Status::Ok();
}

void AddMamba(const HybridShape& y, ServeWork& w) {
  const double d_inner = static_cast<double>(y.mamba_heads) * y.mamba_head_dim;
  const double ssm = d_inner * y.ssm_state_size;
  const double conv = kConvWindow * (d_inner + 2.0 * y.groups * y.ssm_state_size);
  w.state_bytes_per_sequence = y.mamba_layers * (ssm + conv) * kBf16Bytes;
  w.scan_flops_per_token = 2.0 * y.mamba_layers * MambaScanPerToken(y);
}

}  // namespace

double BytesPerParam(std::string_view dtype) {
  if (dtype == "fp32") return 4;  // the CPU serving proxy serves fp32
  if (dtype == "bf16") return 2;
  if (dtype == "fp8") return 1;
  if (dtype == "nvfp4") return 0.5 + 1.0 / 16;  // one fp8 scale per 16 values
  return 0;
}

double KvBytesPerValue(std::string_view dtype) {
  if (dtype == "fp32") return 4;
  return dtype == "bf16" ? 2 : 1;
}

Result<ServeWork> ComputeServeWork(const ModelSpec& m, std::string_view dtype) {
  ServeWork w;
  w.bytes_per_param = BytesPerParam(dtype);
  if (w.bytes_per_param == 0) {
    return Status::Invalid("--dtype " + std::string(dtype) + ": expected bf16, fp8, nvfp4 or fp32");
  }
  w.kv_bytes_per_value = KvBytesPerValue(dtype);
  auto params = CountParameters(m);
  if (!params.ok()) return params.status();
  const double embed = static_cast<double>(*m.shape.vocab_size) * m.shape.hidden_size;
  const double head = embed;  // tied or not, one vocab × hidden matrix is the head
  const double input_embed = m.shape.tied_embeddings ? 0 : embed;
  w.moe_layers = MoeLayersOf(m);
  double routed_total = 0, routed_active = 0;
  if (w.moe_layers > 0) {
    auto e = MoeLayerOf(m);
    if (!e.ok()) return e.status();
    routed_total = w.moe_layers * e->routed_total;
    routed_active = w.moe_layers * e->routed_active;
    w.experts = m.moe->experts;
    w.top_k = m.moe->top_k;
  }
  const double body = params->total - head - input_embed - routed_total;
  w.body_bytes = body * w.bytes_per_param;
  w.routed_bytes = routed_total * w.bytes_per_param;
  // bf16 unless the serving dtype is wider (fp32: every matrix in fp32).
  const double table_bytes = std::max(kBf16Bytes, w.bytes_per_param);
  w.head_bytes = head * table_bytes;
  w.embed_bytes = input_embed * table_bytes;
  w.dense_flops_per_token = 2.0 * (params->active_matmul - routed_active);
  w.head_flops_per_token = 2.0 * head;
  w.routed_flops_per_token = 2.0 * routed_active;
  w.hidden = m.shape.hidden_size;
  w.layers = m.shape.layers;
  w.allreduce_points = m.hybrid ? m.shape.layers : 2 * m.shape.layers;
  YS_RETURN_IF_ERROR(AddAttention(m, w));
  if (m.hybrid) AddMamba(*m.hybrid, w);
  return w;
}

double ExpectedDistinctExperts(int experts, int top_k, double tokens) {
  if (experts <= 0) return 0;
  const double miss = 1.0 - static_cast<double>(top_k) / experts;
  return experts * (1.0 - std::pow(std::max(0.0, miss), tokens));
}

}  // namespace ys::predict
