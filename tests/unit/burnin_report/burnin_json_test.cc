// The burn-in report's JSON (burnin_report/burnin_json.h): a report and one entity written and
// read back unchanged, a number that is not finite written as 0, and a bad field named by path.
#include "burnin_report/burnin_json.h"

#include <gtest/gtest.h>

#include <limits>
#include <nlohmann/json.hpp>

#include "report/burnin_sample.h"

namespace ys {
namespace {

TEST(BurninJson, ReportRoundTripsThroughText) {
  const BurninReport r = testing::SampleBurnin();
  nlohmann::json j = nlohmann::json::parse(ToJson(r).dump());
  EXPECT_EQ(j["faults"][0]["severity"], "fail");
  EXPECT_TRUE(j["faults"][0]["cleared_at_s"].is_null());  // an optional number: null when unset
  auto back = BurninReportFromJson(j, "run.burnin");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(*back, r);
}

TEST(BurninJson, EntityRoundTripsAndKeepsDriftJudgedOnlyWhenSet) {
  BurninEntity e = testing::SampleBurnin().entities[0];
  EXPECT_FALSE(ToJson(e).contains("drift_judged"));  // a watched entity's: absent
  e.drift_judged = false;
  nlohmann::json j = nlohmann::json::parse(ToJson(e).dump());
  EXPECT_EQ(j["drift_judged"], false);
  auto back = BurninEntityFromJson(j, "entity");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(*back, e);
}

TEST(BurninJson, NonFiniteNumberIsWrittenAsZero) {
  BurninReport r = testing::SampleBurnin();
  r.entity_hours = std::numeric_limits<double>::infinity();
  r.entities[0].availability = std::numeric_limits<double>::quiet_NaN();
  const nlohmann::ordered_json j = ToJson(r);
  EXPECT_EQ(j["entity_hours"], 0.0);
  EXPECT_EQ(j["entities"][0]["availability"], 0.0);
}

TEST(BurninJson, BadFieldIsNamedWithoutTheTypeFound) {
  nlohmann::json j = nlohmann::json::parse(ToJson(testing::SampleBurnin()).dump());
  j["faults"][1]["at_s"] = "late";
  EXPECT_EQ(BurninReportFromJson(j, "run.burnin").status().message(),
            "run.burnin.faults[1].at_s: expected a number");
  nlohmann::json missing = nlohmann::json::parse(ToJson(testing::SampleBurnin()).dump());
  missing["entities"][0].erase("windows");
  EXPECT_EQ(BurninReportFromJson(missing, "b").status().message(),
            "b.entities[0].windows: missing");
  EXPECT_FALSE(BurninEntityFromJson(nlohmann::json::array(), "e").ok());
}

}  // namespace
}  // namespace ys
