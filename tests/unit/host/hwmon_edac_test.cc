#include <gtest/gtest.h>

#include "host/edac.h"
#include "host/hwmon.h"
#include "testing/check_test_util.h"

namespace ys::host {
namespace {

TEST(HwmonTest, ParsesMillidegrees) {
  EXPECT_EQ(*ParseHwmonMillidegrees("52000\n", "p"), 52.0);
  EXPECT_EQ(*ParseHwmonMillidegrees("38850", "p"), 38.85);
  EXPECT_EQ(*ParseHwmonMillidegrees("-5000\n", "p"), -5.0);
  for (const char* bad : {"", "hot", "52.0", "52000 C", "0x10"}) {
    auto r = ParseHwmonMillidegrees(bad, "/sys/class/hwmon/hwmon0/temp1_input");
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.status().message().find("/sys/class/hwmon/hwmon0/temp1_input: expected "
                                        "millidegrees Celsius"),
              std::string::npos);
  }
}

TEST(HwmonTest, ScansChipsLabelsAndBadInputs) {
  ys::testing::TempHost t;
  t.Write("/sys/class/hwmon/hwmon10/name", "nvme\n");
  t.Write("/sys/class/hwmon/hwmon10/temp1_input", "38850\n");
  t.Write("/sys/class/hwmon/hwmon2/name", "coretemp\n");
  t.Write("/sys/class/hwmon/hwmon2/temp10_input", "61000\n");
  t.Write("/sys/class/hwmon/hwmon2/temp10_label", "Core 8\n");
  t.Write("/sys/class/hwmon/hwmon2/temp2_input", "60000\n");
  t.Write("/sys/class/hwmon/hwmon2/temp2_label", "Core 0\n");
  t.Write("/sys/class/hwmon/hwmon2/temp3_input", "garbage\n");
  HwmonScan s = ReadHwmonTemps(t.Host());
  ASSERT_EQ(s.temps.size(), 3u);
  EXPECT_EQ(s.temps[0].label, "Core 0");  // hwmon2 before hwmon10, temp2 before temp10
  EXPECT_EQ(s.temps[0].chip, "coretemp");
  EXPECT_EQ(s.temps[0].celsius, 60.0);
  EXPECT_EQ(s.temps[1].label, "Core 8");
  EXPECT_EQ(s.temps[2].chip, "nvme");
  EXPECT_EQ(s.temps[2].label, "temp1");  // no label file
  ASSERT_EQ(s.errors.size(), 1u);
  EXPECT_NE(s.errors[0].find("temp3_input"), std::string::npos);
  ys::testing::TempHost empty;
  EXPECT_TRUE(ReadHwmonTemps(empty.Host()).temps.empty());
}

TEST(EdacTest, ParsesCounts) {
  EXPECT_EQ(*ParseSysfsCount("12\n", "p"), 12u);
  for (const char* bad : {"", "-1", "1 2", "many"}) {
    auto r = ParseSysfsCount(bad, "/sys/devices/system/edac/mc/mc0/ce_count");
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.status().message().find("mc0/ce_count: expected a count"), std::string::npos);
  }
}

TEST(EdacTest, SumsControllersAndThrottleCounters) {
  ys::testing::TempHost t;
  EXPECT_EQ(ReadEdacCounts(t.Host()).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(ReadThermalThrottleCount(t.Host(), 0).status().code(), StatusCode::kNotFound);
  t.Write("/sys/devices/system/edac/mc/mc0/ce_count", "4\n");
  t.Write("/sys/devices/system/edac/mc/mc0/ue_count", "0\n");
  t.Write("/sys/devices/system/edac/mc/mc1/ce_count", "1\n");
  t.Write("/sys/devices/system/edac/mc/mc1/ue_count", "2\n");
  auto e = ReadEdacCounts(t.Host());
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  EXPECT_EQ(e->ce, 5u);
  EXPECT_EQ(e->ue, 2u);
  EXPECT_EQ(e->controllers, 2);
  t.Write("/sys/devices/system/edac/mc/mc1/ue_count", "x\n");
  auto bad = ReadEdacCounts(t.Host());
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("mc1/ue_count"), std::string::npos);
  t.Write("/sys/devices/system/cpu/cpu3/thermal_throttle/core_throttle_count", "7\n");
  EXPECT_EQ(*ReadThermalThrottleCount(t.Host(), 3), 7u);  // only one of the two files
  t.Write("/sys/devices/system/cpu/cpu3/thermal_throttle/package_throttle_count", "5\n");
  EXPECT_EQ(*ReadThermalThrottleCount(t.Host(), 3), 12u);
  t.Write("/sys/devices/system/cpu/cpu3/thermal_throttle/package_throttle_count", "-\n");
  EXPECT_FALSE(ReadThermalThrottleCount(t.Host(), 3).ok());
}

}  // namespace
}  // namespace ys::host
