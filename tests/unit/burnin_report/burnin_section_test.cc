// The burn-in report as the run document's "burnin" section (burnin_report/burnin_section.h):
// put there and found again, written at its key, read back by the codec it registered (a bad
// field named by its path in the run document), described in the run schema, and its faults
// failing the run's verdict.
#include "burnin_report/burnin_section.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "burnin_report/burnin_json.h"
#include "core/document_schemas.h"
#include "core/run_document_json.h"
#include "core/verdict.h"
#include "report/burnin_sample.h"

namespace ys {
namespace {

TEST(BurninSection, SetAndFoundAgain) {
  RunDocument doc;
  EXPECT_EQ(BurninOf(doc), nullptr);
  SetBurnin(doc, testing::SampleBurnin());
  ASSERT_NE(BurninOf(doc), nullptr);
  EXPECT_EQ(*BurninOf(doc), testing::SampleBurnin());
}

TEST(BurninSection, WrittenAtItsKeyAndReadBackFromTheRunDocument) {
  RunDocument doc = testing::BurninDocument(testing::SampleBurnin());
  nlohmann::json j = nlohmann::json::parse(DumpJson(ToJson(doc)));
  EXPECT_EQ(j["burnin"], nlohmann::json::parse(ToJson(testing::SampleBurnin()).dump()));
  auto back = RunDocumentFromJson(j);
  ASSERT_TRUE(back.ok()) << back.status().message();
  ASSERT_NE(BurninOf(*back), nullptr);
  EXPECT_EQ(*BurninOf(*back), testing::SampleBurnin());
  EXPECT_EQ(DumpJson(ToJson(*back)), DumpJson(ToJson(doc)));
  j["burnin"]["faults"][0]["at_s"] = "late";
  EXPECT_EQ(RunDocumentFromJson(j).status().message(),
            "run.burnin.faults[0].at_s: expected a number");
  j["burnin"] = 3;
  EXPECT_EQ(RunDocumentFromJson(j).status().message(),
            "run.burnin: expected an object, found a number");
  j.erase("burnin");
  auto without = RunDocumentFromJson(j);
  ASSERT_TRUE(without.ok()) << without.status().message();
  EXPECT_EQ(BurninOf(*without), nullptr);
}

TEST(BurninSection, DescribedInTheRunSchema) {
  nlohmann::ordered_json schema;
  for (const RegisteredSchema* s : DocumentSchemas()) {
    if (s->name == "run") schema = s->make();
  }
  ASSERT_TRUE(schema.contains("properties"));
  EXPECT_EQ(schema["properties"]["burnin"]["anyOf"][0]["$ref"], "#/$defs/burnin_report");
  EXPECT_TRUE(schema["$defs"].contains("burnin_fault"));
  EXPECT_TRUE(schema["$defs"]["burnin_report"]["properties"].contains("mtbf_h"));
}

TEST(BurninSection, AFaultFailsTheRunWhateverItsSeverity) {
  BurninReport r;
  RunDocument doc = testing::BurninDocument(r);
  EXPECT_EQ(doc.burnin->FailReason(), std::nullopt);
  BurninFault f;
  f.node = "node7";
  f.entity = "gpu2";
  f.severity = Severity::kWarn;
  f.message = "temperature swung 9 C above its steady state";
  r.faults = {f};
  doc = testing::BurninDocument(r);
  doc.checks.resize(1);
  doc.checks[0].unit_id = "burnin";
  RunVerdict v = JudgeRun(doc);
  EXPECT_EQ(v.state, VerdictState::kFail);
  EXPECT_EQ(v.reason,
            "burn-in: 1 fault (first: gpu2 on node7: temperature swung 9 C above its "
            "steady state)");
  r.faults.push_back(f);
  EXPECT_EQ(JudgeRun(testing::BurninDocument(r)).reason.substr(0, 19), "burn-in: 2 faults (");
}

}  // namespace
}  // namespace ys
