// JSON form of the burn-in report (burnin_report/burnin_report.h), the "burnin" object of the run
// document (schemas/run.schema.json $defs/burnin_report). Optional numbers are written as null.
#ifndef YARDSTICK_BURNIN_REPORT_BURNIN_JSON_H_
#define YARDSTICK_BURNIN_REPORT_BURNIN_JSON_H_

#include <nlohmann/json_fwd.hpp>

#include "burnin_report/burnin_report.h"
#include "core/status.h"

namespace ys {

nlohmann::ordered_json ToJson(const BurninReport& r);
// Invalid names the field ("burnin.faults[3].at_s: expected a number").
Result<BurninReport> BurninReportFromJson(const nlohmann::json& j, const std::string& where);
// One entity of the report (the burn-in's checkpoint keeps each entity's state with it).
nlohmann::ordered_json ToJson(const BurninEntity& e);
Result<BurninEntity> BurninEntityFromJson(const nlohmann::json& j, const std::string& where);

}  // namespace ys

#endif  // YARDSTICK_BURNIN_REPORT_BURNIN_JSON_H_
