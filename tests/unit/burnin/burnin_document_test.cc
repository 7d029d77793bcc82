// The run document a burn-in writes (burnin/burnin_document.h): one measurement per loaded entity
// from its windows, the planted-fault warning, the incomplete reason, the report as the document's
// "burnin" section, and the file written where the burn-in keeps it.
#include "burnin/burnin_document.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "burnin_report/burnin_section.h"
#include "core/json_document.h"
#include "core/run_document_json.h"
#include "report/burnin_sample.h"
#include "validate/archive_test_util.h"

namespace ys::burnin {
namespace {

TEST(BurninDocument, MeasuresEachLoadedEntityAndKeepsTheReport) {
  const BurninReport r = testing::SampleBurnin();
  RunDocument doc = MakeBurninDocument(r, host::Host::Live(), "recorded: timeline.json", 7300,
                                       "stopped by signal 15");
  EXPECT_EQ(doc.command, "burnin");
  EXPECT_EQ(doc.started_at, r.started_at);
  EXPECT_DOUBLE_EQ(doc.duration_ms, 7300000);
  EXPECT_EQ(doc.host.gpu_source, "recorded: timeline.json");
  EXPECT_TRUE(doc.incomplete);
  EXPECT_EQ(doc.incomplete_reason, "stopped by signal 15");
  ASSERT_EQ(doc.checks.size(), 1U);
  ASSERT_EQ(doc.measurements.size(), 2U);
  const Measurement& m = doc.measurements[0];
  EXPECT_EQ(m.name, "burnin.sgemm");
  EXPECT_DOUBLE_EQ(m.value, 49000);
  EXPECT_EQ(m.params.at("device"), "gpu1");
  EXPECT_EQ(m.params.at("baseline"), "50000");
  EXPECT_EQ(m.samples, (std::vector<double>{50000, 48000, 45500}));
  EXPECT_EQ(m.stats.n, 3);
  // The sample's timeline planted a fault: the document says it is a test, not an acceptance.
  ASSERT_FALSE(doc.warnings.empty());
  EXPECT_NE(doc.warnings.back().find("planted by a recorded timeline"), std::string::npos);
  ASSERT_NE(BurninOf(doc), nullptr);
  EXPECT_EQ(*BurninOf(doc), r);
}

TEST(BurninDocument, WatchedEntitiesHaveNoMeasurementAndACompleteRunNoReason) {
  BurninReport r = testing::SampleBurnin();
  r.planted.clear();
  r.entities[1].metric.clear();  // watched, not loaded
  RunDocument doc = MakeBurninDocument(r, host::Host::Live(), "nvml", 10, "");
  EXPECT_FALSE(doc.incomplete);
  EXPECT_EQ(doc.measurements.size(), 1U);
  for (const std::string& w : doc.warnings) EXPECT_EQ(w.find("planted"), std::string::npos) << w;
}

TEST(BurninDocument, WrittenAsRunJsonAndReadBack) {
  archive_testing::ScopedTempDir tmp;
  RunDocument doc = MakeBurninDocument(testing::SampleBurnin(), host::Host::Live(), "nvml", 10, "");
  ASSERT_TRUE(WriteBurninDocument(tmp.path(), doc).ok());
  auto j = ReadJsonFile(tmp.Sub("run.json"));
  ASSERT_TRUE(j.ok()) << j.status().message();
  auto back = RunDocumentFromJson(*j);
  ASSERT_TRUE(back.ok()) << back.status().message();
  ASSERT_NE(BurninOf(*back), nullptr);
  EXPECT_EQ(*BurninOf(*back), testing::SampleBurnin());
  EXPECT_FALSE(WriteBurninDocument(tmp.Sub("no/such/dir"), doc).ok());
}

}  // namespace
}  // namespace ys::burnin
