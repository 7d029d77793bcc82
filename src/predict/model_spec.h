// Model specs: the shape of one training model and the parallelism the recipes run it with
// (models/<name>.toml), read strictly, and the arithmetic that follows from the shape: parameter
// count (total and active per token) and training FLOPs per token.
//
// Every figure carries the `source` of its section. A figure that no source gives is left out of
// the file (every shape figure but layers, hidden_size and seq_length is optional); arithmetic that
// needs a missing figure returns Unsupported naming it, never a guess.
//
// Reading is strict: an unknown section or key, a value of the wrong type or out of range is
// Invalid naming the file, the section, the key, its line, the value and the range expected.
// Bounds: layers 1..100000; hidden, FFN and sequence sizes, MLA ranks 1..2^22; heads, head dims
// and experts 1..65536; top_k 1..1024; vocab 1..2^24; gpus and micro_batch 1..2^20; global_batch
// 1..2^24. They keep the arithmetic below finite; whether a shape fits in memory is the proxy's
// question (it checks its buffers against a budget before allocating).
//
// Conventions of the arithmetic (stated, because MFU depends on them):
// - Parameters are the weight matrices and embeddings; norms, biases and routers' biases are left
//   out (under 0.1% for every shipped model). Routers' weights are counted.
// - Training FLOPs per token = 6 × (active matrix parameters, the input embedding excluded: it is a
//   lookup) + attention score and value products, non-causal, fwd + bwd:
//   6 × seq × heads × (qk_head_dim + v_head_dim) per attention layer (= 12·s·h for plain
//   attention),
//   + for Mamba-2 layers the scan terms of NVIDIA's Nemotron-H formula. This is the convention of
//   Megatron's and NVIDIA's published MFU figures (Llama 3.1 405B: 2.17e16 per 8192-token sample;
//   Nemotron-H 56B: 2.816e15), which the tests reproduce.
//
// Thread safety: values only; no shared state.
#ifndef YARDSTICK_PREDICT_MODEL_SPEC_H_
#define YARDSTICK_PREDICT_MODEL_SPEC_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace ys::predict {

enum class Architecture { kDense, kMoe, kHybrid };
const char* ArchitectureName(Architecture a);

struct ModelShape {
  int layers = 0;  // transformer (or hybrid) layers
  int hidden_size = 0;
  int seq_length = 0;                  // what the recipes train at
  std::optional<int> ffn_hidden_size;  // dense MLP (MoE: the dense layers' MLP)
  std::optional<int> attention_heads;
  std::optional<int> kv_heads;
  std::optional<int> head_dim;  // when absent: hidden_size / attention_heads
  std::optional<int> vocab_size;
  bool gated_mlp = true;         // SwiGLU (3 matrices) or a plain 2-matrix MLP (squared ReLU)
  bool tied_embeddings = false;  // one matrix for input embedding and output head
  std::string source;
};

struct MoeShape {
  int experts = 0;  // routed experts per MoE layer
  int top_k = 0;
  int expert_ffn_hidden_size = 0;
  int shared_experts = 0;
  std::optional<int> shared_expert_ffn_hidden_size;  // when absent: expert_ffn_hidden_size
  int dense_layers = 0;  // the first layers that keep a dense MLP (DeepSeek-V3: 3)
  // Of the layers after dense_layers, every layer_interval-th is MoE, the others dense (Llama 4
  // Maverick interleaves: 2). 1: every one.
  int layer_interval = 1;
  // Group-limited routing (DeepSeek-V3 n_group, topk_group): the experts are split into `groups`
  // groups and a token's top_k experts are chosen from its best `topk_groups` groups; 0: none.
  int groups = 0;
  int topk_groups = 0;
  // LatentMoE (Nemotron 3 Super): the routed experts work in a smaller width. One projection
  // hidden → latent_size before the dispatch and one back after the combine wrap the whole routed
  // block; the tokens cross the all-to-all and the experts' GEMMs run at latent_size. The router
  // and the shared experts keep the hidden size. 0: none (the experts take the hidden size).
  int latent_size = 0;
  std::string source;

  // The width the routed experts see and the dispatcher moves: latent_size, else `hidden`.
  double RoutedWidth(double hidden) const { return latent_size > 0 ? latent_size : hidden; }
  // MoE layers of a `layers`-layer stack, and the dense-MLP layers beside them.
  int MoeLayers(int layers) const { return (layers - dense_layers) / layer_interval; }
};

// Multi-head latent attention (DeepSeek-V3): low-rank query and key/value projections.
struct MlaShape {
  int q_lora_rank = 0;
  int kv_lora_rank = 0;
  int qk_nope_head_dim = 0;
  int qk_rope_head_dim = 0;
  int v_head_dim = 0;
  std::string source;
};

// Hybrid Mamba-2 / attention / MLP stacks (Nemotron-H): how many layers of each kind. Nemotron 3
// replaces the dense MLP layers by MoE layers (the [moe] table's experts, router and shared
// experts, no attention in the layer): moe_layers of them.
struct HybridShape {
  int mamba_layers = 0;
  int attention_layers = 0;
  int mlp_layers = 0;
  int moe_layers = 0;
  int mamba_heads = 0;
  int mamba_head_dim = 0;
  int ssm_state_size = 0;
  int groups = 0;
  int chunk_size = 0;
  int expand = 0;  // as the config states it (optional): d_inner is mamba_heads × mamba_head_dim
  std::string source;
};

// One recipe configuration: a chip, a dtype and a GPU count with its parallelism.
struct Parallelism {
  std::string chip;   // "h100", "b200", "gb200", ...
  std::string dtype;  // "bf16", "fp8", "nvfp4"
  int gpus = 0;
  int tp = 1;
  int pp = 1;
  int cp = 1;
  int ep = 1;
  std::optional<int> vp;   // virtual pipeline stages, where the recipe uses them
  std::optional<int> etp;  // expert tensor parallelism (MoE); when absent: tp, Megatron's default
  bool fsdp = false;
  // Activation recompute: "none", "full" (every layer's forward again), "selective" (the attention
  // core, Megatron's selective recompute), or Megatron's recompute_modules joined by "+": core_attn
  // (the attention core), mla_up_proj (MLA's query and key/value up-projections), mlp (the dense
  // MLP layers), moe (the whole MoE block: router, dispatch, experts, combine), shared_experts,
  // moe_act (the experts' activation), layernorm (the norms before attention and MLP); see
  // RecomputesModule.
  std::string recompute = "none";
  // With recompute "full": only the first N layers of each pipeline chunk are recomputed
  // (Megatron's recompute_num_layers with recompute_method "block", which Megatron-Bridge's
  // performance scripts set); absent, every layer (see RecomputedShare).
  std::optional<int> recompute_layers;
  // The MoE token dispatcher: "alltoall" (Megatron's all-to-all dispatcher: top_k copies of each
  // token cross the expert-parallel group) or "deepep" (the flex dispatcher with DeepEP: a token
  // crosses the network once per node that holds one of its experts and is forwarded over NVLink).
  std::string moe_dispatcher = "alltoall";
  // Token drop with padding to the expert capacity (NeMo's MegatronTokenDropCallback: capacity
  // factor 1, moe_pad_expert_input_to_capacity): the all-to-all splits and the tokens per expert
  // are static, so the all-to-all dispatcher needs no device-to-host synchronisation
  // (Megatron-Core's cuda_sync_point "no_sync"). Dropless (false), it synchronises every MoE
  // layer's forward before the all-to-all; DeepEP's normal mode waits on the host for the
  // received counts either way.
  bool moe_token_drop = false;
  // Expert-parallel communication overlapped with computation (Megatron-Core's combined 1F1B
  // schedule, --overlap-moe-expert-parallel-comm; Megatron-Bridge's moe_a2a_overlap): in the
  // pipeline's steady state the forward of one micro-batch runs beside the backward of another,
  // so each one's dispatch and combine all-to-alls hide under the other's computation.
  bool moe_a2a_overlap = false;
  // Multi-token prediction modules trained beside the model (Megatron's mtp_num_layers): each
  // runs one more layer of the model's kind (attention and, for a MoE model, a MoE block) and
  // the output head again, on the last pipeline stage. DeepSeek-V3 trains 1 when enabled;
  // Nemotron 3 Super's pretraining recipe 2 (one shared module run twice).
  int mtp_layers = 0;
  // CUDA graphs: "none" (eager), "full_iteration" (the whole step captured: Megatron's local
  // full-iteration graph) or the Transformer Engine scopes captured per layer, joined by "+"
  // (attn, mamba, mlp, moe, moe_router, moe_preprocess: Megatron-Core's cuda_graph_scope). A
  // captured module is issued as one graph launch instead of its kernels one by one.
  std::string cuda_graphs = "none";
  // The data-parallel reduce-scatter of the gradients and all-gather of the parameters overlapped
  // with computation (Megatron-Core's DistributedDataParallelConfig overlap_grad_reduce and
  // overlap_param_gather, which the recipes turn on): hidden under a window of micro-batches'
  // compute (the step model's dp_overlap_microbatches; every micro-batch with FSDP). Off, the step
  // waits for all of it.
  bool dp_overlap = true;
  // The attention core's kernel: "fused" (flash or cuDNN fused attention: the scores stay on chip)
  // or "unfused" (Transformer Engine's UnfusedDotProductAttention: the S × S scores of every head
  // are written to and read from HBM by batched GEMMs and a softmax kernel). A recipe runs unfused
  // where its software has no fused kernel for the model's head dimensions on that chip.
  std::string attention_backend = "fused";
  // A low-precision recipe's layers kept in bf16 at the ends of the stack (Megatron's
  // first_last_layers_bf16 with num_layers_at_start_in_bf16 + num_layers_at_end_in_bf16): every
  // GEMM of those layers runs at the bf16 rate.
  int bf16_layers = 0;
  // GEMMs a low-precision recipe's quantisation config runs in another format, "+"-joined
  // module:format pairs (Megatron-Bridge's quant_recipe matchers): modules attn (the query/key/
  // value and output projections), mlp, experts, shared_experts, latent (LatentMoE's two
  // projections), mamba_in, mamba_out (a Mamba layer's input and output projections), mtp (the
  // multi-token-prediction layers); formats bf16 or fp8 (the chip's fp8 recipe: MXFP8 on
  // Blackwell). Empty: every GEMM in the recipe's format. See ModulePrecision.
  std::string module_precision;
  int micro_batch = 0;
  int global_batch = 0;
  // The recipe release the entry is transcribed from ("v25.05.05"). Entries of a release match the
  // published rows of that release (FindRecipe).
  std::string release;
  // The current recipe of its chip, dtype and GPU count: what a prediction without a release runs
  // (FindParallelism; without one, the newest release's entry), the newest recipe release's. An
  // entry without a release is current too (IsCurrent).
  bool current = false;
  bool IsCurrent() const { return current || release.empty(); }
  std::string source;
  // Set by WeakScaledParallelism: the GPU count of the entry this one was scaled from (0: none).
  int weak_scaled_from = 0;

  // Derived: gpus / (tp·pp·cp), and global_batch / (micro_batch·dp).
  int DataParallel() const { return gpus / (tp * pp * cp); }
  int GradientAccumulation() const {
    return static_cast<int>(global_batch / (int64_t{micro_batch} * DataParallel()));
  }
};

// A published whole-model FLOPs figure to check the arithmetic against.
struct ReferenceFlops {
  double model_flops_per_sample = 0;  // at shape.seq_length
  std::string source;
};

struct ModelSpec {
  std::string path;
  std::string name;          // "llama3.1_8b"
  std::string display_name;  // "Llama 3.1 8B"
  Architecture architecture = Architecture::kDense;
  std::string source;  // [model] source: the model card
  // Other names a catalogue gives the model (dgxc-benchmarking's workload and size joined by "_":
  // "nemotron_3_120b"), by which a suite's workload id finds this file ([model] workload_names).
  std::vector<std::string> workload_names;
  ModelShape shape;
  std::optional<MoeShape> moe;
  std::optional<MlaShape> mla;
  std::optional<HybridShape> hybrid;
  std::optional<ReferenceFlops> reference;
  std::vector<Parallelism> parallelism;
};

struct ParameterCount {
  double total = 0;
  double active = 0;         // per token: shared weights plus top_k routed experts
  double active_matmul = 0;  // active less the input embedding (what FLOPs are counted on)
};

// Attention weights of one layer and the head dims of its score (qk) and value products.
struct AttentionShape {
  double params = 0;
  double qk_dim = 0;  // per head
  double v_dim = 0;
  double heads = 0;
};
// Unsupported naming the [shape] figure that is missing.
Result<AttentionShape> AttentionOf(const ModelSpec& spec);
// One MoE layer's matrices (layer_matrices.h): what every token passes (router, shared experts,
// LatentMoE's two projections) and the routed experts, all of them and the top_k a token visits.
struct MoeLayerParams {
  double common = 0, routed_total = 0, routed_active = 0;
};
Result<MoeLayerParams> MoeLayerOf(const ModelSpec& spec);
// Whether a recipe's cuda_graphs value names a graph scope ("attn", "moe_router", ...; every scope
// under "full_iteration").
bool CapturesScope(std::string_view cuda_graphs, std::string_view scope);
// Empty when `cuda_graphs` is none, full_iteration or a "+"-joined list of known scopes; else what
// was expected.
std::string CheckCudaGraphs(std::string_view cuda_graphs);
// Whether a recipe's recompute value runs `module`'s forward again in the backward: every module
// under "full", core_attn under "selective", else the modules the value joins by "+".
bool RecomputesModule(std::string_view recompute, std::string_view module);
// The share of a stack of `layers` layers in which `module`'s forward runs again: 1 or 0 as
// RecomputesModule says, but under "full" with recompute_layers N, min(1, N / the layers of one
// pipeline chunk, ceil(layers / (pp × vp))). `module` "full" asks for the modules only full
// recompute repeats (the attention projections, Mamba layers, MTP modules).
double RecomputedShare(const Parallelism& p, int layers, std::string_view module);
// Empty when `recompute` is none, selective, full or a "+"-joined list of known modules; else what
// was expected.
std::string CheckRecompute(std::string_view recompute);
// The format a recipe's module_precision gives `module`'s GEMMs ("bf16", "fp8"), or "" (the
// recipe's own format).
std::string ModulePrecision(std::string_view module_precision, std::string_view module);
// Empty when `module_precision` is empty or "+"-joined module:format pairs of known modules and
// formats; else what was expected.
std::string CheckModulePrecision(std::string_view module_precision);
// The scan terms of NVIDIA's Nemotron-H FLOP formula per token and Mamba-2 layer (forward, one
// multiply-add counted once), with d_inner = mamba_heads × mamba_head_dim (the formula's
// hidden × expand, which Nemotron 3 Nano's heads do not equal).
double MambaScanPerToken(const HybridShape& y);

Result<ParameterCount> CountParameters(const ModelSpec& spec);
// Training (fwd + bwd) FLOPs per token at the spec's sequence length, or at `seq_length` where
// given (a recipe's); see the conventions above.
Result<double> TrainingFlopsPerToken(const ModelSpec& spec,
                                     std::optional<int> seq_length = std::nullopt);

// The parallelism for a chip, dtype and GPU count, an entry of the current recipes (no release)
// before a release's; NotFound listing what the file has.
Result<Parallelism> FindParallelism(const ModelSpec& spec, std::string_view chip,
                                    std::string_view dtype, int gpus);

// With no entry for `gpus`: the entry of the chip and dtype at the nearest other GPU count (on a
// log scale; a current recipe before a release's, the larger count on a tie), at `gpus` with its
// tensor, pipeline, context and expert parallelism and micro-batch kept and the global batch
// scaled by gpus / its GPUs: the weak scaling by which the published recipes grow (dgxc-
// benchmarking: "global batch size scales proportionally with GPU count"). Its source says so.
// NotFound when the chip has no entry of the dtype, or the layout does not divide `gpus`.
Result<Parallelism> WeakScaledParallelism(const ModelSpec& spec, std::string_view chip,
                                          std::string_view dtype, int gpus);

// The entry of a recipe release for a published row: chip, dtype, GPU count, release and global
// batch all equal; NotFound listing what the file has for that chip.
Result<Parallelism> FindRecipe(const ModelSpec& spec, std::string_view chip, std::string_view dtype,
                               int gpus, std::string_view release, int global_batch);

// Parses one model file's text; `path` names it in errors.
Result<ModelSpec> ParseModelSpec(std::string_view text, const std::string& path);
Result<ModelSpec> LoadModelSpec(const std::string& path);
// Every <dir>/*.toml in file-name order; Invalid when two files share a name.
Result<std::vector<ModelSpec>> LoadModelSpecs(const std::string& models_dir);

}  // namespace ys::predict

#endif  // YARDSTICK_PREDICT_MODEL_SPEC_H_
