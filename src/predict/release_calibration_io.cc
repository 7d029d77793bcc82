// calibration/releases.toml: reading and writing (predict/release_calibration.h).
#include <fmt/format.h>

#include "core/document_file.h"
#include "core/toml_reader.h"
#include "predict/release_calibration.h"

namespace ys::predict {
namespace {

Status ReadChip(const toml::table& t, const std::string& path, const std::string& name,
                ChipConstants* k) {
  TomlTableReader r(t, path, name);
  YS_RETURN_IF_ERROR(r.Int("rows", &k->rows, 0, 1 << 20));
  YS_RETURN_IF_ERROR(r.Int("models", &k->models, 0, 1 << 20));
  YS_RETURN_IF_ERROR(r.String("fitted_from", &k->fitted_from));
  for (const char* p : kPrecisions) {
    std::optional<double> v;
    YS_RETURN_IF_ERROR(r.OptionalDouble((std::string("gemm_") + p).c_str(), &v, 0.01, 1));
    if (v) k->gemm[p] = *v;
  }
  YS_RETURN_IF_ERROR(r.Double("tp_exposed", &k->tp_exposed, 0, 1));
  YS_RETURN_IF_ERROR(r.Double("moe_dispatch_passes", &k->moe_dispatch_passes, 0, 1000));
  for (auto [name, stats] :
       {std::pair{"lomo", &k->lomo}, {"next", &k->next}, {"anchored", &k->anchored}}) {
    const std::string n(name);
    YS_RETURN_IF_ERROR(r.Int((n + "_rows").c_str(), &stats->rows, 0, 1 << 20, false));
    if (stats->rows == 0) continue;
    YS_RETURN_IF_ERROR(r.Double((n + "_median").c_str(), &stats->median_abs, 0, 1e6));
    YS_RETURN_IF_ERROR(r.Double((n + "_p90").c_str(), &stats->p90_abs, 0, 1e6));
  }
  return r.NoOtherKeys();
}

}  // namespace

std::string ReleaseCalibrationToml(const ReleaseCalibration& cal) {
  std::string s = fmt::format(
      "[provenance]\nfitted_by = \"yardstick predict --published --fit\"\ntables = \"{}\"\n"
      "prior_rows = {}\nmin_models = {}\n",
      cal.tables, kPriorRows, kMinModels);
  for (const ReleaseConstants& r : cal.releases) {
    for (const ChipConstants& k : r.chips) {
      s += fmt::format("\n[release.\"{}\".{}]\nrows = {}\nmodels = {}\nfitted_from = \"{}\"\n",
                       r.release, k.chip, k.rows, k.models, k.fitted_from);
      for (const char* p : kPrecisions) {
        auto it = k.gemm.find(p);
        if (it != k.gemm.end()) s += fmt::format("gemm_{} = {:.4g}\n", p, it->second);
      }
      s += fmt::format("tp_exposed = {:.4g}\nmoe_dispatch_passes = {:.4g}\n", k.tp_exposed,
                       k.moe_dispatch_passes);
      for (auto [name, stats] :
           {std::pair{"lomo", &k.lomo}, {"next", &k.next}, {"anchored", &k.anchored}}) {
        if (stats->rows == 0) continue;
        s += fmt::format("{0}_rows = {1}\n{0}_median = {2:.4f}\n{0}_p90 = {3:.4f}\n", name,
                         stats->rows, stats->median_abs, stats->p90_abs);
      }
    }
  }
  return s;
}

Result<ReleaseCalibration> ParseReleaseCalibration(std::string_view text, const std::string& path) {
  auto doc = ParseToml(text, path);
  if (!doc.ok()) return doc.status();
  ReleaseCalibration cal;
  cal.path = path;
  for (const auto& [k, n] : *doc) {
    const std::string key(k.str());
    if (key != "provenance" && key != "release")
      return Status::Invalid(path + ": [" + key +
                             "]: unknown section (expected [provenance], "
                             "[release.\"TAG\".CHIP])");
  }
  const toml::table* prov = doc->get_as<toml::table>("provenance");
  if (prov == nullptr) return Status::Invalid(path + ": missing [provenance] table");
  TomlTableReader pr(*prov, path, "[provenance]");
  std::string fitted_by;
  double prior_rows = 0;
  int min_models = 0;
  YS_RETURN_IF_ERROR(pr.String("fitted_by", &fitted_by));
  YS_RETURN_IF_ERROR(pr.String("tables", &cal.tables));
  YS_RETURN_IF_ERROR(pr.Double("prior_rows", &prior_rows, 0, 1e6));
  YS_RETURN_IF_ERROR(pr.Int("min_models", &min_models, 0, 1 << 20));
  YS_RETURN_IF_ERROR(pr.NoOtherKeys());
  const toml::table* releases = doc->get_as<toml::table>("release");
  if (releases == nullptr) return cal;  // nothing calibrated: the base constants apply
  for (const auto& [tag, node] : *releases) {
    const toml::table* chips = node.as_table();
    const std::string name = "[release.\"" + std::string(tag.str()) + "\"]";
    if (chips == nullptr || ReleaseNumbers(tag.str()).empty())
      return Status::Invalid(path + ": " + name + ": expected a table named by a release number");
    ReleaseConstants r{std::string(tag.str()), {}};
    for (const auto& [chip, cn] : *chips) {
      const toml::table* t = cn.as_table();
      const std::string cname =
          name.substr(0, name.size() - 1) + "." + std::string(chip.str()) + "]";
      if (t == nullptr) return Status::Invalid(path + ": " + cname + ": expected a table");
      ChipConstants k;
      k.chip = std::string(chip.str());
      YS_RETURN_IF_ERROR(ReadChip(*t, path, cname, &k));
      r.chips.push_back(std::move(k));
    }
    cal.releases.push_back(std::move(r));
  }
  std::stable_sort(cal.releases.begin(), cal.releases.end(),
                   [](const ReleaseConstants& a, const ReleaseConstants& b) {
                     return ReleaseBefore(a.release, b.release);
                   });
  return cal;
}

Result<ReleaseCalibration> LoadReleaseCalibration(const std::string& data_dir) {
  const std::string path = data_dir + "/calibration/releases.toml";
  auto text = ReadDocumentFile(path, DocumentKind::kToml);
  if (!text.ok()) return text.status();
  return ParseReleaseCalibration(*text, path);
}

}  // namespace ys::predict
