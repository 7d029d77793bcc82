#include "host/cpufreq.h"

#include <gtest/gtest.h>

#include "testing/check_test_util.h"

namespace ys::host {
namespace {

TEST(CpufreqParseTest, CpuWords) {
  EXPECT_EQ(ParseCpuWords("0 1 2 3\n")->ToString(), "0-3");
  EXPECT_EQ(ParseCpuWords("7")->ToString(), "7");
  EXPECT_TRUE(ParseCpuWords("")->empty());
  EXPECT_FALSE(ParseCpuWords("0-3").ok());
  EXPECT_FALSE(ParseCpuWords("a b").ok());
  EXPECT_FALSE(ParseCpuWords("-1").ok());
  EXPECT_FALSE(ParseCpuWords("99999999999999999999").ok());
}

TEST(CpufreqParseTest, TurboAllowed) {
  TurboControls t;
  EXPECT_EQ(t.TurboAllowed(), std::nullopt);
  t.no_turbo = false;
  EXPECT_EQ(t.TurboAllowed(), true);
  t.no_turbo = true;
  EXPECT_EQ(t.TurboAllowed(), false);
  TurboControls b;
  b.boost = true;
  EXPECT_EQ(b.TurboAllowed(), true);
  b.boost = false;
  EXPECT_EQ(b.TurboAllowed(), false);
}

TEST(CpufreqReadTest, ReadsTheFixturePolicies) {
  auto h = Host::AtRoot(testing::FixturePath("h100-misconfigured"));
  ASSERT_TRUE(h.ok());
  auto ps = ReadCpufreqPolicies(*h);
  ASSERT_TRUE(ps.ok()) << ps.status().ToString();
  ASSERT_EQ(ps->size(), 16u);
  const CpufreqPolicy& p = (*ps)[10];  // natural order: policy10 after policy9
  EXPECT_EQ(p.name, "policy10");
  EXPECT_EQ(p.cpus.ToString(), "10");
  EXPECT_EQ(p.driver, "intel_pstate");
  EXPECT_EQ(p.governor, "performance");
  EXPECT_EQ(p.scaling_max_khz, 3000000);
  EXPECT_EQ(p.cpuinfo_max_khz, 3800000);
  EXPECT_EQ(p.base_khz, 2000000);
  EXPECT_EQ(p.bios_limit_khz, std::nullopt);
  EXPECT_EQ(p.epp, "performance");
  auto turbo = ReadTurboControls(*h);
  ASSERT_TRUE(turbo.ok());
  EXPECT_EQ(turbo->intel_pstate_status, "active");
  EXPECT_EQ(turbo->no_turbo, true);
  EXPECT_EQ(turbo->max_perf_pct, 100);
  EXPECT_EQ(turbo->boost, std::nullopt);
  EXPECT_EQ(turbo->TurboAllowed(), false);
  auto rated = ReadRatedMaxKhz(*h, CpuSet({0, 4}));
  ASSERT_TRUE(rated.ok());
  EXPECT_EQ(*rated, 3800000);
}

TEST(CpufreqReadTest, NoDriverIsAnEmptyListNotAnError) {
  auto h = Host::AtRoot(testing::FixturePath("grace-vm-smmu"));
  ASSERT_TRUE(h.ok());
  auto ps = ReadCpufreqPolicies(*h);
  ASSERT_TRUE(ps.ok());
  EXPECT_TRUE(ps->empty());
  EXPECT_EQ(*ReadRatedMaxKhz(*h, CpuSet({0})), std::nullopt);
}

TEST(CpufreqReadTest, RatedMaximumPrefersThePoliciesOfTheGivenCpus) {
  testing::TempHost t;
  t.Write("/sys/devices/system/cpu/cpufreq/policy0/cpuinfo_max_freq", "3800000\n");
  t.Write("/sys/devices/system/cpu/cpufreq/policy0/affected_cpus", "0 1\n");
  t.Write("/sys/devices/system/cpu/cpufreq/policy2/cpuinfo_max_freq", "2400000\n");
  t.Write("/sys/devices/system/cpu/cpufreq/policy2/affected_cpus", "2 3\n");
  auto h = t.Host();
  EXPECT_EQ(*ReadRatedMaxKhz(h, CpuSet({3})), 2400000);
  EXPECT_EQ(*ReadRatedMaxKhz(h, CpuSet({1, 2})), 3800000);
  EXPECT_EQ(*ReadRatedMaxKhz(h, CpuSet({9})), 3800000);  // none covers cpu9: the highest
  t.Write("/sys/devices/system/cpu/cpufreq/policy2/cpuinfo_max_freq", "0\n");
  EXPECT_FALSE(ReadRatedMaxKhz(t.Host(), CpuSet({3})).ok());
}

}  // namespace
}  // namespace ys::host
