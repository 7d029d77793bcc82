#include "host/cpufreq.h"

#include <gtest/gtest.h>

#include <filesystem>

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

// The policy of an offline CPU: the directory stays, its attributes are gone or empty (reads
// answer EBUSY). Inactive, with the reason; not an error for the whole node.
TEST(CpufreqReadTest, PoliciesOfOfflineCpusAreInactiveNotErrors) {
  testing::TempHost t;
  const std::string d = "/sys/devices/system/cpu/cpufreq/";
  for (const char* f : {"scaling_driver", "scaling_governor"}) {
    t.Write(d + "policy0/" + f,
            std::string(f) == "scaling_driver" ? "intel_pstate\n" : "performance\n");
  }
  t.Write(d + "policy0/scaling_max_freq", "3800000\n");
  t.Write(d + "policy0/cpuinfo_max_freq", "3800000\n");
  t.Write(d + "policy0/affected_cpus", "0\n");
  std::filesystem::create_directories(t.root() + d + "policy1");  // empty directory
  for (const char* f : {"affected_cpus", "related_cpus", "scaling_driver", "scaling_governor",
                        "scaling_max_freq", "cpuinfo_max_freq", "energy_performance_preference"}) {
    t.Write(d + "policy2/" + f, "");  // every attribute empty
  }
  t.Write(d + "policy3/affected_cpus", "\n");  // affected_cpus lists online CPUs only
  t.Write(d + "policy3/related_cpus", "3\n");
  t.Write(d + "policy3/scaling_driver", "intel_pstate\n");
  auto ps = ReadCpufreqPolicies(t.Host());
  ASSERT_TRUE(ps.ok()) << ps.status().ToString();
  ASSERT_EQ(ps->size(), 4u);
  EXPECT_FALSE((*ps)[0].inactive) << *(*ps)[0].inactive;
  EXPECT_EQ((*ps)[0].epp, std::nullopt);
  ASSERT_TRUE((*ps)[1].inactive);
  EXPECT_NE((*ps)[1].inactive->find("scaling_driver"), std::string::npos) << *(*ps)[1].inactive;
  EXPECT_EQ((*ps)[1].cpus.ToString(), "1");
  ASSERT_TRUE((*ps)[2].inactive);
  EXPECT_NE((*ps)[2].inactive->find("affected_cpus is empty"), std::string::npos);
  ASSERT_TRUE((*ps)[3].inactive);
  EXPECT_EQ((*ps)[3].cpus.ToString(), "3");
  EXPECT_EQ(*ReadRatedMaxKhz(t.Host(), CpuSet({2})), 3800000);

  // A CPU the `online` file leaves out: its policy is not judged, whatever it still shows.
  t.Write("/sys/devices/system/cpu/online", "1-3\n");
  ps = ReadCpufreqPolicies(t.Host());
  ASSERT_TRUE(ps.ok()) << ps.status().ToString();
  ASSERT_TRUE((*ps)[0].inactive);
  EXPECT_NE((*ps)[0].inactive->find("offline"), std::string::npos);

  // A value that is there but is no frequency is still an error naming the file.
  t.Write("/sys/devices/system/cpu/online", "0-3\n");
  t.Write(d + "policy0/scaling_max_freq", "fast\n");
  ps = ReadCpufreqPolicies(t.Host());
  ASSERT_FALSE(ps.ok());
  EXPECT_NE(ps.status().message().find("policy0/scaling_max_freq"), std::string::npos);
}

}  // namespace
}  // namespace ys::host
