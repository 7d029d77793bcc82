#include "predict/model_spec.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <span>
#include <sstream>

#include "core/document_file.h"
#include "core/text.h"
#include "core/toml_reader.h"

namespace ys::predict {
namespace {

using Fields = TomlTableReader;

// Bounds of the shape (see the header): every product the arithmetic and the proxy plan form
// from them stays finite in double and within int64 before the proxy's memory budget is checked.
constexpr int kMaxDim = 1 << 22;
constexpr int kMaxLayers = 100000;
constexpr int kMaxHeads = 65536;
constexpr int kMaxVocab = 1 << 24;
constexpr int kMaxTopK = 1024;

Status ReadModel(Fields& f, ModelSpec& spec) {
  YS_RETURN_IF_ERROR(f.String("name", &spec.name, /*required=*/true, /*allow_empty=*/false));
  YS_RETURN_IF_ERROR(
      f.String("display_name", &spec.display_name, /*required=*/true, /*allow_empty=*/false));
  std::string arch;
  YS_RETURN_IF_ERROR(f.String("architecture", &arch, /*required=*/true, /*allow_empty=*/false));
  if (arch == "dense") {
    spec.architecture = Architecture::kDense;
  } else if (arch == "moe") {
    spec.architecture = Architecture::kMoe;
  } else if (arch == "hybrid") {
    spec.architecture = Architecture::kHybrid;
  } else {
    return Status::Invalid(f.Where("architecture") + ": \"" + arch +
                           "\" (expected dense, moe or hybrid)");
  }
  YS_RETURN_IF_ERROR(f.String("source", &spec.source, /*required=*/true, /*allow_empty=*/false));
  YS_RETURN_IF_ERROR(f.Strings("workload_names", &spec.workload_names, /*required=*/false,
                               /*allow_empty_list=*/false));
  for (const std::string& n : spec.workload_names) {
    if (n.empty() || n.find('/') != std::string::npos)
      return f.Error("workload_names", "\"" + n + "\" (expected a name without /)");
  }
  return f.NoOtherKeys();
}

Status ReadShape(Fields& f, ModelShape& s) {
  YS_RETURN_IF_ERROR(f.Int("layers", &s.layers, 1, kMaxLayers));
  YS_RETURN_IF_ERROR(f.Int("hidden_size", &s.hidden_size, 1, kMaxDim));
  YS_RETURN_IF_ERROR(f.Int("seq_length", &s.seq_length, 1, kMaxDim));
  YS_RETURN_IF_ERROR(f.OptionalInt("ffn_hidden_size", &s.ffn_hidden_size, 1, kMaxDim));
  YS_RETURN_IF_ERROR(f.OptionalInt("attention_heads", &s.attention_heads, 1, kMaxHeads));
  YS_RETURN_IF_ERROR(f.OptionalInt("kv_heads", &s.kv_heads, 1, kMaxHeads));
  YS_RETURN_IF_ERROR(f.OptionalInt("head_dim", &s.head_dim, 1, kMaxHeads));
  YS_RETURN_IF_ERROR(f.OptionalInt("vocab_size", &s.vocab_size, 1, kMaxVocab));
  YS_RETURN_IF_ERROR(f.Bool("gated_mlp", &s.gated_mlp));
  YS_RETURN_IF_ERROR(f.Bool("tied_embeddings", &s.tied_embeddings));
  YS_RETURN_IF_ERROR(f.String("source", &s.source, /*required=*/true, /*allow_empty=*/false));
  if (s.kv_heads && s.attention_heads && *s.attention_heads % *s.kv_heads != 0) {
    return Status::Invalid(f.Where("kv_heads") + ": " + std::to_string(*s.kv_heads) +
                           " does not divide attention_heads " +
                           std::to_string(*s.attention_heads));
  }
  return f.NoOtherKeys();
}

Status ReadMoe(Fields& f, MoeShape& m, int layers) {
  YS_RETURN_IF_ERROR(f.Int("experts", &m.experts, 1, 65536));
  YS_RETURN_IF_ERROR(f.Int("top_k", &m.top_k, 1, kMaxTopK));
  YS_RETURN_IF_ERROR(f.Int("expert_ffn_hidden_size", &m.expert_ffn_hidden_size, 1, kMaxDim));
  YS_RETURN_IF_ERROR(f.Int("shared_experts", &m.shared_experts, 0, 65536, false));
  YS_RETURN_IF_ERROR(
      f.OptionalInt("shared_expert_ffn_hidden_size", &m.shared_expert_ffn_hidden_size, 1, kMaxDim));
  YS_RETURN_IF_ERROR(f.Int("dense_layers", &m.dense_layers, 0, layers, false));
  YS_RETURN_IF_ERROR(f.Int("layer_interval", &m.layer_interval, 1, layers, false));
  YS_RETURN_IF_ERROR(f.Int("groups", &m.groups, 0, 65536, false));
  YS_RETURN_IF_ERROR(f.Int("topk_groups", &m.topk_groups, 0, 65536, false));
  YS_RETURN_IF_ERROR(f.Int("latent_size", &m.latent_size, 0, kMaxDim, false));
  YS_RETURN_IF_ERROR(f.String("source", &m.source, /*required=*/true, /*allow_empty=*/false));
  if ((m.groups == 0) != (m.topk_groups == 0) || m.topk_groups > m.groups ||
      (m.groups > 0 && m.experts % m.groups != 0)) {
    return Status::Invalid(f.Where("groups") + ": groups " + std::to_string(m.groups) +
                           ", topk_groups " + std::to_string(m.topk_groups) +
                           " (expected both or neither, topk_groups <= groups, groups dividing "
                           "experts " +
                           std::to_string(m.experts) + ")");
  }
  if (m.MoeLayers(layers) < 1) {
    return Status::Invalid(f.Where() + ": no MoE layer is left (layers " + std::to_string(layers) +
                           ", dense_layers " + std::to_string(m.dense_layers) +
                           ", layer_interval " + std::to_string(m.layer_interval) + ")");
  }
  if (m.top_k > m.experts) {
    return Status::Invalid(f.Where("top_k") + ": " + std::to_string(m.top_k) +
                           " is more than experts " + std::to_string(m.experts));
  }
  return f.NoOtherKeys();
}

Status ReadMla(Fields& f, MlaShape& m) {
  YS_RETURN_IF_ERROR(f.Int("q_lora_rank", &m.q_lora_rank, 1, kMaxDim));
  YS_RETURN_IF_ERROR(f.Int("kv_lora_rank", &m.kv_lora_rank, 1, kMaxDim));
  YS_RETURN_IF_ERROR(f.Int("qk_nope_head_dim", &m.qk_nope_head_dim, 1, 65536));
  YS_RETURN_IF_ERROR(f.Int("qk_rope_head_dim", &m.qk_rope_head_dim, 1, 65536));
  YS_RETURN_IF_ERROR(f.Int("v_head_dim", &m.v_head_dim, 1, 65536));
  YS_RETURN_IF_ERROR(f.String("source", &m.source, /*required=*/true, /*allow_empty=*/false));
  return f.NoOtherKeys();
}

Status ReadHybrid(Fields& f, HybridShape& h, int layers) {
  YS_RETURN_IF_ERROR(f.Int("mamba_layers", &h.mamba_layers, 0, layers));
  YS_RETURN_IF_ERROR(f.Int("attention_layers", &h.attention_layers, 0, layers));
  YS_RETURN_IF_ERROR(f.Int("mlp_layers", &h.mlp_layers, 0, layers));
  YS_RETURN_IF_ERROR(f.Int("moe_layers", &h.moe_layers, 0, layers, false));
  YS_RETURN_IF_ERROR(f.Int("mamba_heads", &h.mamba_heads, 1, 65536));
  YS_RETURN_IF_ERROR(f.Int("mamba_head_dim", &h.mamba_head_dim, 1, 65536));
  YS_RETURN_IF_ERROR(f.Int("ssm_state_size", &h.ssm_state_size, 1, 65536));
  YS_RETURN_IF_ERROR(f.Int("groups", &h.groups, 1, 65536));
  YS_RETURN_IF_ERROR(f.Int("chunk_size", &h.chunk_size, 1, 65536));
  YS_RETURN_IF_ERROR(f.Int("expand", &h.expand, 1, 64, false));
  YS_RETURN_IF_ERROR(f.String("source", &h.source, /*required=*/true, /*allow_empty=*/false));
  const int sum = h.mamba_layers + h.attention_layers + h.mlp_layers + h.moe_layers;
  if (sum != layers) {
    return Status::Invalid(
        f.Where() + ": mamba_layers + attention_layers + mlp_layers + moe_layers = " +
        std::to_string(sum) + ", expected [shape] layers = " + std::to_string(layers));
  }
  return f.NoOtherKeys();
}

Status ReadParallelism(Fields& f, Parallelism& p) {
  YS_RETURN_IF_ERROR(f.String("chip", &p.chip, /*required=*/true, /*allow_empty=*/false));
  YS_RETURN_IF_ERROR(f.String("dtype", &p.dtype, /*required=*/true, /*allow_empty=*/false));
  YS_RETURN_IF_ERROR(f.Int("gpus", &p.gpus, 1, 1 << 20));
  YS_RETURN_IF_ERROR(f.Int("tp", &p.tp, 1, 1024));
  YS_RETURN_IF_ERROR(f.Int("pp", &p.pp, 1, 1024));
  YS_RETURN_IF_ERROR(f.Int("cp", &p.cp, 1, 1024));
  YS_RETURN_IF_ERROR(f.Int("ep", &p.ep, 1, 65536));
  YS_RETURN_IF_ERROR(f.OptionalInt("vp", &p.vp, 1, 1024));
  YS_RETURN_IF_ERROR(f.OptionalInt("etp", &p.etp, 1, 1024));
  YS_RETURN_IF_ERROR(f.Bool("fsdp", &p.fsdp));
  YS_RETURN_IF_ERROR(
      f.String("recompute", &p.recompute, /*required=*/false, /*allow_empty=*/false));
  if (std::string bad = CheckRecompute(p.recompute); !bad.empty())
    return Status::Invalid(f.Where("recompute") + ": \"" + p.recompute + "\" (expected " + bad +
                           ")");
  YS_RETURN_IF_ERROR(f.OptionalInt("recompute_layers", &p.recompute_layers, 1, 100000));
  if (p.recompute_layers && p.recompute != "full")
    return Status::Invalid(f.Where("recompute_layers") + ": needs recompute = \"full\" (it is \"" +
                           p.recompute + "\")");
  YS_RETURN_IF_ERROR(
      f.String("moe_dispatcher", &p.moe_dispatcher, /*required=*/false, /*allow_empty=*/false));
  if (p.moe_dispatcher != "alltoall" && p.moe_dispatcher != "deepep") {
    return Status::Invalid(f.Where("moe_dispatcher") + ": \"" + p.moe_dispatcher +
                           "\" (expected alltoall or deepep)");
  }
  YS_RETURN_IF_ERROR(f.Bool("moe_token_drop", &p.moe_token_drop));
  YS_RETURN_IF_ERROR(f.Bool("moe_a2a_overlap", &p.moe_a2a_overlap));
  YS_RETURN_IF_ERROR(f.Bool("dp_overlap", &p.dp_overlap));
  YS_RETURN_IF_ERROR(f.Int("mtp_layers", &p.mtp_layers, 0, 64, false));
  YS_RETURN_IF_ERROR(
      f.String("cuda_graphs", &p.cuda_graphs, /*required=*/false, /*allow_empty=*/false));
  if (std::string bad = CheckCudaGraphs(p.cuda_graphs); !bad.empty())
    return Status::Invalid(f.Where("cuda_graphs") + ": \"" + p.cuda_graphs + "\" (expected " + bad +
                           ")");
  YS_RETURN_IF_ERROR(f.String("attention_backend", &p.attention_backend, /*required=*/false,
                              /*allow_empty=*/false));
  if (p.attention_backend != "fused" && p.attention_backend != "unfused") {
    return Status::Invalid(f.Where("attention_backend") + ": \"" + p.attention_backend +
                           "\" (expected fused or unfused)");
  }
  YS_RETURN_IF_ERROR(f.Int("bf16_layers", &p.bf16_layers, 0, 100000, false));
  YS_RETURN_IF_ERROR(f.String("module_precision", &p.module_precision, /*required=*/false,
                              /*allow_empty=*/false));
  if (std::string bad = CheckModulePrecision(p.module_precision); !bad.empty())
    return Status::Invalid(f.Where("module_precision") + ": \"" + p.module_precision +
                           "\" (expected " + bad + ")");
  YS_RETURN_IF_ERROR(f.String("release", &p.release, /*required=*/false, /*allow_empty=*/false));
  YS_RETURN_IF_ERROR(f.Bool("current", &p.current));
  YS_RETURN_IF_ERROR(f.Int("micro_batch", &p.micro_batch, 1, 1 << 20));
  YS_RETURN_IF_ERROR(f.Int("global_batch", &p.global_batch, 1, 1 << 24));
  YS_RETURN_IF_ERROR(f.String("source", &p.source, /*required=*/true, /*allow_empty=*/false));
  YS_RETURN_IF_ERROR(f.NoOtherKeys());
  int model_parallel = p.tp * p.pp * p.cp;
  if (p.gpus % model_parallel != 0) {
    return Status::Invalid(f.Where() + ": gpus " + std::to_string(p.gpus) +
                           " is not a multiple of tp·pp·cp = " + std::to_string(model_parallel));
  }
  // Megatron's expert parallelism splits the data-parallel × context-parallel ranks of one stage.
  if ((p.DataParallel() * p.cp * p.tp) % p.ep != 0) {
    return Status::Invalid(
        f.Where() + ": ep " + std::to_string(p.ep) +
        " does not divide dp·cp·tp = " + std::to_string(p.DataParallel() * p.cp * p.tp));
  }
  // ... laid out etp × ep × expert-dp over that stage's GPUs (etp defaults to tp).
  const int etp = p.etp.value_or(p.tp);
  if (p.ep > 1 && (p.gpus / p.pp) % (etp * p.ep) != 0) {
    return Status::Invalid(f.Where() + ": etp·ep = " + std::to_string(etp) + "·" +
                           std::to_string(p.ep) +
                           " does not divide gpus / pp = " + std::to_string(p.gpus / p.pp) +
                           (p.etp ? "" : " (etp defaults to tp; set etp)"));
  }
  // In 64 bits: micro_batch and dp may each be up to 2^20.
  const int64_t per_step = int64_t{p.micro_batch} * p.DataParallel();
  if (p.global_batch % per_step != 0) {
    return Status::Invalid(f.Where() + ": global_batch " + std::to_string(p.global_batch) +
                           " is not a multiple of micro_batch × dp = " + std::to_string(per_step));
  }
  return Status::Ok();
}

}  // namespace

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

Result<ModelSpec> ParseModelSpec(std::string_view text, const std::string& path) {
  auto parsed = ParseToml(text, path);
  if (!parsed.ok()) return parsed.status();
  const toml::table& doc = *parsed;
  static const std::set<std::string> kSections = {"model",  "shape",     "moe",        "mla",
                                                  "hybrid", "reference", "parallelism"};
  for (const auto& [k, n] : doc) {
    if (!kSections.count(std::string(k.str()))) {
      return Status::Invalid(TomlWhere(path, "[" + std::string(k.str()) + "]", "", &n) +
                             ": unknown section (expected model, shape, moe, mla, hybrid, "
                             "reference, [[parallelism]])");
    }
  }
  auto table = [&](const char* name, bool required) -> Result<const toml::table*> {
    const toml::node* n = doc.get(name);
    if (n == nullptr) {
      if (required) return Status::Invalid(path + ": missing [" + name + "]");
      return static_cast<const toml::table*>(nullptr);
    }
    return TomlSubTable(doc, path, name);
  };

  ModelSpec spec;
  spec.path = path;
  auto model = table("model", true);
  if (!model.ok()) return model.status();
  Fields mf(**model, path, "[model]");
  YS_RETURN_IF_ERROR(ReadModel(mf, spec));

  auto shape = table("shape", true);
  if (!shape.ok()) return shape.status();
  Fields sf(**shape, path, "[shape]");
  YS_RETURN_IF_ERROR(ReadShape(sf, spec.shape));

  auto moe = table("moe", false);
  if (!moe.ok()) return moe.status();
  if (*moe) {
    Fields f(**moe, path, "[moe]");
    MoeShape m;
    YS_RETURN_IF_ERROR(ReadMoe(f, m, spec.shape.layers));
    spec.moe = m;
  }
  auto mla = table("mla", false);
  if (!mla.ok()) return mla.status();
  if (*mla) {
    Fields f(**mla, path, "[mla]");
    MlaShape m;
    YS_RETURN_IF_ERROR(ReadMla(f, m));
    spec.mla = m;
  }
  auto hybrid = table("hybrid", false);
  if (!hybrid.ok()) return hybrid.status();
  if (*hybrid) {
    Fields f(**hybrid, path, "[hybrid]");
    HybridShape h;
    YS_RETURN_IF_ERROR(ReadHybrid(f, h, spec.shape.layers));
    spec.hybrid = h;
  }
  auto reference = table("reference", false);
  if (!reference.ok()) return reference.status();
  if (*reference) {
    Fields f(**reference, path, "[reference]");
    ReferenceFlops r;
    YS_RETURN_IF_ERROR(f.Double("model_flops_per_sample", &r.model_flops_per_sample, 1, 1e30));
    YS_RETURN_IF_ERROR(f.String("source", &r.source, /*required=*/true, /*allow_empty=*/false));
    YS_RETURN_IF_ERROR(f.NoOtherKeys());
    spec.reference = r;
  }
  if (spec.architecture == Architecture::kMoe && !spec.moe) {
    return Status::Invalid(path + ": architecture \"moe\" needs a [moe] table");
  }
  const bool hybrid_moe = spec.hybrid && spec.hybrid->moe_layers > 0;
  if (spec.architecture != Architecture::kMoe && spec.moe && !hybrid_moe) {
    return Status::Invalid(path + ": [moe] given but architecture is \"" +
                           ArchitectureName(spec.architecture) + "\"" +
                           (spec.hybrid ? " with no [hybrid] moe_layers" : ""));
  }
  if (hybrid_moe && !spec.moe) {
    return Status::Invalid(path + ": [hybrid] moe_layers " +
                           std::to_string(spec.hybrid->moe_layers) + " needs a [moe] table");
  }
  if (spec.architecture == Architecture::kHybrid && !spec.hybrid) {
    return Status::Invalid(path + ": architecture \"hybrid\" needs a [hybrid] table");
  }
  if (spec.architecture != Architecture::kHybrid && spec.hybrid) {
    return Status::Invalid(path + ": [hybrid] given but architecture is \"" +
                           ArchitectureName(spec.architecture) + "\"");
  }

  if (const toml::node* n = doc.get("parallelism")) {
    const toml::array* arr = n->as_array();
    if (arr == nullptr || !arr->is_array_of_tables()) {
      return Status::Invalid(TomlWhere(path, "", "parallelism", n) +
                             ": expected [[parallelism]] tables");
    }
    std::set<std::string> seen;
    for (size_t i = 0; i < arr->size(); ++i) {
      const toml::table& t = *arr->get(i)->as_table();
      Fields f(t, path, "[[parallelism]] " + std::to_string(i + 1));
      Parallelism p;
      YS_RETURN_IF_ERROR(ReadParallelism(f, p));
      // One current entry per chip/dtype/gpus, one entry per release and global batch of them.
      const std::string key = p.chip + "/" + p.dtype + "/" + std::to_string(p.gpus);
      if (p.IsCurrent() && !seen.insert(key).second)
        return Status::Invalid(f.Where() + ": a second current entry for " + key);
      const std::string of_release =
          key + "/" + p.release + "/gbs " + std::to_string(p.global_batch);
      if (!p.release.empty() && !seen.insert(of_release).second)
        return Status::Invalid(f.Where() + ": a second entry for " + of_release);
      spec.parallelism.push_back(std::move(p));
    }
  }
  return spec;
}

Result<ModelSpec> LoadModelSpec(const std::string& path) {
  auto text = ReadDocumentFile(path, DocumentKind::kToml);
  if (!text.ok()) return text.status();
  return ParseModelSpec(*text, path);
}

Result<std::vector<ModelSpec>> LoadModelSpecs(const std::string& models_dir) {
  std::error_code ec;
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(models_dir, ec)) {
    if (entry.path().extension() == ".toml") files.push_back(entry.path().string());
  }
  if (ec) return Status::NotFound(models_dir + ": cannot list the model specs: " + ec.message());
  std::sort(files.begin(), files.end());
  std::vector<ModelSpec> specs;
  std::map<std::string, std::string> owner;
  for (const std::string& f : files) {
    auto spec = LoadModelSpec(f);
    if (!spec.ok()) return spec.status();
    auto [it, fresh] = owner.emplace(spec->name, f);
    if (!fresh)
      return Status::Invalid(f + ": [model] name \"" + spec->name + "\" is also used by " +
                             it->second);
    specs.push_back(std::move(*spec));
  }
  return specs;
}

Result<AttentionShape> AttentionOf(const ModelSpec& spec) {
  const ModelShape& s = spec.shape;
  if (!s.attention_heads)
    return Status::Unsupported(spec.path + ": [shape] attention_heads is not given");
  double h = s.hidden_size;
  double heads = *s.attention_heads;
  AttentionShape a;
  a.heads = heads;
  if (spec.mla) {
    const MlaShape& m = *spec.mla;
    double qk = m.qk_nope_head_dim + m.qk_rope_head_dim;
    a.params = h * m.q_lora_rank + m.q_lora_rank * heads * qk  // query down and up
               + h * (m.kv_lora_rank + m.qk_rope_head_dim)     // kv down (+ shared rope key)
               + m.kv_lora_rank * heads * (m.qk_nope_head_dim + m.v_head_dim)  // kv up
               + heads * m.v_head_dim * h;                                     // output
    a.qk_dim = qk;
    a.v_dim = m.v_head_dim;
    return a;
  }
  if (!s.kv_heads) return Status::Unsupported(spec.path + ": [shape] kv_heads is not given");
  double hd = s.head_dim ? *s.head_dim : h / heads;
  a.params = 2 * h * heads * hd + 2 * h * *s.kv_heads * hd;  // q, o; k, v
  a.qk_dim = hd;
  a.v_dim = hd;
  return a;
}

double MlpParams(double h, double ffn, bool gated) { return (gated ? 3 : 2) * h * ffn; }

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

double Mlp(double h, double ffn, bool gated) { return MlpParams(h, ffn, gated); }

}  // namespace

MoeLayerParams MoeLayerOf(const MoeShape& m, double h, bool gated) {
  const double expert = Mlp(m.RoutedWidth(h), m.expert_ffn_hidden_size, gated);
  const double shared =
      m.shared_experts *
      Mlp(h, m.shared_expert_ffn_hidden_size.value_or(m.expert_ffn_hidden_size), gated);
  const double latent = m.latent_size > 0 ? 2.0 * h * m.latent_size : 0.0;  // down and up
  return {h * m.experts + shared + latent, m.experts * expert, m.top_k * expert};
}

Result<ParameterCount> CountParameters(const ModelSpec& spec) {
  const ModelShape& s = spec.shape;
  if (!s.vocab_size) return Status::Unsupported(spec.path + ": [shape] vocab_size is not given");
  double h = s.hidden_size;
  double embed = static_cast<double>(*s.vocab_size) * h;
  double head = s.tied_embeddings ? 0 : embed;
  auto attn = AttentionOf(spec);
  if (!attn.ok()) return attn.status();

  ParameterCount c;
  if (spec.hybrid) {
    const HybridShape& y = *spec.hybrid;
    if (y.mlp_layers > 0 && !s.ffn_hidden_size)
      return Status::Unsupported(spec.path + ": [shape] ffn_hidden_size is not given");
    double d_inner = static_cast<double>(y.mamba_heads) * y.mamba_head_dim;
    // in_proj: x and z (2·d_inner), B and C (2·groups·state), dt (heads); out_proj: d_inner → h.
    double mamba =
        h * (2 * d_inner + 2.0 * y.groups * y.ssm_state_size + y.mamba_heads) + d_inner * h;
    double body = y.mamba_layers * mamba + y.attention_layers * attn->params +
                  (y.mlp_layers > 0 ? y.mlp_layers * Mlp(h, *s.ffn_hidden_size, s.gated_mlp) : 0);
    c.total = c.active = embed + head + body;
    if (y.moe_layers > 0) {
      const MoeLayerParams e = MoeLayerOf(*spec.moe, h, s.gated_mlp);
      c.total += y.moe_layers * (e.common + e.routed_total);
      c.active += y.moe_layers * (e.common + e.routed_active);
    }
    c.active_matmul = c.active - embed;
    return c;
  }
  if (spec.moe) {
    const MoeShape& m = *spec.moe;
    const MoeLayerParams e = MoeLayerOf(m, h, s.gated_mlp);
    double moe_layers = m.MoeLayers(s.layers);
    double dense_layers = s.layers - moe_layers;
    double dense_mlp = 0;
    if (dense_layers > 0) {
      if (!s.ffn_hidden_size)
        return Status::Unsupported(spec.path + ": [shape] ffn_hidden_size is not given");
      dense_mlp = Mlp(h, *s.ffn_hidden_size, s.gated_mlp);
    }
    double common = s.layers * attn->params + dense_layers * dense_mlp + moe_layers * e.common;
    c.total = embed + head + common + moe_layers * e.routed_total;
    c.active = embed + head + common + moe_layers * e.routed_active;
    c.active_matmul = c.active - embed;
    return c;
  }
  if (!s.ffn_hidden_size)
    return Status::Unsupported(spec.path + ": [shape] ffn_hidden_size is not given");
  double body = s.layers * (attn->params + Mlp(h, *s.ffn_hidden_size, s.gated_mlp));
  c.total = c.active = embed + head + body;
  c.active_matmul = head + body;
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
