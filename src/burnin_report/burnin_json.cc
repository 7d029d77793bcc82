// JSON of the burn-in report: the field lists of burnin_report/burnin_fields.h, walked by the
// writer and the strict reader of core/json_fields.h.
#include "burnin_report/burnin_json.h"

#include <nlohmann/json.hpp>

#include "burnin_report/burnin_fields.h"

namespace ys {

nlohmann::ordered_json ToJson(const BurninEntity& e) { return json_fields::Write(e); }

Result<BurninEntity> BurninEntityFromJson(const nlohmann::json& j, const std::string& where) {
  return json_fields::Parse<BurninEntity>(j, where);
}

nlohmann::ordered_json ToJson(const BurninReport& r) { return json_fields::Write(r); }

Result<BurninReport> BurninReportFromJson(const nlohmann::json& j, const std::string& where) {
  return json_fields::Parse<BurninReport>(j, where);
}

}  // namespace ys
