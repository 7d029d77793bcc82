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
    return {{LayerKind::kDense, spec.shape.layers - spec.moe->MoeLayers(spec.shape.layers)},
            {LayerKind::kMoe, spec.moe->MoeLayers(spec.shape.layers)}};
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

// What one rank's matrices multiply per micro batch (predict::Rows): its tokens, its
// sequence-parallel shard, and the routed copies each local expert receives.
struct PlanRows {
  int64_t tokens = 0, shard = 0;
  int64_t per_expert = 0, local_experts = 1;
  uint64_t routed_copies = 0;     // the rank's routed token copies (top_k per shard token)
  int64_t qk_dim = 0, v_dim = 0;  // per head: the attention core's score and value products
};

// Invalid when the (scaled) shape does not divide by the parallelism or the sizes could wrap.
Result<PlanRows> PlanRowsOf(const predict::ModelSpec& scaled, const predict::Parallelism& par,
                            int f, const std::string& where) {
  const predict::ModelShape& s = scaled.shape;
  const int64_t h = s.hidden_size, seq = s.seq_length;
  const int tp = par.tp, cp = par.cp;
  if (*s.attention_heads % tp != 0)
    return Status::Invalid(
        fmt::format("{}: {} attention heads (scaled by 1/{}) do not divide by TP {}", where,
                    *s.attention_heads, f, tp));
  if (seq % cp != 0)
    return Status::Invalid(fmt::format("{}: sequence {} does not divide by CP {}", where, seq, cp));
  PlanRows rows;
  rows.tokens = static_cast<int64_t>(par.micro_batch) * seq / cp;
  // Every size below is a product of these in 64 bits; past 2^40 elements (4 TiB of fp32) no
  // buffer could be allocated anyway, so refuse before a product can wrap.
  constexpr double kMaxElements = 1099511627776.0;  // 2^40
  const auto* moe = scaled.moe ? &*scaled.moe : nullptr;
  if (static_cast<double>(rows.tokens) * h > kMaxElements ||
      (moe && static_cast<double>(rows.tokens) * moe->top_k * h > kMaxElements))
    return Status::Invalid(fmt::format(
        "{}: {} tokens x hidden {}{} is beyond 2^40 elements per activation (scaled by 1/{}); the "
        "shape is too large for a proxy",
        where, rows.tokens, h, moe ? fmt::format(" x top-{}", moe->top_k) : "", f));
  if (rows.tokens % tp != 0)
    return Status::Invalid(fmt::format(
        "{}: {} tokens do not divide by TP {} (sequence parallelism)", where, rows.tokens, tp));
  rows.shard = rows.tokens / tp;
  auto attn = predict::AttentionOf(scaled);
  if (!attn.ok()) return attn.status();
  rows.qk_dim = static_cast<int64_t>(attn->qk_dim);
  rows.v_dim = static_cast<int64_t>(attn->v_dim);
  return rows;
}

// The routed rows of a MoE layer: experts/EP local experts, each with the token copies balanced
// routing sends it ((tokens/TP) x top_k x EP / experts).
Status PlanRoutedRows(const predict::MoeShape& m, int ep, int f, const std::string& where,
                      PlanRows& rows) {
  if (m.experts % ep != 0)
    return Status::Invalid(
        fmt::format("{}: {} experts do not divide by EP {}", where, m.experts, ep));
  const int64_t copies = rows.shard * m.top_k;
  if ((copies * ep) % m.experts != 0 || copies * ep < m.experts)
    return Status::Invalid(fmt::format(
        "{}: balanced routing gives no whole token count per expert ({} tokens x top-{} x EP {} "
        "/ {} experts); the model cannot be shrunk by 1/{}",
        where, rows.shard, m.top_k, ep, m.experts, f));
  rows.local_experts = m.experts / ep;
  rows.per_expert = copies * ep / m.experts;
  rows.routed_copies = static_cast<uint64_t>(copies);
  return Status::Ok();
}

// The prefix of a block's collectives: "attn" for attention (MLA too), else the name of the run's
// first matrix less its last part ("mlp.up" -> "mlp", "moe.shared.up" -> "moe.shared").
std::string CommPrefix(predict::Block block, std::string_view first) {
  if (block == predict::Block::kAttention) return "attn";
  return std::string(first.substr(0, first.rfind('.')));
}

// One block's forward ops: its matrices at this rank's shapes; a TP all-gather before and a
// reduce-scatter after each run of matrices on the whole sequence (sequence parallelism), an EP
// all-to-all dispatch before and combine after the routed experts, and the attention core's
// batched score (Q.Kᵀ) and value (P.V) products before the output projection (non-causal, the
// queries of this rank's CP shard against the whole sequence).
Status AddBlockOps(const predict::ModelSpec& scaled, predict::Block block,
                   const predict::Parallelism& par, const PlanRows& rows, LayerBuilder& b) {
  auto matrices = predict::BlockMatrices(scaled, block, par.tp);
  if (!matrices.ok()) return matrices.status();
  const int tp = par.tp, ep = par.ep;
  const int64_t routed_width = scaled.moe ? scaled.moe->RoutedWidth(scaled.shape.hidden_size) : 0;
  const uint64_t act = static_cast<uint64_t>(rows.tokens) * scaled.shape.hidden_size;
  const auto& ms = *matrices;
  std::string prefix;
  for (size_t i = 0; i < ms.size(); ++i) {
    const predict::LayerMatrix& x = ms[i];
    const bool whole = x.rows == predict::Rows::kTokens;
    const bool routed = x.rows == predict::Rows::kRouted;
    const bool opens = i == 0 || ms[i - 1].rows != x.rows;
    const bool closes = i + 1 == ms.size() || ms[i + 1].rows != x.rows;
    if (opens) prefix = CommPrefix(block, x.name);
    if (opens && whole && tp > 1)
      b.Comm(prefix + ".all_gather", PlanCollective::kAllGather, CommGroup::kTp, act);
    if (opens && routed && ep > 1)
      b.Comm("moe.dispatch", PlanCollective::kAllToAll, CommGroup::kEp,
             rows.routed_copies * routed_width);
    if (x.after_core) {
      const int64_t seq = scaled.shape.seq_length, heads_rank = *scaled.shape.attention_heads / tp;
      const int64_t batch = par.micro_batch * heads_rank;
      b.Gemm("attn.scores", seq / par.cp, seq, rows.qk_dim, batch, false);
      b.Gemm("attn.values", seq / par.cp, rows.v_dim, seq, batch, false);
    }
    const int64_t m = whole ? rows.tokens : routed ? rows.per_expert : rows.shard;
    b.Gemm(std::string(x.name), m, static_cast<int64_t>(x.out_rank),
           static_cast<int64_t>(x.in_rank), routed ? rows.local_experts : 1);
    if (closes && routed && ep > 1)
      b.Comm("moe.combine", PlanCollective::kAllToAll, CommGroup::kEp,
             rows.routed_copies * routed_width);
    if (closes && whole && tp > 1)
      b.Comm(prefix + ".reduce_scatter", PlanCollective::kReduceScatter, CommGroup::kTp, act);
  }
  return Status::Ok();
}

// Once per step: the data-parallel reduce-scatter of the gradients and all-gather of the
// parameters, each the size of the parameters this rank holds for its layers.
void AddDataParallelOps(const predict::Parallelism& par, int dtype_bytes, ProxyPlan& plan) {
  if (par.DataParallel() <= 1) return;
  for (PlanCollective c : {PlanCollective::kReduceScatter, PlanCollective::kAllGather}) {
    ProxyOp op;
    op.name =
        c == PlanCollective::kReduceScatter ? "dp.grad_reduce_scatter" : "dp.param_all_gather";
    op.is_gemm = false;
    op.cls = OpClass::kDpComm;
    op.collective = c;
    op.group = CommGroup::kDp;
    op.bytes = static_cast<uint64_t>(plan.weight_params) * dtype_bytes;
    plan.step_ops.push_back(op);
  }
}

// What the plan states: the layers and micro batches run against the recipe's, the scale-down,
// the exclusions.
void AddPlanNotes(const predict::ModelSpec& spec, const predict::Parallelism& par, int rank_layers,
                  ProxyPlan& plan) {
  const PlanOptions& o = plan.options;
  const int f = o.scale;
  std::map<LayerKind, int> mix;
  for (LayerKind k : plan.layers) ++mix[k];
  std::string mix_text;
  for (const auto& [k, n] : mix)
    mix_text += fmt::format("{}{} {}", mix_text.empty() ? "" : ", ", n, LayerKindName(k));
  plan.notes.push_back(fmt::format(
      "layers run: {} ({}){}", plan.layers.size(), mix_text,
      o.layers ? fmt::format(" instead of the recipe's {} per pipeline stage ({} / PP {})",
                             rank_layers, spec.shape.layers, par.pp)
               : fmt::format(" = {} layers / PP {}", spec.shape.layers, par.pp)));
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
                    f, plan.hidden, plan.seq, plan.heads, plan.kv_heads, plan.head_dim, f, f));
  plan.notes.push_back(
      "excluded: output head and input embedding, Mamba scan, norms/softmax/activations, pipeline "
      "send/receive; expert TP = 1, experts' data parallelism folded into DP");
}

}  // namespace

predict::ModelSpec CpuScaledSpec(const predict::ModelSpec& spec, int f) {
  predict::ModelSpec out = spec;
  out.parallelism.clear();
  predict::ModelShape& s = out.shape;
  const int heads = *spec.shape.attention_heads;
  s.head_dim = spec.shape.head_dim ? *spec.shape.head_dim : spec.shape.hidden_size / heads;
  s.hidden_size = Down(spec.shape.hidden_size, f);
  s.seq_length = Down(spec.shape.seq_length, f);
  s.attention_heads = Down(heads, f);
  s.kv_heads = Down(spec.shape.kv_heads.value_or(heads), f);
  if (s.ffn_hidden_size) s.ffn_hidden_size = Down(*s.ffn_hidden_size, f);
  if (out.mla) {
    out.mla->q_lora_rank = Down(out.mla->q_lora_rank, f);
    out.mla->kv_lora_rank = Down(out.mla->kv_lora_rank, f);
  }
  if (out.moe) {
    predict::MoeShape& m = *out.moe;
    m.expert_ffn_hidden_size = Down(m.expert_ffn_hidden_size, f);
    if (m.shared_expert_ffn_hidden_size)
      m.shared_expert_ffn_hidden_size = Down(*m.shared_expert_ffn_hidden_size, f);
    if (m.latent_size > 0) m.latent_size = Down(m.latent_size, f);
  }
  if (out.hybrid) {
    out.hybrid->mamba_heads = Down(out.hybrid->mamba_heads, f);
    out.hybrid->groups = Down(out.hybrid->groups, f);
  }
  return out;
}

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
  const std::string where = spec.path.empty() ? spec.name : spec.path;
  if (o.scale < 1) return Status::Invalid("proxy scale-down factor must be at least 1");
  if (par.tp < 1 || par.cp < 1 || par.ep < 1 || par.pp < 1 || par.micro_batch < 1)
    return Status::Invalid(where + ": parallelism sizes must be at least 1");
  if (!spec.shape.attention_heads)
    return Status::Unsupported(where + ": [shape] attention_heads is not given");
  const predict::ModelSpec scaled = CpuScaledSpec(spec, o.scale);
  const predict::ModelShape& s = scaled.shape;

  ProxyPlan plan;
  plan.model = spec.name;
  plan.parallelism = par;
  plan.options = o;
  plan.hidden = s.hidden_size;
  plan.seq = s.seq_length;
  plan.heads = *s.attention_heads;
  plan.kv_heads = *s.kv_heads;
  plan.head_dim = *s.head_dim;
  auto rows = PlanRowsOf(scaled, par, o.scale, where);
  if (!rows.ok()) return rows.status();
  plan.tokens = static_cast<int>(rows->tokens);
  plan.recipe_micro_batches = std::max(1, par.GradientAccumulation());
  plan.micro_batches = o.micro_batches.value_or(plan.recipe_micro_batches);
  const int rank_layers =
      std::max(1, static_cast<int>(std::lround(static_cast<double>(spec.shape.layers) / par.pp)));
  plan.layers = PickLayers(spec, o.layers.value_or(rank_layers));

  // The routed rows, once: every MoE layer of the plan has the same.
  const bool has_moe = std::any_of(plan.layers.begin(), plan.layers.end(), [](LayerKind k) {
    return k == LayerKind::kMoe || k == LayerKind::kMoeMlp;
  });
  if (has_moe && scaled.moe)
    YS_RETURN_IF_ERROR(PlanRoutedRows(*scaled.moe, par.ep, o.scale, where, *rows));
  // Each layer forward in order, then each layer's backward in reverse.
  std::vector<std::vector<ProxyOp>> backward;
  for (size_t i = 0; i < plan.layers.size(); ++i) {
    LayerBuilder b(fmt::format("L{} ", i), o.dtype_bytes);
    for (predict::Block block : predict::BlocksOf(plan.layers[i]))
      YS_RETURN_IF_ERROR(AddBlockOps(scaled, block, par, *rows, b));
    auto fwd = b.Forward();
    plan.micro_batch_ops.insert(plan.micro_batch_ops.end(), fwd.begin(), fwd.end());
    backward.push_back(b.Backward());
    plan.weight_params += b.weight_params();
  }
  for (auto it = backward.rbegin(); it != backward.rend(); ++it)
    plan.micro_batch_ops.insert(plan.micro_batch_ops.end(), it->begin(), it->end());
  AddDataParallelOps(par, o.dtype_bytes, plan);
  AddPlanNotes(spec, par, rank_layers, plan);
  return plan;
}

}  // namespace ys::workloads
