#include "workloads/proxy_plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

namespace ys::workloads {

const char* OpClassName(OpClass c) {
  switch (c) {
    case OpClass::kGemmFwd:
      return "GEMM fwd";
    case OpClass::kGemmBwd:
      return "GEMM bwd";
    case OpClass::kTpComm:
      return "TP comm";
    case OpClass::kDpComm:
      return "DP comm";
    case OpClass::kMoeAllToAll:
      return "MoE a2a";
  }
  return "?";
}

const char* PlanCollectiveName(PlanCollective c) {
  switch (c) {
    case PlanCollective::kAllGather:
      return "all_gather";
    case PlanCollective::kReduceScatter:
      return "reduce_scatter";
    case PlanCollective::kAllToAll:
      return "alltoall";
  }
  return "?";
}

const char* CommGroupName(CommGroup g) {
  switch (g) {
    case CommGroup::kTp:
      return "tp";
    case CommGroup::kDp:
      return "dp";
    case CommGroup::kEp:
      return "ep";
  }
  return "?";
}

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

std::string ProxyOp::Key() const {
  if (is_gemm) return fmt::format("gemm {}x{}x{}x{}", gemm.m, gemm.n, gemm.k, gemm.batch);
  return fmt::format("{} {} {}", CommGroupName(group), PlanCollectiveName(collective), bytes);
}

double ProxyPlan::StepGemmFlops() const {
  double per_mb = 0, once = 0;
  for (const ProxyOp& op : micro_batch_ops)
    if (op.is_gemm) per_mb += op.gemm.Flops();
  for (const ProxyOp& op : step_ops)
    if (op.is_gemm) once += op.gemm.Flops();
  return per_mb * micro_batches + once;
}

namespace {

// The whole model's layers by kind, in the order the plan runs them.
std::vector<std::pair<LayerKind, int>> LayerCounts(const predict::ModelSpec& spec) {
  if (spec.hybrid)
    return {{LayerKind::kMamba, spec.hybrid->mamba_layers},
            {LayerKind::kAttention, spec.hybrid->attention_layers},
            {LayerKind::kMlp, spec.hybrid->mlp_layers},
            {LayerKind::kMoeMlp, spec.hybrid->moe_layers}};
  if (spec.moe)
    return {{LayerKind::kDense, spec.moe->dense_layers},
            {LayerKind::kMoe, spec.shape.layers - spec.moe->dense_layers}};
  return {{LayerKind::kDense, spec.shape.layers}};
}

// `n` layers in the model's mix of kinds: largest remainder, each present kind at least once when
// n allows it (a scaled-down proxy of DeepSeek-V3 keeps a dense layer beside its MoE layers).
std::vector<LayerKind> PickLayers(const predict::ModelSpec& spec, int n) {
  auto counts = LayerCounts(spec);
  std::erase_if(counts, [](const auto& c) { return c.second <= 0; });
  int total = 0;
  for (const auto& c : counts) total += c.second;
  std::vector<int> take(counts.size());
  std::vector<std::pair<double, size_t>> rest;
  int used = 0;
  for (size_t i = 0; i < counts.size(); ++i) {
    double exact = static_cast<double>(n) * counts[i].second / total;
    take[i] = static_cast<int>(std::floor(exact));
    used += take[i];
    rest.push_back({exact - take[i], i});
  }
  std::sort(rest.begin(), rest.end(), [](auto a, auto b) { return a.first > b.first; });
  for (size_t j = 0; used < n; j = (j + 1) % rest.size(), ++used) ++take[rest[j].second];
  if (n >= static_cast<int>(counts.size())) {
    for (size_t i = 0; i < take.size(); ++i) {
      if (take[i] > 0) continue;
      auto big = std::max_element(take.begin(), take.end()) - take.begin();
      --take[big];
      ++take[i];
    }
  }
  std::vector<LayerKind> out;
  for (size_t i = 0; i < counts.size(); ++i) out.insert(out.end(), take[i], counts[i].first);
  return out;
}

// Builds one layer's forward ops; backward follows from them.
class LayerBuilder {
 public:
  LayerBuilder(std::string prefix, int dtype_bytes)
      : prefix_(std::move(prefix)), bytes_(dtype_bytes) {}

  void Gemm(const std::string& name, int64_t m, int64_t n, int64_t k, int64_t batch = 1,
            bool weight = true) {
    ProxyOp op;
    op.name = prefix_ + name;
    op.gemm = {m, n, k, batch};
    fwd_.push_back(op);
    if (weight) weight_params_ += static_cast<double>(k) * n * batch;
  }
  void Comm(const std::string& name, PlanCollective c, CommGroup g, uint64_t elements) {
    ProxyOp op;
    op.name = prefix_ + name;
    op.is_gemm = false;
    op.cls = g == CommGroup::kEp ? OpClass::kMoeAllToAll : OpClass::kTpComm;
    op.collective = c;
    op.group = g;
    op.bytes = elements * bytes_;
    fwd_.push_back(op);
  }
  std::vector<ProxyOp> Forward() const {
    std::vector<ProxyOp> out = fwd_;
    for (ProxyOp& op : out) op.name += " fwd";
    return out;
  }
  // Reverse order; each GEMM's dgrad and wgrad; an all-gather's gradient is a reduce-scatter and
  // the reverse; an all-to-all's is an all-to-all.
  std::vector<ProxyOp> Backward() const {
    std::vector<ProxyOp> out;
    for (auto it = fwd_.rbegin(); it != fwd_.rend(); ++it) {
      ProxyOp op = *it;
      if (op.is_gemm) {
        const GemmShape3 f = op.gemm;
        op.cls = OpClass::kGemmBwd;
        ProxyOp d = op, w = op;
        d.name += " dgrad";
        d.gemm = {f.m, f.k, f.n, f.batch};
        w.name += " wgrad";
        w.gemm = {f.k, f.n, f.m, f.batch};
        out.push_back(d);
        out.push_back(w);
      } else {
        if (op.collective == PlanCollective::kAllGather)
          op.collective = PlanCollective::kReduceScatter;
        else if (op.collective == PlanCollective::kReduceScatter)
          op.collective = PlanCollective::kAllGather;
        op.name += " bwd";
        out.push_back(op);
      }
    }
    return out;
  }
  double weight_params() const { return weight_params_; }

 private:
  std::string prefix_;
  int bytes_;
  std::vector<ProxyOp> fwd_;
  double weight_params_ = 0;
};

int Down(int x, int scale) { return std::max(1, x / scale); }

}  // namespace

int CpuScaleFactor(const predict::ModelSpec& spec, const predict::Parallelism& par) {
  int by_hidden = std::max(1, spec.shape.hidden_size / 256);
  int by_heads = std::max(1, spec.shape.attention_heads.value_or(1) / std::max(1, par.tp));
  int limit = std::min(by_hidden, by_heads);
  int f = 1;
  while (f * 2 <= limit) f *= 2;
  return f;
}

Result<predict::Parallelism> CpuRecipe(const predict::ModelSpec& spec, std::string* why) {
  if (spec.parallelism.empty()) return Status::NotFound(spec.path + ": no [[parallelism]] entry");
  const predict::Parallelism* pick = nullptr;
  for (const predict::Parallelism& p : spec.parallelism)
    if (!pick && p.chip == "h100" && p.dtype == "bf16") pick = &p;
  std::string how = "the first h100 bf16 recipe";
  if (!pick) {
    for (const predict::Parallelism& p : spec.parallelism)
      if (!pick && p.chip == "h100") pick = &p;
    how = "the first h100 recipe (the file has no h100 bf16 entry)";
  }
  if (!pick) {
    pick = &spec.parallelism.front();
    how = "the file's first recipe (it has no h100 entry)";
  }
  if (why)
    *why =
        fmt::format("{}: {}/{}/{} GPUs, TP {} PP {} CP {} EP {}, micro batch {}, global batch {}",
                    how, pick->chip, pick->dtype, pick->gpus, pick->tp, pick->pp, pick->cp,
                    pick->ep, pick->micro_batch, pick->global_batch);
  return *pick;
}

Result<ProxyPlan> PlanProxyStep(const predict::ModelSpec& spec, const predict::Parallelism& par,
                                const PlanOptions& o) {
  const predict::ModelShape& s = spec.shape;
  const std::string where = spec.path.empty() ? spec.name : spec.path;
  if (o.scale < 1) return Status::Invalid("proxy scale-down factor must be at least 1");
  if (par.tp < 1 || par.cp < 1 || par.ep < 1 || par.pp < 1 || par.micro_batch < 1)
    return Status::Invalid(where + ": parallelism sizes must be at least 1");
  if (!s.attention_heads)
    return Status::Unsupported(where + ": [shape] attention_heads is not given");
  const int f = o.scale, tp = par.tp, cp = par.cp, ep = par.ep, mb = par.micro_batch;

  ProxyPlan plan;
  plan.model = spec.name;
  plan.parallelism = par;
  plan.options = o;
  plan.hidden = Down(s.hidden_size, f);
  plan.seq = Down(s.seq_length, f);
  plan.heads = Down(*s.attention_heads, f);
  plan.kv_heads = Down(s.kv_heads.value_or(*s.attention_heads), f);
  plan.head_dim = s.head_dim ? *s.head_dim : s.hidden_size / *s.attention_heads;
  const int64_t h = plan.hidden, seq = plan.seq;
  if (plan.heads % tp != 0)
    return Status::Invalid(
        fmt::format("{}: {} attention heads (scaled by 1/{}) do not divide by TP {}", where,
                    plan.heads, f, tp));
  if (seq % cp != 0)
    return Status::Invalid(fmt::format("{}: sequence {} does not divide by CP {}", where, seq, cp));
  const int64_t tokens = static_cast<int64_t>(mb) * seq / cp;
  // Every size below is a product of these in 64 bits; past 2^40 elements (4 TiB of fp32) no
  // buffer could be allocated anyway, so refuse before a product can wrap.
  constexpr double kMaxElements = 1099511627776.0;  // 2^40
  if (static_cast<double>(tokens) * h > kMaxElements ||
      (spec.moe && static_cast<double>(tokens) * spec.moe->top_k * h > kMaxElements))
    return Status::Invalid(fmt::format(
        "{}: {} tokens x hidden {}{} is beyond 2^40 elements per activation (scaled by 1/{}); the "
        "shape is too large for a proxy",
        where, tokens, h, spec.moe ? fmt::format(" x top-{}", spec.moe->top_k) : "", f));
  if (tokens % tp != 0)
    return Status::Invalid(fmt::format(
        "{}: {} tokens do not divide by TP {} (sequence parallelism)", where, tokens, tp));
  plan.tokens = static_cast<int>(tokens);
  const int64_t sp_tokens = tokens / tp;
  const int64_t heads_r = plan.heads / tp;
  const uint64_t act = static_cast<uint64_t>(tokens) * h;

  plan.recipe_micro_batches = std::max(1, par.GradientAccumulation());
  plan.micro_batches = o.micro_batches.value_or(plan.recipe_micro_batches);
  int rank_layers =
      std::max(1, static_cast<int>(std::lround(static_cast<double>(s.layers) / par.pp)));
  plan.layers = PickLayers(spec, o.layers.value_or(rank_layers));

  auto attention = [&](LayerBuilder& b) -> Status {
    if (tp > 1) b.Comm("attn.all_gather", PlanCollective::kAllGather, CommGroup::kTp, act);
    int64_t qk, v;
    if (spec.mla) {
      const predict::MlaShape& m = *spec.mla;
      int64_t ql = Down(m.q_lora_rank, f), kvl = Down(m.kv_lora_rank, f);
      qk = m.qk_nope_head_dim + m.qk_rope_head_dim;
      v = m.v_head_dim;
      // The down projections are not TP-split in Megatron's MLA: every TP rank computes them.
      b.Gemm("mla.q_down", tokens, ql, h);
      b.Gemm("mla.q_up", tokens, heads_r * qk, ql);
      b.Gemm("mla.kv_down", tokens, kvl + m.qk_rope_head_dim, h);
      b.Gemm("mla.kv_up", tokens, heads_r * (m.qk_nope_head_dim + v), kvl);
    } else {
      qk = v = plan.head_dim;
      // Fewer kv heads than TP ranks: each rank keeps one (Megatron replicates them).
      int64_t kv_r = std::max(1, plan.kv_heads / tp);
      b.Gemm("attn.qkv", tokens, (heads_r + 2 * kv_r) * qk, h);
    }
    b.Gemm("attn.scores", seq / cp, seq, qk, mb * heads_r, false);
    b.Gemm("attn.values", seq / cp, v, seq, mb * heads_r, false);
    b.Gemm("attn.out", tokens, h, heads_r * v);
    if (tp > 1) b.Comm("attn.reduce_scatter", PlanCollective::kReduceScatter, CommGroup::kTp, act);
    return Status::Ok();
  };
  auto mlp = [&](LayerBuilder& b, const std::string& name, int ffn) {
    if (tp > 1) b.Comm(name + ".all_gather", PlanCollective::kAllGather, CommGroup::kTp, act);
    b.Gemm(name + ".up", tokens, (s.gated_mlp ? 2 : 1) * int64_t{ffn} / tp, h);
    b.Gemm(name + ".down", tokens, h, int64_t{ffn} / tp);
    if (tp > 1)
      b.Comm(name + ".reduce_scatter", PlanCollective::kReduceScatter, CommGroup::kTp, act);
  };
  auto moe = [&](LayerBuilder& b) -> Status {
    const predict::MoeShape& m = *spec.moe;
    if (m.experts % ep != 0)
      return Status::Invalid(
          fmt::format("{}: {} experts do not divide by EP {}", where, m.experts, ep));
    int64_t local = m.experts / ep;
    int64_t copies = sp_tokens * m.top_k;  // this rank's routed token copies
    if ((copies * ep) % m.experts != 0 || copies * ep < m.experts)
      return Status::Invalid(fmt::format(
          "{}: balanced routing gives no whole token count per expert ({} tokens x top-{} x EP {} "
          "/ {} experts); the model cannot be shrunk by 1/{}",
          where, sp_tokens, m.top_k, ep, m.experts, f));
    int64_t per_expert = copies * ep / m.experts;
    b.Gemm("moe.router", sp_tokens, m.experts, h);
    if (m.shared_experts > 0) {
      int ffn = Down(m.shared_expert_ffn_hidden_size.value_or(m.expert_ffn_hidden_size), f);
      mlp(b, "moe.shared", ffn * m.shared_experts);
    }
    // LatentMoE: the routed block works at the latent width, between a projection down before
    // the dispatch and one up after the combine.
    const int64_t routed = m.latent_size > 0 ? Down(m.latent_size, f) : h;
    if (m.latent_size > 0) b.Gemm("moe.latent_down", sp_tokens, routed, h);
    uint64_t a2a = static_cast<uint64_t>(copies) * routed;
    if (ep > 1) b.Comm("moe.dispatch", PlanCollective::kAllToAll, CommGroup::kEp, a2a);
    int64_t effn = Down(m.expert_ffn_hidden_size, f);
    b.Gemm("moe.experts.up", per_expert, (s.gated_mlp ? 2 : 1) * effn, routed, local);
    b.Gemm("moe.experts.down", per_expert, routed, effn, local);
    if (ep > 1) b.Comm("moe.combine", PlanCollective::kAllToAll, CommGroup::kEp, a2a);
    if (m.latent_size > 0) b.Gemm("moe.latent_up", sp_tokens, h, routed);
    return Status::Ok();
  };
  auto mamba = [&](LayerBuilder& b) {
    const predict::HybridShape& y = *spec.hybrid;
    int64_t mh = Down(y.mamba_heads, f), groups = Down(y.groups, f);
    int64_t d_inner = mh * y.mamba_head_dim;
    if (tp > 1) b.Comm("mamba.all_gather", PlanCollective::kAllGather, CommGroup::kTp, act);
    b.Gemm("mamba.in_proj", tokens, (2 * d_inner + 2 * groups * y.ssm_state_size + mh) / tp, h);
    b.Gemm("mamba.out_proj", tokens, h, d_inner / tp);
    if (tp > 1) b.Comm("mamba.reduce_scatter", PlanCollective::kReduceScatter, CommGroup::kTp, act);
  };

  std::vector<std::vector<ProxyOp>> backward;
  for (size_t i = 0; i < plan.layers.size(); ++i) {
    LayerKind kind = plan.layers[i];
    LayerBuilder b(fmt::format("L{} ", i), o.dtype_bytes);
    bool needs_ffn = kind == LayerKind::kDense || kind == LayerKind::kMlp;
    if (needs_ffn && !s.ffn_hidden_size)
      return Status::Unsupported(where + ": [shape] ffn_hidden_size is not given");
    const bool experts = kind == LayerKind::kMoe || kind == LayerKind::kMoeMlp;
    if (experts && !spec.moe) return Status::Unsupported(where + ": MoE layers without [moe]");
    if (kind == LayerKind::kDense || kind == LayerKind::kMoe || kind == LayerKind::kAttention)
      YS_RETURN_IF_ERROR(attention(b));
    if (needs_ffn) mlp(b, "mlp", Down(*s.ffn_hidden_size, f));
    if (experts) YS_RETURN_IF_ERROR(moe(b));
    if (kind == LayerKind::kMamba) mamba(b);
    auto fwd = b.Forward();
    plan.micro_batch_ops.insert(plan.micro_batch_ops.end(), fwd.begin(), fwd.end());
    backward.push_back(b.Backward());
    plan.weight_params += b.weight_params();
  }
  for (auto it = backward.rbegin(); it != backward.rend(); ++it)
    plan.micro_batch_ops.insert(plan.micro_batch_ops.end(), it->begin(), it->end());

  const int dp = par.DataParallel();
  if (dp > 1) {
    for (PlanCollective c : {PlanCollective::kReduceScatter, PlanCollective::kAllGather}) {
      ProxyOp op;
      op.name =
          c == PlanCollective::kReduceScatter ? "dp.grad_reduce_scatter" : "dp.param_all_gather";
      op.is_gemm = false;
      op.cls = OpClass::kDpComm;
      op.collective = c;
      op.group = CommGroup::kDp;
      op.bytes = static_cast<uint64_t>(plan.weight_params) * o.dtype_bytes;
      plan.step_ops.push_back(op);
    }
  }

  std::map<LayerKind, int> mix;
  for (LayerKind k : plan.layers) ++mix[k];
  std::string mix_text;
  for (const auto& [k, n] : mix)
    mix_text += fmt::format("{}{} {}", mix_text.empty() ? "" : ", ", n, LayerKindName(k));
  plan.notes.push_back(fmt::format(
      "layers run: {} ({}){}", plan.layers.size(), mix_text,
      o.layers ? fmt::format(" instead of the recipe's {} per pipeline stage ({} / PP {})",
                             rank_layers, s.layers, par.pp)
               : fmt::format(" = {} layers / PP {}", s.layers, par.pp)));
  plan.notes.push_back(
      fmt::format("micro batches per step: {}{}", plan.micro_batches,
                  plan.micro_batches == plan.recipe_micro_batches
                      ? " (the recipe's gradient accumulation)"
                      : fmt::format(" instead of the recipe's gradient accumulation of {}",
                                    plan.recipe_micro_batches)));
  if (f > 1)
    plan.notes.push_back(
        fmt::format("scaled down by 1/{}: hidden {}, sequence {}, heads {}, kv heads {} (head dim "
                    "{} kept); GEMM "
                    "FLOPs shrink ~{}^3 per layer, activation and parameter bytes ~{}^2",
                    f, h, seq, plan.heads, plan.kv_heads, plan.head_dim, f, f));
  plan.notes.push_back(
      "excluded: output head and input embedding, Mamba scan, norms/softmax/activations, pipeline "
      "send/receive; expert TP = 1, experts' data parallelism folded into DP");
  return plan;
}

}  // namespace ys::workloads
