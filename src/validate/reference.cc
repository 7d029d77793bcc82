#include "validate/reference.h"

#include <algorithm>
#include <filesystem>

#include "core/document_file.h"
#include "core/toml_reader.h"

namespace ys::validate {

namespace fs = std::filesystem;

Result<ReferenceSet> ReferenceSet::LoadDirectory(const std::string& dir) {
  ReferenceSet set;
  YS_RETURN_IF_ERROR(set.AddDirectory(dir));
  return set;
}

Status ReferenceSet::AddDirectory(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return Status::Ok();
  std::vector<std::string> files;
  for (auto it = fs::recursive_directory_iterator(dir, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it->is_regular_file() && it->path().extension() == ".toml")
      files.push_back(it->path().string());
  }
  std::sort(files.begin(), files.end());
  for (const auto& f : files) YS_RETURN_IF_ERROR(AddFile(f));
  return Status::Ok();
}

Status ReferenceSet::AddFile(const std::string& path) {
  auto text = ReadDocumentFile(path, DocumentKind::kToml);
  if (!text.ok()) return text.status();
  return AddText(*text, path);
}

namespace {

// The [provenance] table; `serving` says whether its metric is "serving" (else "step_time_s").
Status ReadProvenance(const toml::table& prov, const std::string& path, Provenance& p,
                      bool& serving) {
  p.path = path;
  TomlTableReader pr(prov, path, "[provenance]");
  YS_RETURN_IF_ERROR(pr.String("chip", &p.chip));
  YS_RETURN_IF_ERROR(pr.String("kind", &p.kind));
  if (p.kind != "published" && p.kind != "recorded" && p.kind != "site" && p.kind != "proxy") {
    return pr.Error("kind",
                    "expected \"published\" or \"recorded\" (training), \"site\", \"recorded\" "
                    "or \"proxy\" (serving)");
  }
  std::string metric;
  YS_RETURN_IF_ERROR(pr.String("metric", &metric));
  if (metric != "step_time_s" && metric != "serving") {
    return pr.Error("metric", "expected \"step_time_s\" (training) or \"serving\"");
  }
  serving = metric == "serving";
  if (!serving && p.kind != "published" && p.kind != "recorded") {
    return pr.Error("kind", "expected \"published\" or \"recorded\"");
  }
  if (serving && p.kind != "site" && p.kind != "recorded" && p.kind != "proxy") {
    return pr.Error("kind",
                    "expected \"site\" (figures the site was given), \"recorded\" (a golden run) "
                    "or \"proxy\" (public figures standing in for a reference)");
  }
  YS_RETURN_IF_ERROR(pr.String("release", &p.release));
  YS_RETURN_IF_ERROR(pr.String("source", &p.source));
  YS_RETURN_IF_ERROR(pr.String("date", &p.date));
  YS_RETURN_IF_ERROR(pr.String("hardware", &p.hardware));
  YS_RETURN_IF_ERROR(pr.String("software", &p.software));
  YS_RETURN_IF_ERROR(pr.String("made_by", &p.made_by));
  YS_RETURN_IF_ERROR(pr.String("note", &p.note, /*required=*/false));
  YS_RETURN_IF_ERROR(pr.NoOtherKeys());
  return Status::Ok();
}

}  // namespace

Status ReferenceSet::AddText(std::string_view text, const std::string& path) {
  auto doc = ParseToml(text, path);
  if (!doc.ok()) return doc.status();
  for (const auto& [k, v] : *doc) {
    std::string key(k.str());
    if (key != "provenance" && key != "reference" && key != "serving_reference") {
      return Status::Invalid(path + ": unknown table [" + key +
                             "]; expected [provenance] and [[reference]] or [[serving_reference]]");
    }
  }
  const toml::table* prov = (*doc)["provenance"].as_table();
  if (prov == nullptr)
    return Status::Invalid(path +
                           ": missing [provenance]: a reference without provenance is not used");
  Provenance p;
  bool serving = false;
  YS_RETURN_IF_ERROR(ReadProvenance(*prov, path, p, serving));
  if (serving) return AddServing(*doc, p, path);
  if (doc->contains("serving_reference")) {
    return Status::Invalid(path + ": [[serving_reference]] in a file whose metric is step_time_s");
  }

  const toml::array* list = (*doc)["reference"].as_array();
  if (list == nullptr) return Status::Invalid(path + ": no [[reference]] entries");
  int i = 0;
  for (const auto& node : *list) {
    ++i;
    const toml::table* t = node.as_table();
    if (t == nullptr)
      return Status::Invalid(path + ": [[reference]] " + std::to_string(i) + ": expected a table");
    Reference r;
    r.provenance = p;
    TomlTableReader rr(*t, path, "[[reference]] " + std::to_string(i));
    YS_RETURN_IF_ERROR(rr.String("workload", &r.workload));
    YS_RETURN_IF_ERROR(rr.String("model", &r.model));
    YS_RETURN_IF_ERROR(rr.String("size", &r.size));
    YS_RETURN_IF_ERROR(rr.String("dtype", &r.dtype));
    YS_RETURN_IF_ERROR(rr.Int("gpus", &r.gpus, 1, 1 << 20));
    YS_RETURN_IF_ERROR(rr.Int("seq_len", &r.seq_len, 1, 1 << 24));
    YS_RETURN_IF_ERROR(rr.Int("gbs", &r.gbs, 1, 1 << 24));
    YS_RETURN_IF_ERROR(rr.Double("step_time_s", &r.step_time_s, 1e-6, 1e6));
    // Reference values are finite and positive, with floors far below any real figure (a
    // denormal would divide into an infinite score or MFU).
    YS_RETURN_IF_ERROR(rr.OptionalDouble("tflops_per_gpu", &r.tflops_per_gpu, 1e-3, 1e6));
    YS_RETURN_IF_ERROR(
        rr.OptionalDouble("published_tokens_per_s", &r.published_tokens_per_s, 1e-3, 1e12));
    YS_RETURN_IF_ERROR(rr.OptionalDouble("published_mfu", &r.published_mfu, 1e-4, 1));
    YS_RETURN_IF_ERROR(rr.String("file", &r.file, /*required=*/false));
    YS_RETURN_IF_ERROR(rr.String("inconsistent", &r.inconsistent, /*required=*/false));
    YS_RETURN_IF_ERROR(rr.NoOtherKeys());
    std::string expect_id = r.model + "_" + r.size + "_" + r.dtype;
    if (r.workload != expect_id) {
      return Status::Invalid(rr.Where() + ": workload \"" + r.workload +
                             "\" does not match model_size_dtype \"" + expect_id + "\"");
    }
    refs_.push_back(std::move(r));
  }
  return Status::Ok();
}

Status ReferenceSet::AddServing(const toml::table& doc, const Provenance& p,
                                const std::string& path) {
  if (doc.contains("reference")) {
    return Status::Invalid(path + ": [[reference]] in a file whose metric is serving");
  }
  const toml::array* list = doc["serving_reference"].as_array();
  if (list == nullptr) return Status::Invalid(path + ": no [[serving_reference]] entries");
  int i = 0;
  for (const auto& node : *list) {
    ++i;
    const toml::table* t = node.as_table();
    if (t == nullptr) {
      return Status::Invalid(path + ": [[serving_reference]] " + std::to_string(i) +
                             ": expected a table");
    }
    TomlTableReader rr(*t, path, "[[serving_reference]] " + std::to_string(i));
    auto ref = ParseServingReference(rr);
    if (!ref.ok()) return ref.status();
    ref->provenance = p;
    serving_.push_back(std::move(*ref));
  }
  return Status::Ok();
}

const ServingReference* ReferenceSet::FindServing(const std::string& chip,
                                                  const ServingPhase& phase) const {
  auto rank = [](const std::string& kind) {
    return kind == "recorded" ? 2 : kind == "site" ? 1 : 0;
  };
  const ServingReference* best = nullptr;
  for (const ServingReference& r : serving_) {
    if (r.provenance.chip != chip || r.phase != phase.id || r.model != phase.model ||
        r.precision != phase.precision || r.isl != phase.isl || r.osl != phase.osl ||
        r.gpus != phase.gpus) {
      continue;
    }
    if (best == nullptr || rank(r.provenance.kind) >= rank(best->provenance.kind)) best = &r;
  }
  return best;
}

ReferenceSet::Match ReferenceSet::Find(const std::string& chip, const SuiteWorkload& w,
                                       const std::string& release) const {
  Match m;
  for (const auto& r : refs_) {
    if (r.provenance.chip != chip || r.workload != w.id || r.gpus != w.gpus ||
        r.seq_len != w.seq_len || r.gbs != w.gbs) {
      continue;
    }
    if (r.provenance.release == release) {
      // A recorded reference (a golden run of this release) wins over a published one; among
      // equals, the last loaded (files are sorted) wins.
      if (m.exact == nullptr || r.provenance.kind == "recorded" ||
          m.exact->provenance.kind != "recorded") {
        m.exact = &r;
      }
    } else {
      m.other_release.push_back(&r);
    }
  }
  return m;
}

}  // namespace ys::validate
