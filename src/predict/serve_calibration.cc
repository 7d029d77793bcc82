#include "predict/serve_calibration.h"

#include <fmt/format.h>

#include <set>

#include "core/document_file.h"
#include "core/toml_reader.h"

namespace ys::predict {
namespace {

// The constants of serve_model.h: key, field, range (lower bound exclusive where 0 would make a
// rate or a share vanish), and whether a [[chip]] set carries it (the fitted ones).
struct ServeConstantInfo {
  const char* name;
  double ServeConstants::*field;
  double lo, hi;
  LowerBound lower;
  bool per_chip;
};

constexpr ServeConstantInfo kServeConstants[] = {
    {"prefill_efficiency", &ServeConstants::prefill_efficiency, 0, 1, LowerBound::kExclusive, true},
    {"decode_hbm_efficiency", &ServeConstants::decode_hbm_efficiency, 0, 1, LowerBound::kExclusive,
     true},
    {"host_seconds_per_step", &ServeConstants::host_seconds_per_step, 0, 1, LowerBound::kInclusive,
     true},
    {"allreduce_latency_s", &ServeConstants::allreduce_latency_s, 0, 1e-2, LowerBound::kInclusive,
     true},
    {"decode_seconds_per_layer", &ServeConstants::decode_seconds_per_layer, 0, 1e-2,
     LowerBound::kInclusive, true},
    {"decode_overlap_share", &ServeConstants::decode_overlap_share, 0, 1, LowerBound::kInclusive,
     true},
    {"runtime_reserved_bytes", &ServeConstants::runtime_reserved_bytes, 0, 1e11,
     LowerBound::kInclusive, true},
    {"kv_memory_share", &ServeConstants::kv_memory_share, 0, 1, LowerBound::kExclusive, false},
    {"max_batch", &ServeConstants::max_batch, 1, 1e6, LowerBound::kInclusive, false},
};

// The constants a table carries: every one ([constants]) or the fitted ones ([[chip]]).
Status ReadConstants(TomlTableReader& r, bool chip_set, ServeConstants* c) {
  for (const ServeConstantInfo& info : kServeConstants) {
    if (chip_set && !info.per_chip) continue;
    YS_RETURN_IF_ERROR(
        r.Double(info.name, &(c->*(info.field)), info.lo, info.hi, /*required=*/true, info.lower));
  }
  return Status::Ok();
}

const toml::table* TableNamed(const toml::table& doc, const char* name) {
  const toml::node* n = doc.get(name);
  return n == nullptr ? nullptr : n->as_table();
}

const toml::array* ArrayOfTables(const toml::table& doc, const std::string& path, const char* key,
                                 Status* st) {
  const toml::node* node = doc.get(key);
  if (node == nullptr) return nullptr;
  const toml::array* arr = node->as_array();
  if (arr == nullptr || !arr->is_array_of_tables()) {
    *st = Status::Invalid(TomlWhere(path, key, "", node) + ": expected [[" + key + "]] tables");
    return nullptr;
  }
  return arr;
}

Status ReadErrorEntry(TomlTableReader& r, bool keyed, ServeErrorEntry* e) {
  if (keyed) {
    YS_RETURN_IF_ERROR(r.String("chip", &e->chip, /*required=*/true, /*allow_empty=*/false));
    YS_RETURN_IF_ERROR(r.String("dtype", &e->dtype, /*required=*/true, /*allow_empty=*/false));
    YS_RETURN_IF_ERROR(r.String("architecture", &e->architecture, /*required=*/false));
    if (e->architecture != "dense" && e->architecture != "moe")
      return r.Error("architecture", "expected \"dense\" or \"moe\"");
  }
  YS_RETURN_IF_ERROR(r.Double("median", &e->median, 0, 100));
  YS_RETURN_IF_ERROR(r.Double("p90", &e->p90, 0, 100));
  YS_RETURN_IF_ERROR(r.Int("rows", &e->rows, 1, 1 << 20));
  YS_RETURN_IF_ERROR(r.String("source", &e->source, /*required=*/true, /*allow_empty=*/false));
  YS_RETURN_IF_ERROR(r.NoOtherKeys());
  if (e->p90 < e->median) return r.Error("p90", "below median");
  return Status::Ok();
}

Status ReadErrors(const toml::table& doc, const std::string& path, ServeCalibration& cal) {
  Status st = Status::Ok();
  const toml::array* arr = ArrayOfTables(doc, path, "error", &st);
  if (arr == nullptr) return st;
  std::set<std::string> seen;
  for (size_t i = 0; i < arr->size(); ++i) {
    TomlTableReader r(*arr->get(i)->as_table(), path, "[[error]] " + std::to_string(i + 1));
    ServeErrorEntry e;
    YS_RETURN_IF_ERROR(ReadErrorEntry(r, /*keyed=*/true, &e));
    const std::string key = e.chip + " " + e.dtype + (e.architecture == "moe" ? " moe" : "");
    if (!seen.insert(key).second) return r.Error("chip", "a second entry for " + key);
    cal.errors.push_back(std::move(e));
  }
  return Status::Ok();
}

Status ReadChipSets(const toml::table& doc, const std::string& path, ServeCalibration& cal) {
  Status st = Status::Ok();
  const toml::array* arr = ArrayOfTables(doc, path, "chip", &st);
  if (arr == nullptr) return st;
  for (size_t i = 0; i < arr->size(); ++i) {
    TomlTableReader r(*arr->get(i)->as_table(), path, "[[chip]] " + std::to_string(i + 1));
    ServeChipConstants c{.constants = cal.constants};
    YS_RETURN_IF_ERROR(r.String("chip", &c.chip, /*required=*/true, /*allow_empty=*/false));
    YS_RETURN_IF_ERROR(r.String("dtype", &c.dtype, /*required=*/true, /*allow_empty=*/false));
    YS_RETURN_IF_ERROR(ReadConstants(r, /*chip_set=*/true, &c.constants));
    YS_RETURN_IF_ERROR(r.NoOtherKeys());
    for (const ServeChipConstants& seen : cal.chips) {
      if (seen.chip == c.chip && seen.dtype == c.dtype)
        return r.Error("chip", "a second set for " + c.chip + " " + c.dtype);
    }
    cal.chips.push_back(std::move(c));
  }
  return Status::Ok();
}

const ServeChipConstants* ChipSet(const ServeCalibration& cal, std::string_view chip,
                                  std::string_view dtype) {
  for (const ServeChipConstants& c : cal.chips) {
    if (c.chip == chip && c.dtype == dtype) return &c;
  }
  return nullptr;
}

// The situation and figures of `architecture`'s entries alone (see the header).
ServeExpectedError EntryError(const ServeCalibration& cal, std::string_view chip,
                              std::string_view dtype, std::string_view architecture) {
  const std::string sibling = ServeSiblingChip(chip);
  const ServeErrorEntry* widest = nullptr;
  const ServeErrorEntry* borrowed = nullptr;
  for (const ServeErrorEntry& e : cal.errors) {
    if (e.architecture != architecture) continue;
    if (e.chip == chip && e.dtype == dtype) {
      return {ServeSituation::kCalibratedChip, e.median, e.p90, e.rows, e.source};
    }
    if (!sibling.empty() && e.chip == sibling && e.dtype == dtype) borrowed = &e;
    if (widest == nullptr || e.p90 > widest->p90) widest = &e;
  }
  if (widest == nullptr) return {};
  if (borrowed != nullptr) {
    return {ServeSituation::kBorrowedChip, borrowed->median, borrowed->p90, borrowed->rows,
            fmt::format("measured on {} (the same GPU die; no published row of {}): {}",
                        borrowed->chip, chip, borrowed->source)};
  }
  if (architecture == "dense" && cal.other_chip) {
    const ServeErrorEntry& o = *cal.other_chip;
    return {ServeSituation::kUncalibrated, o.median, o.p90, o.rows, o.source};
  }
  return {ServeSituation::kUncalibrated, widest->median, widest->p90, widest->rows,
          "the widest chip's figures, a floor of what it may miss by: " + widest->chip + " " +
              widest->dtype + ": " + widest->source};
}

}  // namespace

const char* ServeSituationName(ServeSituation s) {
  switch (s) {
    case ServeSituation::kCalibratedChip:
      return "calibrated_chip";
    case ServeSituation::kBorrowedChip:
      return "borrowed_chip";
    case ServeSituation::kUncalibrated:
      return "uncalibrated";
    case ServeSituation::kNoServingCalibration:
      return "no_serving_calibration";
  }
  return "?";
}

std::string ServeExpectedError::Line() const {
  if (!median || !p90) {
    return fmt::format("expected error: unknown ({}: no held-out serving rows to measure it on)",
                       ServeSituationName(situation));
  }
  return fmt::format("expected error: median {:.0f}%, p90 {:.0f}% ({}{}: {} rows, {})",
                     100 * *median, 100 * *p90, ServeSituationName(situation),
                     situation == ServeSituation::kUncalibrated
                         ? ", constants fitted on other chips; this chip and precision have "
                           "no published row"
                         : "",
                     rows, source);
}

std::string ServeSiblingChip(std::string_view chip) {
  if (chip.size() > 2 && chip.substr(0, 2) == "gb") return std::string(chip.substr(1));
  return "";
}

ServeConstants ServeConstantsFor(const ServeCalibration* cal, const ServeConstants& fallback,
                                 std::string_view chip, std::string_view dtype) {
  if (cal == nullptr) return fallback;
  if (const ServeChipConstants* c = ChipSet(*cal, chip, dtype)) return c->constants;
  const std::string sibling = ServeSiblingChip(chip);
  if (!sibling.empty()) {
    if (const ServeChipConstants* c = ChipSet(*cal, sibling, dtype)) return c->constants;
  }
  return cal->constants;
}

const char* ServeArchitecture(const ModelSpec& model) {
  return model.moe && model.moe->experts > 0 ? "moe" : "dense";
}

ServeExpectedError ExpectedServeError(const ServeCalibration* cal, std::string_view chip,
                                      std::string_view dtype, std::string_view architecture) {
  if (cal == nullptr) return {};
  ServeExpectedError dense = EntryError(*cal, chip, dtype, "dense");
  if (architecture != "moe") return dense;
  ServeExpectedError moe = EntryError(*cal, chip, dtype, "moe");
  if (moe.situation == ServeSituation::kCalibratedChip ||
      moe.situation == ServeSituation::kBorrowedChip)
    return moe;
  const auto& any = cal->moe_any_chip;
  if (!any || (dense.p90 && *dense.p90 >= any->p90)) return dense;
  return {
      dense.situation == ServeSituation::kNoServingCalibration ? ServeSituation::kUncalibrated
                                                               : dense.situation,
      any->median, any->p90, any->rows,
      fmt::format("an MoE model, and no held-out MoE row of {} {}: {}", chip, dtype, any->source)};
}

Result<ServeCalibration> ParseServeCalibration(std::string_view text, const std::string& path) {
  auto doc = ParseToml(text, path);
  if (!doc.ok()) return doc.status();
  for (const auto& [k, n] : *doc) {
    const std::string key(k.str());
    if (key != "provenance" && key != "constants" && key != "chip" && key != "error" &&
        key != "other_chip" && key != "moe_any_chip") {
      return Status::Invalid(TomlWhere(path, "[" + key + "]", "", &n) +
                             ": unknown section (expected [provenance], [constants], [[chip]], "
                             "[[error]], [other_chip], [moe_any_chip])");
    }
  }
  ServeCalibration cal;
  cal.path = path;
  const toml::table* prov = TableNamed(*doc, "provenance");
  if (prov == nullptr) return Status::Invalid(path + ": missing [provenance] table");
  TomlTableReader pr(*prov, path, "[provenance]");
  YS_RETURN_IF_ERROR(pr.String("source", &cal.source, /*required=*/true, /*allow_empty=*/false));
  YS_RETURN_IF_ERROR(pr.String("fitted_by", &cal.fitted_by));
  YS_RETURN_IF_ERROR(pr.NoOtherKeys());
  const toml::table* consts = TableNamed(*doc, "constants");
  if (consts == nullptr) return Status::Invalid(path + ": missing [constants] table");
  TomlTableReader cr(*consts, path, "[constants]");
  YS_RETURN_IF_ERROR(ReadConstants(cr, /*chip_set=*/false, &cal.constants));
  YS_RETURN_IF_ERROR(cr.NoOtherKeys());
  YS_RETURN_IF_ERROR(ReadChipSets(*doc, path, cal));
  YS_RETURN_IF_ERROR(ReadErrors(*doc, path, cal));
  if (const toml::table* other = TableNamed(*doc, "other_chip")) {
    TomlTableReader r(*other, path, "[other_chip]");
    ServeErrorEntry e{.chip = "*", .dtype = "*"};
    YS_RETURN_IF_ERROR(ReadErrorEntry(r, /*keyed=*/false, &e));
    cal.other_chip = std::move(e);
  }
  if (const toml::table* moe = TableNamed(*doc, "moe_any_chip")) {
    TomlTableReader r(*moe, path, "[moe_any_chip]");
    ServeErrorEntry e{.chip = "*", .dtype = "*", .architecture = "moe"};
    YS_RETURN_IF_ERROR(ReadErrorEntry(r, /*keyed=*/false, &e));
    cal.moe_any_chip = std::move(e);
  }
  return cal;
}

Result<ServeCalibration> LoadServeCalibration(const std::string& path) {
  auto text = ReadDocumentFile(path, DocumentKind::kToml);
  if (!text.ok()) return text.status();
  return ParseServeCalibration(*text, path);
}

std::string ServeCalibrationPath(const std::string& data_dir) {
  return data_dir + "/calibration/serve_model.toml";
}

}  // namespace ys::predict
