#include "burnin_report/burnin_section.h"

#include <fmt/format.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <utility>

#include "burnin_report/burnin_fields.h"
#include "burnin_report/burnin_json.h"
#include "core/json_fields.h"
#include "core/json_schema.h"

namespace ys {
namespace {

Result<std::shared_ptr<const RunSection>> ReadBurninSection(const nlohmann::json& j,
                                                            const json_fields::Path& at,
                                                            json_fields::Style style) {
  BurninReport report;
  YS_RETURN_IF_ERROR(json_fields::Reader::Read(j, at, style, report));
  return std::shared_ptr<const RunSection>(
      std::make_shared<const BurninRunSection>(std::move(report)));
}

// What the field list said when the run document held the report itself: the report or null.
nlohmann::ordered_json BurninSectionSchema(
    json_fields::BasicSchemaWriter<nlohmann::ordered_json>& walker) {
  return walker.Value(std::shared_ptr<const BurninReport>(), walker.style());
}

[[maybe_unused]] const bool kBurninSectionRegistered =
    RegisterRunSection("burnin", {.read = &ReadBurninSection, .schema = &BurninSectionSchema});

}  // namespace

nlohmann::ordered_json BurninRunSection::ToJson() const { return ys::ToJson(report_); }

std::optional<std::string> BurninRunSection::FailReason() const {
  if (report_.faults.empty()) return std::nullopt;
  const BurninFault& f = report_.faults.front();
  const size_t n = report_.faults.size();
  return fmt::format("burn-in: {} {} (first: {} on {}: {})", n, n == 1 ? "fault" : "faults",
                     f.entity, f.node, f.message);
}

const BurninReport* BurninOf(const RunDocument& doc) {
  const auto* section = dynamic_cast<const BurninRunSection*>(doc.burnin.get());
  return section ? &section->report() : nullptr;
}

void SetBurnin(RunDocument& doc, BurninReport report) {
  doc.burnin = std::make_shared<const BurninRunSection>(std::move(report));
}

}  // namespace ys
