#include "burnin/observation.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace ys::burnin {
namespace {

EntitySample FullSample() {
  EntitySample s;
  s.node = "node-a";
  s.entity = "gpu2";
  s.kind = "gpu";
  s.metric = "gemm.bf16";
  s.unit = "TFLOPS";
  s.perf = 612.5;
  s.iterations = 40;
  s.miscompares = 1;
  s.miscompare_detail = "element 17: expected 0x3f80, got 0x3f81 (1 element differs)";
  s.digest = std::string(64, 'a');
  s.load_error = "";
  s.temp_c = 71;
  s.clocks_event_reasons = 0x48;
  s.counters = {{"ecc_uncorrected", 1}, {"xid", 2}};
  s.events = {"Xid 79 at 0000:51:00: GPU has fallen off the bus"};
  s.telemetry_note = "pcie_replay: not supported";
  return s;
}

void ExpectSame(const EntitySample& a, const EntitySample& b) {
  EXPECT_EQ(a.node, b.node);
  EXPECT_EQ(a.entity, b.entity);
  EXPECT_EQ(a.kind, b.kind);
  EXPECT_EQ(a.metric, b.metric);
  EXPECT_EQ(a.unit, b.unit);
  EXPECT_EQ(a.perf, b.perf);
  EXPECT_EQ(a.iterations, b.iterations);
  EXPECT_EQ(a.miscompares, b.miscompares);
  EXPECT_EQ(a.miscompare_detail, b.miscompare_detail);
  EXPECT_EQ(a.digest, b.digest);
  EXPECT_EQ(a.load_error, b.load_error);
  EXPECT_EQ(a.temp_c, b.temp_c);
  EXPECT_EQ(a.clocks_event_reasons, b.clocks_event_reasons);
  EXPECT_EQ(a.counters, b.counters);
  EXPECT_EQ(a.events, b.events);
  EXPECT_EQ(a.telemetry_note, b.telemetry_note);
}

TEST(BurninObservation, RoundTripsEveryField) {
  EntitySample s = FullSample();
  auto back = EntitySampleFromJson(nlohmann::json::parse(ToJson(s).dump()), "s");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ExpectSame(s, *back);
}

TEST(BurninObservation, RoundTripsASparseSampleAndAList) {
  EntitySample node;
  node.node = "node-a";
  node.entity = "node";
  node.kind = "node";
  node.telemetry_note = "edac: no EDAC memory controller";
  std::vector<EntitySample> v = {FullSample(), node};
  nlohmann::json j = ToJson(v);
  EXPECT_FALSE(j[1].contains("perf"));  // absent stays absent, not 0
  EXPECT_FALSE(j[1].contains("temp_c"));
  auto back = EntitySamplesFromJson(j, "rank 1");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ASSERT_EQ(back->size(), 2u);
  ExpectSame(v[0], (*back)[0]);
  ExpectSame(v[1], (*back)[1]);
  EXPECT_FALSE((*back)[1].perf.has_value());
  EXPECT_FALSE((*back)[1].temp_c.has_value());
}

TEST(BurninObservation, RejectsMalformedSamplesNamingWhereAndField) {
  nlohmann::json good = ToJson(FullSample());
  struct Case {
    const char* key;
    nlohmann::json value;
    const char* message;
  };
  std::vector<Case> cases = {
      {"entity", 3, "rank 2[0].entity: expected a string"},
      {"perf", "fast", "rank 2[0].perf: expected a number"},
      {"iterations", -1, "rank 2[0].iterations: expected an integer >= 0"},
      {"iterations", 1.5, "rank 2[0].iterations: expected an integer >= 0"},
      {"counters", nlohmann::json{{"xid", -2}}, "rank 2[0].counters.xid: expected an integer >= 0"},
      {"counters", nlohmann::json::array(), "rank 2[0].counters: expected an object"},
      {"events", nlohmann::json::array({1}), "rank 2[0].events[0]: expected a string"},
      {"clocks_event_reasons", "0x48", "rank 2[0].clocks_event_reasons: expected an integer"},
      {"tempc", 40, "rank 2[0].tempc: unknown key"},
  };
  for (const Case& c : cases) {
    nlohmann::json j = good;
    j[c.key] = c.value;
    auto r = EntitySamplesFromJson(nlohmann::json::array({j}), "rank 2");
    ASSERT_FALSE(r.ok()) << c.key;
    EXPECT_NE(r.status().message().find(c.message), std::string::npos) << r.status().message();
  }
  nlohmann::json missing = good;
  missing.erase("node");
  auto r = EntitySampleFromJson(missing, "s");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "s.node: missing");
  EXPECT_FALSE(EntitySampleFromJson(nlohmann::json::array(), "s").ok());
  auto not_list = EntitySamplesFromJson(good, "rank 3");
  ASSERT_FALSE(not_list.ok());
  EXPECT_NE(not_list.status().message().find("rank 3: expected an array"), std::string::npos);
}

}  // namespace
}  // namespace ys::burnin
