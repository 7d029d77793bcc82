#include "burnin/timeline.h"

#include <gtest/gtest.h>

#include <fstream>

#include "testing/bench_test_util.h"
#include "testing/gpu_test_util.h"

namespace ys::burnin {
namespace {

using testing::NvmlFixturePath;

uint32_t TempOf(const gpu::GpuSnapshot& s, int index) {
  for (const auto& d : s.devices) {
    if (d.index == index) return d.temperature_c.value.value_or(0);
  }
  return 0;
}

TEST(BurninTimeline, TemperatureSwingFixture) {
  auto t = Timeline::Load(NvmlFixturePath("burnin-timeline.json"));
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  for (double at : {0.0, 39.9, 55.0, 100.0}) {
    auto s = t->StateAt(at);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    EXPECT_EQ(TempOf(*s, 2), 33u) << at;
    EXPECT_EQ(s->devices.size(), 8u);
    EXPECT_EQ(s->source, "recorded: " + NvmlFixturePath("burnin-timeline.json"));
  }
  for (double at : {40.0, 54.9}) {
    auto s = t->StateAt(at);
    ASSERT_TRUE(s.ok());
    EXPECT_EQ(TempOf(*s, 2), 39u) << at;
    EXPECT_EQ(TempOf(*s, 1), 32u) << at;  // the other GPUs keep theirs
  }
  EXPECT_TRUE(t->FlipPlanted("cpu1", 70, 75));
  EXPECT_TRUE(t->FlipPlanted("cpu1", 65, 70.5));
  EXPECT_FALSE(t->FlipPlanted("cpu1", 65, 70));  // [from, to): 70 is the next cycle's
  EXPECT_FALSE(t->FlipPlanted("cpu1", 70.1, 80));
  EXPECT_FALSE(t->FlipPlanted("cpu0", 60, 80));
  EXPECT_TRUE(t->KmsgBetween(0, 1000).empty());
  std::vector<std::string> d = t->Describe();
  ASSERT_EQ(d.size(), 3u);
  EXPECT_EQ(d[0], "at 40 s: gpu2 temperature_c = 39");
  EXPECT_EQ(d[2], "at 70 s: bit flip on cpu1");
}

TEST(BurninTimeline, ErrorsFixture) {
  auto t = Timeline::Load(NvmlFixturePath("burnin-errors-timeline.json"));
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  auto before = t->StateAt(19);
  auto after = t->StateAt(20);
  ASSERT_TRUE(before.ok() && after.ok());
  EXPECT_EQ(*before->devices[4].ecc_volatile_uncorrected, 0u);
  EXPECT_EQ(*after->devices[4].ecc_volatile_uncorrected, 1u);
  EXPECT_EQ(*after->devices[4].ecc_aggregate_uncorrected, 1u);
  EXPECT_EQ(*t->StateAt(24.9)->devices[1].clocks_event_reasons, 1u);
  EXPECT_EQ(*t->StateAt(25)->devices[1].clocks_event_reasons, 0x48u);
  EXPECT_EQ(*t->StateAt(34.9)->devices[1].clocks_event_reasons, 0x48u);
  EXPECT_EQ(*t->StateAt(35)->devices[1].clocks_event_reasons, 1u);
  EXPECT_TRUE(t->KmsgBetween(0, 29.9).empty());
  EXPECT_TRUE(t->KmsgBetween(30, 40).empty());  // (from, to]
  auto k = t->KmsgBetween(29, 30);
  ASSERT_EQ(k.size(), 1u);
  EXPECT_NE(k[0].find("Xid (PCI:0000:51:00): 79"), std::string::npos);
}

TEST(BurninTimeline, PlainRecordedStateIsATimelineWithoutSteps) {
  auto t = Timeline::Load(NvmlFixturePath("h200x8-throttle-remap.json"));
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  auto s = t->StateAt(1e6);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(TempOf(*s, 2), 91u);
  EXPECT_TRUE(t->Describe().empty());
}

TEST(BurninTimeline, NvlinkFieldsCanBeSet) {
  testing::TempDir dir;
  std::string path = dir.path() + "/t.json";
  std::ofstream(path) << R"({"kind": "yardstick-nvml-timeline", "base": ")"
                      << NvmlFixturePath("healthy-h100x8.json") << R"(",
    "steps": [{"at_s": 5, "gpu": 3, "set": {"nvlinks[7].active": false}}]})";
  auto t = Timeline::Load(path);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_TRUE(*t->StateAt(4)->devices[3].nvlinks[7].active);
  EXPECT_FALSE(*t->StateAt(5)->devices[3].nvlinks[7].active);
}

TEST(BurninTimeline, APlantedSlowdownLastsFromItsTimeOn) {
  testing::TempDir dir;
  std::string path = dir.path() + "/t.json";
  std::ofstream(path) << R"({"kind": "yardstick-nvml-timeline", "base": ")"
                      << NvmlFixturePath("healthy-h100x8.json") << R"(",
    "plant": [{"at_s": 20, "entity": "cpu0", "fault": "slowdown", "drop_pct": 10}]})";
  auto t = Timeline::Load(path);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_DOUBLE_EQ(t->RateKept("cpu0", 19.9), 1.0);
  EXPECT_DOUBLE_EQ(t->RateKept("cpu0", 20), 0.9);
  EXPECT_DOUBLE_EQ(t->RateKept("cpu0", 500), 0.9);
  EXPECT_DOUBLE_EQ(t->RateKept("cpu1", 500), 1.0);
  EXPECT_FALSE(t->FlipPlanted("cpu0", 0, 1000));  // a slowdown is not a bit flip
  ASSERT_EQ(t->Describe().size(), 1u);
  EXPECT_EQ(t->Describe()[0], "from 20 s: 10% slowdown of cpu0");
}

TEST(BurninTimeline, RejectsMalformedFilesNamingFileAndPath) {
  testing::TempDir dir;
  const std::string base = NvmlFixturePath("healthy-h100x8.json");
  auto doc = [&](const std::string& rest) {
    return R"({"kind": "yardstick-nvml-timeline", "base": ")" + base + "\"" + rest + "}";
  };
  struct Case {
    std::string text;
    std::string message;
  };
  std::vector<Case> cases = {
      {"{not json", "not JSON"},
      {"[1]", "expected a JSON object"},
      {R"({"kind": "other", "base": "x"})", "kind: expected \"yardstick-nvml-timeline\""},
      {doc(R"(, "colour": 1)"), "colour: unknown key"},
      {R"({"kind": "yardstick-nvml-timeline", "base": "nowhere.json"})", "base: "},
      {doc(R"(, "steps": {})"), "steps: expected an array"},
      {doc(R"(, "steps": [{"gpu": 2, "set": {"temperature_c": 40}}])"), "steps[0].at_s: missing"},
      {doc(R"(, "steps": [{"at_s": "soon", "gpu": 2, "set": {"temperature_c": 40}}])"),
       "steps[0].at_s: expected a number"},
      {doc(R"(, "steps": [{"at_s": -1, "gpu": 2, "set": {"temperature_c": 40}}])"),
       "steps[0].at_s: expected a time >= 0"},
      {doc(R"(, "steps": [{"at_s": 1, "gpu": 9, "set": {"temperature_c": 40}}])"),
       "steps[0].gpu: GPU 9 is not in the base state"},
      {doc(R"(, "steps": [{"at_s": 1, "gpu": 2, "set": {"temp": 40}}])"),
       "steps[0].set.temp: unknown field"},
      {doc(R"(, "steps": [{"at_s": 1, "gpu": 2, "set": {"temperature_c": "hot"}}])"),
       "steps[0].set: devices[2].temperature_c.value"},
      {doc(R"(, "steps": [{"at_s": 1, "gpu": 2, "set": {"temperature_c": {"value": 3}}}])"),
       "steps[0].set.temperature_c: expected a plain value"},
      {doc(R"(, "steps": [{"at_s": 1, "gpu": 2, "set": {"nvlinks[40].active": false}}])"),
       "steps[0].set.nvlinks[40].active: GPU 2 has no NVLink 40"},
      {doc(R"(, "steps": [{"at_s": 1, "gpu": 2}])"), "steps[0].set: missing"},
      {doc(R"(, "steps": [{"at_s": 1, "kmsg": 5}])"), "steps[0].kmsg: expected a string"},
      {doc(R"(, "steps": [{"at_s": 1, "kmsg": "x", "gpu": 1}])"), "steps[0]: a step has either"},
      {doc(R"(, "steps": [{"at_s": 1, "gpu": 2, "set": {"temperature_c": 1}, "when": 2}])"),
       "steps[0].when: unknown key"},
      {doc(R"(, "plant": [{"at_s": 70, "entity": "cpu1", "fault": "melt"}])"),
       "plant[0].fault: unknown fault \"melt\""},
      {doc(R"(, "plant": [{"at_s": 70, "fault": "bit_flip"}])"), "plant[0].entity: expected"},
      {doc(R"(, "plant": [{"at_s": 7, "entity": "cpu0", "fault": "slowdown"}])"),
       "plant[0].drop_pct: expected 0 < drop_pct < 100"},
      {doc(R"(, "plant": [{"at_s": 7, "entity": "cpu0", "fault": "slowdown", "drop_pct": 100}])"),
       "plant[0].drop_pct: expected 0 < drop_pct < 100"},
      {doc(R"(, "plant": [{"at_s": 7, "entity": "cpu0", "fault": "bit_flip", "drop_pct": 5}])"),
       "plant[0].drop_pct: only a slowdown has a drop_pct"},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    std::string path = dir.path() + "/bad" + std::to_string(i) + ".json";
    std::ofstream(path) << cases[i].text;
    auto t = Timeline::Load(path);
    ASSERT_FALSE(t.ok()) << cases[i].text;
    EXPECT_NE(t.status().message().find(path), std::string::npos) << t.status().message();
    EXPECT_NE(t.status().message().find(cases[i].message), std::string::npos)
        << t.status().message();
  }
  EXPECT_EQ(Timeline::Load(dir.path() + "/absent.json").status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace ys::burnin
