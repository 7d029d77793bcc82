// The reader of a model file (models/*.toml): its tables, each key's bounds, and the agreement of
// the architecture with the tables given (model_spec.h states the format).
#include <algorithm>
#include <filesystem>
#include <set>

#include "core/document_file.h"
#include "core/text.h"
#include "core/toml_reader.h"
#include "predict/model_spec.h"

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

namespace {

// A required table's reader, or Invalid naming the missing table.
Result<Fields> RequiredTable(const toml::table& doc, const std::string& path, const char* name) {
  if (doc.get(name) == nullptr) return Status::Invalid(path + ": missing [" + name + "]");
  auto t = TomlSubTable(doc, path, name);
  if (!t.ok()) return t.status();
  return Fields(**t, path, std::string("[") + name + "]");
}

// An optional table read into `out` by `read` when the document has it.
template <typename T, typename Read>
Status ReadOptionalTable(const toml::table& doc, const std::string& path, const char* name,
                         std::optional<T>& out, Read read) {
  if (doc.get(name) == nullptr) return Status::Ok();
  auto t = TomlSubTable(doc, path, name);
  if (!t.ok()) return t.status();
  Fields f(**t, path, std::string("[") + name + "]");
  T value;
  YS_RETURN_IF_ERROR(read(f, value));
  out = std::move(value);
  return Status::Ok();
}

Status ReadReference(Fields& f, ReferenceFlops& r) {
  YS_RETURN_IF_ERROR(f.Double("model_flops_per_sample", &r.model_flops_per_sample, 1, 1e30));
  YS_RETURN_IF_ERROR(f.String("source", &r.source, /*required=*/true, /*allow_empty=*/false));
  return f.NoOtherKeys();
}

// The architecture agrees with the tables given: moe needs [moe], hybrid [hybrid]; a [moe] table
// beside another architecture only as a hybrid stack's moe_layers.
Status CheckArchitecture(const ModelSpec& spec) {
  const std::string& path = spec.path;
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
  return Status::Ok();
}

// The [[parallelism]] entries: one current entry per chip/dtype/gpus, one entry per release and
// global batch of them.
Status ReadParallelismEntries(const toml::table& doc, ModelSpec& spec) {
  const std::string& path = spec.path;
  const toml::node* n = doc.get("parallelism");
  if (n == nullptr) return Status::Ok();
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
    const std::string key = p.chip + "/" + p.dtype + "/" + std::to_string(p.gpus);
    if (p.IsCurrent() && !seen.insert(key).second)
      return Status::Invalid(f.Where() + ": a second current entry for " + key);
    const std::string of_release = key + "/" + p.release + "/gbs " + std::to_string(p.global_batch);
    if (!p.release.empty() && !seen.insert(of_release).second)
      return Status::Invalid(f.Where() + ": a second entry for " + of_release);
    spec.parallelism.push_back(std::move(p));
  }
  return Status::Ok();
}

}  // namespace

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
  ModelSpec spec;
  spec.path = path;
  auto model = RequiredTable(doc, path, "model");
  if (!model.ok()) return model.status();
  YS_RETURN_IF_ERROR(ReadModel(*model, spec));
  auto shape = RequiredTable(doc, path, "shape");
  if (!shape.ok()) return shape.status();
  YS_RETURN_IF_ERROR(ReadShape(*shape, spec.shape));
  const int layers = spec.shape.layers;
  YS_RETURN_IF_ERROR(ReadOptionalTable(
      doc, path, "moe", spec.moe, [&](Fields& f, MoeShape& m) { return ReadMoe(f, m, layers); }));
  YS_RETURN_IF_ERROR(ReadOptionalTable(doc, path, "mla", spec.mla, ReadMla));
  YS_RETURN_IF_ERROR(
      ReadOptionalTable(doc, path, "hybrid", spec.hybrid,
                        [&](Fields& f, HybridShape& h) { return ReadHybrid(f, h, layers); }));
  YS_RETURN_IF_ERROR(ReadOptionalTable(doc, path, "reference", spec.reference, ReadReference));
  YS_RETURN_IF_ERROR(CheckArchitecture(spec));
  YS_RETURN_IF_ERROR(ReadParallelismEntries(doc, spec));
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

}  // namespace ys::predict
