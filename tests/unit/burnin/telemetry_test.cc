#include "burnin/telemetry.h"

#include <gtest/gtest.h>

#include "testing/check_test_util.h"
#include "testing/gpu_test_util.h"

namespace ys::burnin {
namespace {

using testing::NvmlFixturePath;

const EntitySample* Find(const std::vector<EntitySample>& v, const std::string& entity) {
  for (const auto& s : v) {
    if (s.entity == entity) return &s;
  }
  return nullptr;
}

TelemetryOptions Options(const std::string& timeline) {
  TelemetryOptions o;
  o.node = "sensors";
  o.nvml_state = timeline.empty() ? "" : NvmlFixturePath(timeline);
  o.cpus = {0, 1, 2, 3};
  o.gpus = {1, 2, 4};
  return o;
}

std::unique_ptr<TelemetrySampler> OpenOn(const host::Host& host, const TelemetryOptions& o) {
  auto s = TelemetrySampler::Open(host, o);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return s.ok() ? std::move(*s) : nullptr;
}

TEST(BurninTelemetry, CpuTemperaturesAndNodeCountersFromARecordedTree) {
  auto host = host::Host::AtRoot(testing::FixturePath("burnin-sensors"));
  ASSERT_TRUE(host.ok());
  auto sampler = OpenOn(*host, Options("burnin-timeline.json"));
  ASSERT_NE(sampler, nullptr);
  EXPECT_EQ(sampler->source(), "recorded: " + NvmlFixturePath("burnin-timeline.json"));
  ASSERT_NE(sampler->timeline(), nullptr);
  EXPECT_EQ(sampler->gpus().size(), 8u);

  // A sample the load wrote is completed, not duplicated.
  std::vector<EntitySample> samples(1);
  samples[0].node = "sensors";
  samples[0].entity = "cpu1";
  samples[0].kind = "cpu";
  samples[0].metric = "sgemm";
  sampler->Sample(0, 10, samples);
  // Core 0 (cpu0, cpu2) 51 C, core 1 (cpu1, cpu3) 54 C: both threads of a core share it.
  ASSERT_EQ(samples[0].entity, "cpu1");
  EXPECT_EQ(samples[0].metric, "sgemm");
  EXPECT_EQ(samples[0].temp_c, 54.0);
  EXPECT_EQ(samples[0].counters.at("thermal_throttle"), 5u);  // core 3 + package 2
  EXPECT_EQ(Find(samples, "cpu0")->temp_c, 51.0);
  EXPECT_EQ(Find(samples, "cpu2")->temp_c, 51.0);
  EXPECT_EQ(Find(samples, "cpu3")->temp_c, 54.0);
  EXPECT_EQ(Find(samples, "cpu0")->counters.at("thermal_throttle"), 2u);
  const EntitySample* node = Find(samples, "node");
  ASSERT_NE(node, nullptr);
  EXPECT_EQ(node->kind, "node");
  EXPECT_EQ(node->counters.at("edac_ce"), 7u);
  EXPECT_EQ(node->counters.at("edac_ue"), 1u);
  EXPECT_EQ(node->counters.at("aer_correctable"), 3u);
  EXPECT_EQ(node->counters.at("aer_nonfatal"), 0u);
  EXPECT_EQ(node->counters.at("aer_fatal"), 0u);
  EXPECT_EQ(node->counters.at("mce"), 2u);
  // GPU 2 from the timeline, at two times.
  EXPECT_EQ(Find(samples, "gpu2")->temp_c, 33.0);
  EXPECT_EQ(Find(samples, "gpu2")->kind, "gpu");
  std::vector<EntitySample> later;
  sampler->Sample(40, 45, later);
  EXPECT_EQ(Find(later, "gpu2")->temp_c, 39.0);
  EXPECT_EQ(Find(later, "gpu1")->temp_c, 32.0);
  const EntitySample* gpu2 = Find(later, "gpu2");
  EXPECT_EQ(gpu2->clocks_event_reasons, 1u);
  EXPECT_EQ(gpu2->counters.at("ecc_uncorrected"), 0u);
  EXPECT_EQ(gpu2->counters.at("nvlink_down"), 0u);
  EXPECT_EQ(gpu2->counters.at("xid"), 0u);
  EXPECT_EQ(gpu2->counters.at("remap_failure"), 0u);
  EXPECT_EQ(gpu2->counters.at("pcie_replay"), 0u);
}

TEST(BurninTelemetry, ErrorsTimelineAndXidsFromTheKernelLog) {
  testing::TempHost tree("burnin-sensors");
  auto sampler = OpenOn(tree.Host(), Options("burnin-errors-timeline.json"));
  ASSERT_NE(sampler, nullptr);
  std::vector<EntitySample> a, b, c;
  sampler->Sample(0, 10, a);
  // The Xid 79 for 0000:51:00 (GPU 4) was in the log before the sampler opened: not new.
  EXPECT_EQ(Find(a, "gpu4")->counters.at("xid"), 0u);
  EXPECT_TRUE(Find(a, "gpu4")->events.empty());
  EXPECT_EQ(Find(a, "gpu4")->counters.at("ecc_uncorrected"), 0u);
  EXPECT_EQ(Find(a, "gpu1")->clocks_event_reasons, 1u);
  // A new kernel-log line for GPU 1 (0000:21:00), and the timeline's Xid 79 at 30 s for GPU 4.
  std::string kmsg = *tree.Host().ReadFile("/dev/kmsg");
  tree.Write("/dev/kmsg", kmsg +
                              "4,1010,99000000000,-;NVRM: Xid (PCI:0000:21:00): 48, pid=1, "
                              "name=python3, An uncorrectable double bit error\n");
  sampler->Sample(10, 31, b);
  const EntitySample* gpu4 = Find(b, "gpu4");
  EXPECT_EQ(gpu4->counters.at("xid"), 1u);
  ASSERT_EQ(gpu4->events.size(), 1u);
  EXPECT_EQ(gpu4->events[0], "Xid 79 at 0000:51:00: GPU has fallen off the bus");
  EXPECT_EQ(gpu4->counters.at("ecc_uncorrected"), 1u);
  const EntitySample* gpu1 = Find(b, "gpu1");
  EXPECT_EQ(gpu1->counters.at("xid"), 1u);
  ASSERT_EQ(gpu1->events.size(), 1u);
  EXPECT_NE(gpu1->events[0].find("Xid 48 at 0000:21:00"), std::string::npos);
  EXPECT_EQ(gpu1->clocks_event_reasons, 0x48u);
  EXPECT_EQ(Find(b, "gpu2")->counters.at("xid"), 0u);
  sampler->Sample(31, 40, c);
  EXPECT_EQ(Find(c, "gpu4")->counters.at("xid"), 1u);  // cumulative
  EXPECT_TRUE(Find(c, "gpu4")->events.empty());        // nothing new
  EXPECT_EQ(Find(c, "gpu1")->clocks_event_reasons, 1u);
}

TEST(BurninTelemetry, K10tempIsPerPackageAndMissingReadingsSayWhy) {
  testing::TempHost tree("burnin-sensors");
  tree.Remove("/sys/class/hwmon/hwmon0");
  tree.Write("/sys/class/hwmon/hwmon0/name", "k10temp\n");
  tree.Write("/sys/class/hwmon/hwmon0/temp1_label", "Tctl\n");
  tree.Write("/sys/class/hwmon/hwmon0/temp1_input", "61500\n");
  tree.Write("/sys/class/hwmon/hwmon0/temp3_label", "Tccd1\n");
  tree.Write("/sys/class/hwmon/hwmon0/temp3_input", "58250\n");
  tree.Remove("/sys/devices/system/cpu/cpu2/thermal_throttle");
  tree.Remove("/sys/devices/system/edac");
  TelemetryOptions o = Options("");
  o.gpus.clear();
  auto sampler = OpenOn(tree.Host(), o);
  ASSERT_NE(sampler, nullptr);
  // No --nvml-state and no recording in the tree: no GPU source, not an error.
  EXPECT_EQ(sampler->source().rfind("none: ", 0), 0u) << sampler->source();
  EXPECT_EQ(sampler->timeline(), nullptr);
  std::vector<EntitySample> v;
  sampler->Sample(0, 5, v);
  for (const char* cpu : {"cpu0", "cpu1", "cpu2", "cpu3"}) {
    const EntitySample* s = Find(v, cpu);
    ASSERT_NE(s, nullptr);
    EXPECT_EQ(s->temp_c, 61.5) << cpu;
    EXPECT_NE(s->telemetry_note.find("k10temp Tctl is per package"), std::string::npos);
  }
  EXPECT_FALSE(Find(v, "cpu2")->counters.contains("thermal_throttle"));
  EXPECT_NE(Find(v, "cpu2")->telemetry_note.find("thermal_throttle: "), std::string::npos);
  const EntitySample* node = Find(v, "node");
  EXPECT_FALSE(node->counters.contains("edac_ce"));
  EXPECT_NE(node->telemetry_note.find("edac: "), std::string::npos);
  EXPECT_EQ(Find(v, "gpu0"), nullptr);

  // No sensor at all: the reading is absent, with the reason.
  tree.Remove("/sys/class/hwmon/hwmon0");
  std::vector<EntitySample> w;
  sampler->Sample(5, 10, w);
  EXPECT_FALSE(Find(w, "cpu1")->temp_c.has_value());
  EXPECT_NE(Find(w, "cpu1")->telemetry_note.find("no hwmon sensor for cpu1"), std::string::npos);
}

TEST(BurninTelemetry, AMalformedTimelineIsInvalidNamingTheFile) {
  auto host = host::Host::AtRoot(testing::FixturePath("burnin-sensors"));
  ASSERT_TRUE(host.ok());
  TelemetryOptions o = Options("");
  o.nvml_state = NvmlFixturePath("xid-kmsg.txt");
  auto s = TelemetrySampler::Open(*host, o);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kInvalidInput);
  EXPECT_NE(s.status().message().find("xid-kmsg.txt"), std::string::npos);
}

}  // namespace
}  // namespace ys::burnin

namespace ys::burnin {
namespace {

// This machine, whatever it has: every reading is there or absent with a reason.
TEST(BurninTelemetry, LiveHostReadingsArePresentOrExplained) {
  host::Host live = host::Host::Live();
  TelemetryOptions o;
  o.node = "live";
  o.cpus = {0};
  auto sampler = TelemetrySampler::Open(live, o);
  ASSERT_TRUE(sampler.ok()) << sampler.status().ToString();
  EXPECT_FALSE((*sampler)->source().empty());
  std::vector<EntitySample> v;
  (*sampler)->Sample(0, 1, v);
  const EntitySample* cpu = Find(v, "cpu0");
  ASSERT_NE(cpu, nullptr);
  if (!cpu->temp_c) EXPECT_FALSE(cpu->telemetry_note.empty());
  if (!cpu->counters.contains("thermal_throttle")) {
    EXPECT_NE(cpu->telemetry_note.find("thermal_throttle"), std::string::npos);
  }
  const EntitySample* node = Find(v, "node");
  ASSERT_NE(node, nullptr);
  for (const char* c : {"edac_ce", "aer_correctable", "mce"}) {
    if (!node->counters.contains(c)) EXPECT_FALSE(node->telemetry_note.empty()) << c;
  }
}

}  // namespace
}  // namespace ys::burnin
