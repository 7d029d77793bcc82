// GPU telemetry of a serving run (diagnose/serving_telemetry.h): nvidia-smi query CSVs with and
// without units, AIPerf's telemetry block and JSON (one real export, from
// tests/fixtures/real/serving/aiperf/), and malformed input.
#include "diagnose/serving_telemetry.h"

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "gpu/gpu_snapshot.h"

namespace ys::diagnose {
namespace {

// Two GPUs sampled three times: gpu0 power-capped (0x4) at 1410 of 1980 MHz in two samples of
// three, gpu1 at its maximum with no reason.
constexpr char kSmiWithUnits[] =
    "timestamp, index, pci.bus_id, clocks.current.sm [MHz], clocks.max.sm [MHz], power.draw [W], "
    "power.limit [W], temperature.gpu, clocks_throttle_reasons.active, utilization.gpu [%], "
    "memory.used [MiB]\n"
    "2025/01/01 10:00:00.000, 0, 00000000:1B:00.0, 1410 MHz, 1980 MHz, 699.10 W, 700.00 W, 71, "
    "0x0000000000000004, 98 %, 70000 MiB\n"
    "2025/01/01 10:00:00.000, 1, 00000000:43:00.0, 1980 MHz, 1980 MHz, 520.00 W, 700.00 W, 60, "
    "0x0000000000000000, 97 %, 70010 MiB\n"
    "2025/01/01 10:00:00.500, 0, 00000000:1B:00.0, 1410 MHz, 1980 MHz, 698.00 W, 700.00 W, 72, "
    "0x0000000000000004, 99 %, 70000 MiB\n"
    "2025/01/01 10:00:00.500, 1, 00000000:43:00.0, 1980 MHz, 1980 MHz, 530.00 W, 700.00 W, 61, "
    "0x0000000000000000, 98 %, 70010 MiB\n"
    "2025/01/01 10:00:01.000, 0, 00000000:1B:00.0, 1980 MHz, 1980 MHz, 500.00 W, 700.00 W, 70, "
    "0x0000000000000000, 97 %, 70000 MiB\n"
    "2025/01/01 10:00:01.000, 1, 00000000:43";  // the sampler stopped mid-line

TEST(ServingTelemetry, ReadsAnSmiQueryCsvWithUnits) {
  ASSERT_TRUE(IsSmiQueryCsv(kSmiWithUnits));
  auto gpus = ReadSmiQueryCsv(kSmiWithUnits, "gpu_telemetry_node1.csv");
  ASSERT_TRUE(gpus.ok()) << gpus.status().message();
  ASSERT_EQ(gpus->size(), 2u);
  const GpuRunReadings& g0 = (*gpus)[0];
  EXPECT_EQ(g0.gpu, "gpu0 (00000000:1B:00.0)");
  EXPECT_EQ(g0.samples, 3);
  EXPECT_DOUBLE_EQ(*g0.sm_clock_mhz, 1410);  // the median
  EXPECT_DOUBLE_EQ(*g0.max_sm_clock_mhz, 1980);
  EXPECT_DOUBLE_EQ(*g0.power_limit_w, 700);
  EXPECT_DOUBLE_EQ(*g0.temperature_c, 72);  // the highest
  EXPECT_TRUE(g0.reasons_recorded);
  EXPECT_NEAR(g0.slowdown_share, 2.0 / 3, 1e-9);
  EXPECT_EQ(g0.slowdown_reasons, gpu::kClocksEventSwPowerCap);
  EXPECT_EQ(DescribeSlowdownReasons(g0.slowdown_reasons), "SW power cap");
  const GpuRunReadings& g1 = (*gpus)[1];
  EXPECT_EQ(g1.samples, 2);  // its cut-short last line dropped
  EXPECT_DOUBLE_EQ(g1.slowdown_share, 0);
  EXPECT_DOUBLE_EQ(*g1.memory_used_mib, 70010);
}

TEST(ServingTelemetry, ReadsNoUnitsAndOneColumnPerReason) {
  constexpr char kCsv[] =
      "index, clocks.sm, clocks_event_reasons.hw_thermal_slowdown, utilization.gpu\n"
      "0, 1200, Active, 99\n"
      "0, 1250, Not Active, [N/A]\n";
  auto gpus = ReadSmiQueryCsv(kCsv, "t.csv");
  ASSERT_TRUE(gpus.ok()) << gpus.status().message();
  ASSERT_EQ(gpus->size(), 1u);
  EXPECT_EQ((*gpus)[0].gpu, "gpu0");
  EXPECT_DOUBLE_EQ((*gpus)[0].slowdown_share, 0.5);
  EXPECT_EQ((*gpus)[0].slowdown_reasons, gpu::kClocksEventHwThermalSlowdown);
  EXPECT_DOUBLE_EQ(*(*gpus)[0].utilization_pct, 99);  // [N/A] is no value
  EXPECT_FALSE((*gpus)[0].max_sm_clock_mhz.has_value());
}

TEST(ServingTelemetry, MalformedSmiCsvIsAClearError) {
  auto bad_cell = ReadSmiQueryCsv("index, clocks.sm\n0, fast\n0, 1200\n", "t.csv");
  ASSERT_FALSE(bad_cell.ok());
  EXPECT_NE(bad_cell.status().message().find("t.csv: line 2: column 2"), std::string::npos)
      << bad_cell.status().message();
  auto short_row = ReadSmiQueryCsv("index, clocks.sm\n0\n0, 1200\n", "t.csv");
  ASSERT_FALSE(short_row.ok());
  EXPECT_NE(short_row.status().message().find("line 2: expected 2 cells"), std::string::npos);
  auto bad_mask = ReadSmiQueryCsv("index, clocks_throttle_reasons.active\n0, zz\n0, 0x0\n", "t");
  EXPECT_FALSE(bad_mask.ok());
  EXPECT_FALSE(ReadSmiQueryCsv("Metric,avg\nTTFT,1\n", "t.csv").ok());
  EXPECT_FALSE(IsSmiQueryCsv("Metric,avg,min\n"));
}

// AIPerf's summary CSV with its telemetry block (the Platform column of later releases, the
// "NVIDIA " prefix on display names): a GPU power-limited for 3 s of a 10 s run.
TEST(ServingTelemetry, ReadsAiperfTelemetryBlock) {
  constexpr char kCsv[] =
      "Metric,avg,min,max\r\nTime to First Token (ms),10,9,11\r\n\r\n"
      "Metric,Value\r\nBenchmark Duration (sec),10.00\r\n\r\n"
      "Endpoint,GPU_Index,GPU_Name,GPU_UUID,Platform,Metric,avg,min,max\r\n"
      "localhost:9401,0,NVIDIA H100 80GB HBM3,GPU-a,nvidia,NVIDIA GPU Power Usage "
      "(W),690,600,700\r\n"
      "localhost:9401,0,NVIDIA H100 80GB HBM3,GPU-a,nvidia,SM Clock Frequency "
      "(MHz),1500,1400,1980\r\n"
      "localhost:9401,0,NVIDIA H100 80GB HBM3,GPU-a,nvidia,Power Violation "
      "(us),,1000000,4000000\r\n"
      "localhost:9401,0,NVIDIA H100 80GB HBM3,GPU-a,nvidia,NVIDIA XID Errors (count),0,0,0\r\n";
  ASSERT_TRUE(HasAiperfTelemetryBlock(kCsv));
  auto gpus = ReadAiperfTelemetryCsv(kCsv, "profile_export_aiperf.csv");
  ASSERT_TRUE(gpus.ok()) << gpus.status().message();
  ASSERT_EQ(gpus->size(), 1u);
  const GpuRunReadings& g = (*gpus)[0];
  EXPECT_EQ(g.gpu, "gpu0 on localhost:9401");
  EXPECT_DOUBLE_EQ(*g.power_w, 690);
  EXPECT_DOUBLE_EQ(*g.sm_clock_mhz, 1500);
  EXPECT_NEAR(*g.power_violation_share, 0.3, 1e-9);
  EXPECT_EQ(*g.last_xid, 0);
  auto bad =
      ReadAiperfTelemetryCsv("Endpoint,GPU_Index,Metric,avg\nh,0,GPU Power Usage (W),x\n", "p.csv");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("p.csv: line 2"), std::string::npos);
}

// A real AIPerf export (wellflat/k8s-dev): the node's DCGM exporter lists 8 A100s; gpu0 serves
// (35% busy, 73 GB used, SM clock 1151 MHz on average), the other 7 are idle and empty.
TEST(ServingTelemetry, ReadsRealAiperfJsonTelemetry) {
  std::ifstream f(std::string(YS_SOURCE_DIR) +
                  "/tests/fixtures/real/serving/aiperf/aiperf_wellflat_gpt_oss_20b_a100_c1.json");
  std::stringstream text;
  text << f.rdbuf();
  auto doc = nlohmann::json::parse(text.str());
  auto gpus = ReadAiperfTelemetryJson(doc, "wellflat.json");
  ASSERT_TRUE(gpus.ok()) << gpus.status().message();
  ASSERT_EQ(gpus->size(), 8u);
  const GpuRunReadings& g0 = (*gpus)[0];
  EXPECT_EQ(g0.gpu, "gpu0 on gpu-03");
  EXPECT_NEAR(*g0.utilization_pct, 35.38, 0.01);
  EXPECT_NEAR(*g0.sm_clock_mhz, 1151.05, 0.01);
  EXPECT_NEAR(*g0.memory_used_mib, 73.246 / 1.048576e-3, 1);
  EXPECT_EQ(*g0.last_xid, 0);
  EXPECT_FALSE(g0.max_sm_clock_mhz.has_value());  // DCGM gives no maximum
  for (size_t i = 1; i < gpus->size(); ++i) {
    EXPECT_DOUBLE_EQ(*(*gpus)[i].utilization_pct, 0) << i;
    EXPECT_DOUBLE_EQ(*(*gpus)[i].memory_used_mib, 0) << i;
  }
  // No telemetry_data: no GPUs; a GPU without metrics: a clear error.
  EXPECT_TRUE(ReadAiperfTelemetryJson(nlohmann::json::object(), "x")->empty());
  auto bad = ReadAiperfTelemetryJson(
      nlohmann::json::parse(R"({"telemetry_data":{"endpoints":{"h":{"gpus":{"gpu_0":3}}}}})"),
      "x.json");
  EXPECT_FALSE(bad.ok());
}

// A real AIPerf export (AIPerf's plot fixture: Qwen3-0.6B on one RTX 6000 Ada, two DCGM exporters
// that see the same GPU): one GPU once; its power violation counter rose 86,868,896 in a 33.18 s
// run, impossible in the microseconds AIPerf labels it with, so read in nanoseconds (0.26%), as
// its power (139 W of a 300 W limit) bears out.
TEST(ServingTelemetry, RealAiperfJsonViolationCounterInNanoseconds) {
  std::ifstream f(std::string(YS_SOURCE_DIR) +
                  "/tests/fixtures/real/serving/aiperf/aiperf_plot_fixture_qwen3_0.6b_c8.json");
  std::stringstream text;
  text << f.rdbuf();
  auto gpus = ReadAiperfTelemetryJson(nlohmann::json::parse(text.str()), "qwen3.json");
  ASSERT_TRUE(gpus.ok()) << gpus.status().message();
  ASSERT_EQ(gpus->size(), 1u);
  const GpuRunReadings& g = (*gpus)[0];
  ASSERT_TRUE(g.power_violation_share.has_value());
  EXPECT_NEAR(*g.power_violation_share, 86868896 / 1e9 / 33.178809181, 1e-6);
  EXPECT_DOUBLE_EQ(*g.power_limit_w, 300);
  EXPECT_DOUBLE_EQ(*g.thermal_violation_share, 0);
}

}  // namespace
}  // namespace ys::diagnose
