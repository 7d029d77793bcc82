#include "workloads/serving/internal/cpu_serving_engine.h"

#include <cblas.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <span>

#include "bench/deterministic_data.h"
#include "core/run_document.h"

namespace ys::workloads {
namespace {

double ServingNow() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// y (m x n) = x (m x k) . w (k x n), row-major, with leading dimensions.
void ServingGemm(int m, int n, int k, const float* x, int ldx, const float* w, float* y, int ldy) {
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, x, ldx, w, n, 0.0f, y, ldy);
}

// Each of `rows` rows of `in` (width n) divided by its root mean square, into `out`.
void RmsNormRows(const float* in, float* out, int rows, int n) {
  for (int r = 0; r < rows; ++r) {
    const float* x = in + static_cast<size_t>(r) * n;
    double ss = 0;
    for (int i = 0; i < n; ++i) ss += static_cast<double>(x[i]) * x[i];
    const float inv = static_cast<float>(1.0 / std::sqrt(ss / n + 1e-6));
    float* y = out + static_cast<size_t>(r) * n;
    for (int i = 0; i < n; ++i) y[i] = x[i] * inv;
  }
}

// Softmax of row i's first `valid` scores in place; the rest set to 0 (the causal mask).
void CausalSoftmaxRow(float* s, int valid, int width) {
  float mx = s[0];
  for (int j = 1; j < valid; ++j) mx = std::max(mx, s[j]);
  double sum = 0;
  for (int j = 0; j < valid; ++j) {
    s[j] = std::exp(s[j] - mx);
    sum += s[j];
  }
  const float inv = static_cast<float>(1.0 / sum);
  for (int j = 0; j < valid; ++j) s[j] *= inv;
  for (int j = valid; j < width; ++j) s[j] = 0;
}

std::vector<float> ServingWeights(double in, double out, uint64_t seed) {
  std::vector<float> w(static_cast<size_t>(in * out));
  bench::FillDeterministic(std::span<float>(w), seed);
  // Scaled so that activations keep their size from layer to layer.
  const float scale = static_cast<float>(1.0 / std::sqrt(in));
  for (float& v : w) v *= scale;
  return w;
}

}  // namespace

double ServingModelShape::MatmulParams() const {
  double per_layer = 0;
  for (const predict::LayerMatrix& m : matrices) per_layer += m.Params();
  return per_layer * layers + static_cast<double>(hidden) * vocab;
}

Result<ServingModelShape> ServingShapeOf(const predict::ModelSpec& spec) {
  const std::string where = spec.path.empty() ? spec.name : spec.path;
  if (spec.moe || spec.mla || spec.hybrid || spec.architecture != predict::Architecture::kDense)
    return Status::Unsupported(where +
                               ": the serving proxy runs dense attention models (no MoE, MLA or "
                               "hybrid layers)");
  const predict::ModelShape& s = spec.shape;
  if (!s.ffn_hidden_size || !s.attention_heads || !s.kv_heads || !s.vocab_size)
    return Status::Unsupported(where +
                               ": [shape] needs ffn_hidden_size, attention_heads, kv_heads and "
                               "vocab_size for the serving proxy");
  ServingModelShape shape{.hidden = s.hidden_size,
                          .heads = *s.attention_heads,
                          .kv_heads = *s.kv_heads,
                          .head_dim = s.head_dim.value_or(s.hidden_size / *s.attention_heads),
                          .ffn = *s.ffn_hidden_size,
                          .layers = s.layers,
                          .vocab = *s.vocab_size,
                          .gated = s.gated_mlp};
  if (shape.heads % shape.kv_heads != 0)
    return Status::Unsupported(fmt::format("{}: {} attention heads do not divide into {} kv heads",
                                           where, shape.heads, shape.kv_heads));
  for (predict::Block b : {predict::Block::kAttention, predict::Block::kMlp}) {
    auto m = predict::BlockMatrices(spec, b);
    if (!m.ok()) return m.status();
    shape.matrices.insert(shape.matrices.end(), m->begin(), m->end());
  }
  return shape;
}

double ServingEngineBytes(const ServingModelShape& s, int slots, int context, int rows) {
  const double h = s.hidden, width = std::max<double>(s.QDim() + 2.0 * s.KvDim(), 2.0 * s.ffn);
  const double weights = s.MatmulParams() + static_cast<double>(s.vocab) * h;
  const double kv = 2.0 * s.layers * slots * static_cast<double>(context) * s.KvDim();
  const double work = rows * (4 * h + 2 * width + context) + rows * static_cast<double>(s.vocab);
  return (weights + kv + work) * sizeof(float);
}

CpuServingEngine::CpuServingEngine(const ServingModelShape& shape, int slots, int isl, int osl)
    : shape_(shape),
      slots_(slots),
      isl_(isl),
      context_(isl + osl),
      max_rows_(std::max(isl, slots)),
      length_(slots, 0),
      next_token_(slots, 0) {}

Result<std::unique_ptr<CpuServingEngine>> CpuServingEngine::Open(const ServingModelShape& shape,
                                                                 int slots, int isl, int osl) {
  if (slots < 1 || isl < 1 || osl < 1)
    return Status::Invalid("serving engine: slots, ISL and OSL must be at least 1");
  std::unique_ptr<CpuServingEngine> e(new CpuServingEngine(shape, slots, isl, osl));
  uint64_t seed = 1;
  for (int l = 0; l < shape.layers; ++l)
    for (const predict::LayerMatrix& m : shape.matrices)
      e->weights_.push_back(ServingWeights(m.in, m.out, seed++));
  e->head_ = ServingWeights(shape.hidden, shape.vocab, seed++);
  e->embedding_ = ServingWeights(shape.vocab, shape.hidden, seed++);
  const size_t rows = e->max_rows_, h = shape.hidden;
  e->kv_.assign(size_t{2} * shape.layers * slots * e->context_ * shape.KvDim(), 0.0f);
  e->x_.assign(rows * h, 0.0f);
  e->h_.assign(rows * h, 0.0f);
  e->tmp_.assign(rows * h, 0.0f);
  e->attn_.assign(rows * shape.QDim(), 0.0f);
  size_t widest = 0;
  for (const predict::LayerMatrix& m : shape.matrices) widest = std::max(widest, size_t(m.out));
  e->qkv_.assign(rows * widest, 0.0f);
  e->up_.assign(rows * widest, 0.0f);
  e->act_.assign(rows * shape.ffn, 0.0f);
  e->scores_.assign(rows * e->context_, 0.0f);
  e->logits_.assign(size_t(slots) * shape.vocab, 0.0f);
  return e;
}

float* CpuServingEngine::Cache(int slot, int layer, int which) {
  const size_t block = size_t(context_) * shape_.KvDim();
  return kv_.data() + ((size_t(slot) * shape_.layers + layer) * 2 + which) * block;
}

void CpuServingEngine::Attend(int layer, int slot, int row0, int n) {
  const int hd = shape_.head_dim, kvd = shape_.KvDim(), qkvd = shape_.QDim() + 2 * kvd;
  const int pos0 = length_[slot], ctx = pos0 + n;
  float* keys = Cache(slot, layer, 0);
  float* values = Cache(slot, layer, 1);
  for (int i = 0; i < n; ++i) {
    const float* row = qkv_.data() + size_t(row0 + i) * qkvd;
    std::copy_n(row + shape_.QDim(), kvd, keys + size_t(pos0 + i) * kvd);
    std::copy_n(row + shape_.QDim() + kvd, kvd, values + size_t(pos0 + i) * kvd);
  }
  const int group = shape_.heads / shape_.kv_heads;
  const float scale = static_cast<float>(1.0 / std::sqrt(hd));
  for (int head = 0; head < shape_.heads; ++head) {
    const int kvh = head / group;
    const float* q = qkv_.data() + size_t(row0) * qkvd + size_t(head) * hd;
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, n, ctx, hd, scale, q, qkvd,
                keys + size_t(kvh) * hd, kvd, 0.0f, scores_.data(), ctx);
    for (int i = 0; i < n; ++i)
      CausalSoftmaxRow(scores_.data() + size_t(i) * ctx, pos0 + i + 1, ctx);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, hd, ctx, 1.0f, scores_.data(), ctx,
                values + size_t(kvh) * hd, kvd, 0.0f,
                attn_.data() + size_t(row0) * shape_.QDim() + size_t(head) * hd, shape_.QDim());
  }
}

void CpuServingEngine::Layers(int rows, const std::vector<int>& slot_of_row) {
  const int h = shape_.hidden, ffn = shape_.ffn;
  const size_t per_layer = shape_.matrices.size();
  for (int l = 0; l < shape_.layers; ++l) {
    const std::vector<float>* w = &weights_[l * per_layer];
    const predict::LayerMatrix& qkv = shape_.matrices[0];
    RmsNormRows(x_.data(), h_.data(), rows, h);
    WeightGemm(rows, qkv.out, h, h_.data(), h, w[0].data(), qkv_.data(), qkv.out);
    for (int r0 = 0; r0 < rows;) {
      int r1 = r0 + 1;
      while (r1 < rows && slot_of_row[r1] == slot_of_row[r0]) ++r1;
      Attend(l, slot_of_row[r0], r0, r1 - r0);
      r0 = r1;
    }
    WeightGemm(rows, h, shape_.QDim(), attn_.data(), shape_.QDim(), w[1].data(), tmp_.data(), h);
    for (size_t i = 0; i < size_t(rows) * h; ++i) x_[i] += tmp_[i];
    RmsNormRows(x_.data(), h_.data(), rows, h);
    const int up = static_cast<int>(shape_.matrices[2].out);
    WeightGemm(rows, up, h, h_.data(), h, w[2].data(), up_.data(), up);
    for (int r = 0; r < rows; ++r) {
      const float* u = up_.data() + size_t(r) * up;
      float* a = act_.data() + size_t(r) * ffn;
      for (int j = 0; j < ffn; ++j) {
        const float g = u[j];
        a[j] = shape_.gated ? g / (1.0f + std::exp(-g)) * u[ffn + j] : std::max(g, 0.0f) * g;
      }
    }
    WeightGemm(rows, h, ffn, act_.data(), ffn, w[3].data(), tmp_.data(), h);
    for (size_t i = 0; i < size_t(rows) * h; ++i) x_[i] += tmp_[i];
  }
  // The new tokens are in the caches now.
  for (int r0 = 0; r0 < rows;) {
    int r1 = r0 + 1;
    while (r1 < rows && slot_of_row[r1] == slot_of_row[r0]) ++r1;
    length_[slot_of_row[r0]] += r1 - r0;
    r0 = r1;
  }
}

void CpuServingEngine::Sample(const std::vector<int>& rows, const std::vector<int>& slots) {
  const int h = shape_.hidden, v = shape_.vocab, n = static_cast<int>(rows.size());
  for (int i = 0; i < n; ++i)
    RmsNormRows(x_.data() + size_t(rows[i]) * h, h_.data() + size_t(i) * h, 1, h);
  WeightGemm(n, v, h, h_.data(), h, head_.data(), logits_.data(), v);
  for (int i = 0; i < n; ++i) {
    const float* l = logits_.data() + size_t(i) * v;
    next_token_[slots[i]] = static_cast<int>(std::max_element(l, l + v) - l);
  }
}

Status CpuServingEngine::Prefill(int slot, int request) {
  if (slot < 0 || slot >= slots_) return Status::Invalid("serving engine: no such slot");
  length_[slot] = 0;
  const int h = shape_.hidden;
  for (int i = 0; i < isl_; ++i) {
    // A synthetic prompt: the same tokens for a request on every run.
    const int token =
        static_cast<int>((int64_t{request} * 7919 + int64_t{i} * 104729) % shape_.vocab);
    std::copy_n(embedding_.data() + size_t(token) * h, h, x_.data() + size_t(i) * h);
  }
  Layers(isl_, std::vector<int>(isl_, slot));
  Sample({isl_ - 1}, {slot});
  return Status::Ok();
}

Status CpuServingEngine::Decode(const std::vector<int>& slots) {
  const int n = static_cast<int>(slots.size()), h = shape_.hidden;
  if (n < 1 || n > max_rows_) return Status::Invalid("serving engine: bad decode batch");
  std::vector<int> rows(n);
  for (int i = 0; i < n; ++i) {
    const int s = slots[i];
    if (s < 0 || s >= slots_ || length_[s] < 1 || length_[s] >= context_)
      return Status::Invalid(
          fmt::format("serving engine: slot {} cannot decode (context {})", s, length_[s]));
    std::copy_n(embedding_.data() + size_t(next_token_[s]) * h, h, x_.data() + size_t(i) * h);
    rows[i] = i;
  }
  Layers(n, slots);
  Sample(rows, slots);
  return Status::Ok();
}

namespace {
template <typename F>
double MedianSecondsOf(int iters, F&& pass) {
  pass();
  std::vector<double> t;
  for (int i = 0; i < std::max(1, iters); ++i) {
    const double t0 = ServingNow();
    pass();
    t.push_back(ServingNow() - t0);
  }
  return MedianOf(t);
}
}  // namespace

double CpuServingEngine::TimePrefill(int iters) {
  return MedianSecondsOf(iters, [&] { (void)Prefill(0, 0); });  // slot 0 exists
}

CpuServingEngine::GemmPass CpuServingEngine::TimeWeightPass(int iters) {
  GemmPass p;
  const int h = shape_.hidden;
  auto pass = [&] {
    for (size_t i = 0; i < weights_.size(); ++i) {
      const predict::LayerMatrix& m = shape_.matrices[i % shape_.matrices.size()];
      ServingGemm(1, m.out, m.in, up_.data(), m.in, weights_[i].data(), qkv_.data(), m.out);
    }
    ServingGemm(1, shape_.vocab, h, h_.data(), h, head_.data(), logits_.data(), shape_.vocab);
  };
  p.seconds = MedianSecondsOf(iters, pass);
  p.flops = 2.0 * shape_.MatmulParams();
  p.weight_bytes = shape_.MatmulParams() * sizeof(float);
  return p;
}

double CpuServingEngine::TimeDecodeBesideWeights(int iters) {
  const int saved = length_[0];
  std::vector<double> beside;
  for (int i = 0; i <= std::max(1, iters); ++i) {  // the first pass warms up
    length_[0] = 1;
    double in_gemms = 0;
    weight_gemm_s_ = &in_gemms;
    const double t0 = ServingNow();
    (void)Decode({0});  // slot 0 holds one token, below its context: nothing can fail
    const double total = ServingNow() - t0;
    weight_gemm_s_ = nullptr;
    if (i > 0) beside.push_back(std::max(0.0, total - in_gemms));
  }
  length_[0] = saved;
  return MedianOf(beside);
}

void CpuServingEngine::WeightGemm(int m, int n, int k, const float* x, int ldx, const float* w,
                                  float* y, int ldy) {
  const double t0 = weight_gemm_s_ ? ServingNow() : 0;
  ServingGemm(m, n, k, x, ldx, w, y, ldy);
  if (weight_gemm_s_) *weight_gemm_s_ += ServingNow() - t0;
}

}  // namespace ys::workloads
