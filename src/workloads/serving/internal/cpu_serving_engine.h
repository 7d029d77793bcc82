// The serving proxy's engine on a CPU: a dense transformer of a (scaled) model spec served in fp32
// through OpenBLAS sgemm, with a real KV cache per slot.
//
// Per layer (predict/layer_matrices.h gives the matrices, the same the predictor prices):
// RMS norm, attn.qkv, each query head's scores against its key/value head's cached keys (causal),
// softmax, values, attn.out, residual; RMS norm, mlp.up (gate and up under SwiGLU), SiLU(gate) ×
// up (squared ReLU without a gate), mlp.down, residual. After the last layer: RMS norm, the output
// head (hidden × vocab) and greedy sampling (argmax), whose token's embedding row is the next
// input. Stated simplifications: norms carry no learned scale, no rotary embedding (neither
// changes what the step costs by more than an elementwise pass).
//
// Prefill runs a request's ISL prompt tokens as one GEMM per matrix (ISL rows) and the head on
// the last row only; decode runs one row per sequence of the batch, every matrix as one GEMM over
// the batch, and each sequence's attention over its own cache.
//
// Not thread safe. OpenBLAS's thread count is the caller's (bench::ScopedOpenBlasThreads).
#ifndef YARDSTICK_WORKLOADS_SERVING_INTERNAL_CPU_SERVING_ENGINE_H_
#define YARDSTICK_WORKLOADS_SERVING_INTERNAL_CPU_SERVING_ENGINE_H_

#include <memory>
#include <vector>

#include "core/status.h"
#include "predict/layer_matrices.h"
#include "predict/model_spec.h"
#include "workloads/serving_batcher.h"

namespace ys::workloads {

// The figures of the spec the engine runs.
struct ServingModelShape {
  int hidden = 0, heads = 0, kv_heads = 0, head_dim = 0, ffn = 0, layers = 0, vocab = 0;
  bool gated = true;
  std::vector<predict::LayerMatrix> matrices;  // one layer's, in execution order

  int QDim() const { return heads * head_dim; }
  int KvDim() const { return kv_heads * head_dim; }
  // Parameters the engine multiplies: every layer's matrices and the output head (the input
  // embedding is a lookup).
  double MatmulParams() const;
};

// Unsupported naming what is missing for a model that is not a dense attention stack (MoE, MLA,
// hybrid) or lacks a figure (ffn_hidden_size, attention_heads, vocab_size).
Result<ServingModelShape> ServingShapeOf(const predict::ModelSpec& spec);

// Bytes the engine allocates for `slots` sequences of up to `context` tokens and `rows` rows of
// activations: weights, embedding, KV caches and work buffers, fp32.
double ServingEngineBytes(const ServingModelShape& shape, int slots, int context, int rows);

class CpuServingEngine final : public ServingEngine {
 public:
  // `slots` sequences of up to isl + osl tokens each.
  static Result<std::unique_ptr<CpuServingEngine>> Open(const ServingModelShape& shape, int slots,
                                                        int isl, int osl);

  Status Prefill(int slot, int request) override;
  Status Decode(const std::vector<int>& slots) override;

  // Calibration, each the median of `iters` passes after one warm-up pass:
  // seconds of a whole prefill of one request (in slot 0, which keeps it);
  double TimePrefill(int iters);
  // seconds of one row through every matrix and the head (the pass that reads every weight
  // once), its FLOPs and weight bytes;
  struct GemmPass {
    double seconds = 0, flops = 0, weight_bytes = 0;
  };
  GemmPass TimeWeightPass(int iters);
  // seconds of a decode step of one sequence whose cache holds one token, less the time its
  // weight GEMMs took in the same pass: the step's work beside the weights.
  double TimeDecodeBesideWeights(int iters);

  const ServingModelShape& shape() const { return shape_; }
  // The tokens each slot's cache holds.
  int context_of(int slot) const { return length_[slot]; }

 private:
  CpuServingEngine(const ServingModelShape& shape, int slots, int isl, int osl);
  // Rows [row0, row0 + n) of the work buffers hold `n` consecutive tokens of `slot` at positions
  // from the slot's length: appends their keys and values to the cache and writes their attention
  // output. `layer` picks the cache.
  void Attend(int layer, int slot, int row0, int n);
  // The layers over `rows` rows of x_; `slot_of_row` says whose each row is (consecutive rows of
  // one slot are one sequence's new tokens, at that slot's length onward).
  void Layers(int rows, const std::vector<int>& slot_of_row);
  // Output head and argmax of the rows listed; their tokens into next_token_ of their slots.
  void Sample(const std::vector<int>& rows, const std::vector<int>& slots);
  float* Cache(int slot, int layer, int which);  // which: 0 keys, 1 values
  // A weight matrix's GEMM (ServingGemm), its time added to *weight_gemm_s_ when set.
  void WeightGemm(int m, int n, int k, const float* x, int ldx, const float* w, float* y, int ldy);

  ServingModelShape shape_;
  int slots_ = 0, isl_ = 0, context_ = 0, max_rows_ = 0;
  std::vector<std::vector<float>> weights_;  // per layer × matrix, row-major in × out
  std::vector<float> head_, embedding_;
  std::vector<float> kv_;
  std::vector<float> x_, h_, qkv_, attn_, tmp_, up_, act_, scores_, logits_;
  std::vector<int> length_, next_token_;
  double* weight_gemm_s_ = nullptr;  // set while calibration splits a step's time
};

}  // namespace ys::workloads

#endif  // YARDSTICK_WORKLOADS_SERVING_INTERNAL_CPU_SERVING_ENGINE_H_
