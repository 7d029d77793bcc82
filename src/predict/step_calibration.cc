#include "predict/step_calibration.h"

#include <set>

#include "core/document_file.h"
#include "core/toml_reader.h"

namespace ys::predict {
namespace {

using predict::ConstantInfo;
using predict::ConstantTable;

const toml::table* TableAt(const toml::table& doc, const char* name) {
  const toml::node* n = doc.get(name);
  return n == nullptr ? nullptr : n->as_table();
}

}  // namespace

const ChipSystem* StepCalibration::Chip(std::string_view chip) const {
  for (const ChipSystem& c : chips) {
    if (c.chip == chip) return &c;
  }
  return nullptr;
}

std::string StepCalibrationPath(const std::string& data_dir) {
  return data_dir + "/calibration/step_model.toml";
}

Result<StepCalibration> ParseStepCalibration(std::string_view text, const std::string& path) {
  auto doc = ParseToml(text, path);
  if (!doc.ok()) return doc.status();
  for (const auto& [k, n] : *doc) {
    const std::string key(k.str());
    if (key != "provenance" && key != "constants" && key != "chip") {
      return Status::Invalid(path + ": [" + key +
                             "]: unknown section (expected [provenance], [constants], [[chip]])");
    }
  }
  StepCalibration cal;
  cal.path = path;
  const toml::table* prov = TableAt(*doc, "provenance");
  if (prov == nullptr) return Status::Invalid(path + ": missing [provenance] table");
  TomlTableReader pr(*prov, path, "[provenance]");
  YS_RETURN_IF_ERROR(pr.String("source", &cal.source));
  YS_RETURN_IF_ERROR(pr.String("fitted_by", &cal.fitted_by));
  YS_RETURN_IF_ERROR(pr.String("split", &cal.split));
  YS_RETURN_IF_ERROR(pr.NoOtherKeys());

  const toml::table* consts = TableAt(*doc, "constants");
  if (consts == nullptr) return Status::Invalid(path + ": missing [constants] table");
  TomlTableReader cr(*consts, path, "[constants]");
  for (const ConstantInfo& info : ConstantTable()) {
    YS_RETURN_IF_ERROR(cr.Double(info.name, &(cal.constants.*(info.field)), info.lo, info.hi));
  }
  YS_RETURN_IF_ERROR(cr.NoOtherKeys());

  const toml::node* chips = doc->get("chip");
  if (chips == nullptr) return Status::Invalid(path + ": missing [[chip]] tables");
  const toml::array* arr = chips->as_array();
  if (arr == nullptr || !arr->is_array_of_tables())
    return Status::Invalid(path + ": chip: expected [[chip]] tables");
  std::set<std::string> seen;
  for (size_t i = 0; i < arr->size(); ++i) {
    TomlTableReader r(*arr->get(i)->as_table(), path, "[[chip]] " + std::to_string(i + 1));
    ChipSystem c;
    YS_RETURN_IF_ERROR(r.String("chip", &c.chip));
    YS_RETURN_IF_ERROR(r.String("family", &c.family));
    if (c.family != "hopper" && c.family != "blackwell") {
      return Status::Invalid(r.Where() + ": family \"" + c.family +
                             "\" (expected hopper or blackwell)");
    }
    YS_RETURN_IF_ERROR(r.Int("nvlink_domain", &c.nvlink_domain, 1, 1 << 16));
    c.gpus_per_node = c.nvlink_domain;
    YS_RETURN_IF_ERROR(r.Int("gpus_per_node", &c.gpus_per_node, 1, 1 << 16, /*required=*/false));
    if (c.nvlink_domain % c.gpus_per_node != 0) {
      return r.Error("gpus_per_node", "nvlink_domain " + std::to_string(c.nvlink_domain) +
                                          " is not a multiple of gpus_per_node " +
                                          std::to_string(c.gpus_per_node));
    }
    YS_RETURN_IF_ERROR(r.Double("network_gb_per_s", &c.network_gb_per_s, 0, 1e5, /*required=*/true,
                                LowerBound::kExclusive));
    YS_RETURN_IF_ERROR(
        r.OptionalDouble("hbm_tb_per_s", &c.hbm_tb_per_s, 0, 1e3, LowerBound::kExclusive));
    YS_RETURN_IF_ERROR(r.String("constants_from", &c.constants_from, /*required=*/false));
    YS_RETURN_IF_ERROR(r.String("source", &c.source));
    YS_RETURN_IF_ERROR(r.NoOtherKeys());
    if (c.chip.empty()) return Status::Invalid(r.Where() + ": chip: expected a chip name");
    if (!seen.insert(c.chip).second)
      return Status::Invalid(r.Where() + ": a second [[chip]] for " + c.chip);
    cal.chips.push_back(std::move(c));
  }
  for (size_t i = 0; i < cal.chips.size(); ++i) {
    const ChipSystem& c = cal.chips[i];
    if (c.constants_from.empty()) continue;
    const ChipSystem* from = cal.Chip(c.constants_from);
    if (from == nullptr || from == &c || from->family != c.family ||
        !from->constants_from.empty()) {
      return Status::Invalid(path + ": [[chip]] " + std::to_string(i + 1) + ": constants_from: \"" +
                             c.constants_from + "\" (expected another [[chip]] of family " +
                             c.family + " that takes no other chip's constants)");
    }
  }
  return cal;
}

Result<StepCalibration> LoadStepCalibration(const std::string& path) {
  auto text = ReadDocumentFile(path, DocumentKind::kToml);
  if (!text.ok()) return text.status();
  return ParseStepCalibration(*text, path);
}

}  // namespace ys::predict
