#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "checks/cpu/cpu_test_util.h"

namespace ys {
// A namespace of the file's own: its file-local names stay its own in a unity batch.
namespace frequency_test {
namespace {

using testing::FindFinding;
using testing::HasFinding;
using testing::RunOnFixture;
using testing::TempHost;

constexpr const char* kId = "cpu.frequency";
constexpr int kCpus = 16;

std::string Policy(int n) { return "/sys/devices/system/cpu/cpufreq/policy" + std::to_string(n); }

void WriteAll(TempHost& t, const std::string& attr, const std::string& value, int from = 0,
              int to = kCpus - 1) {
  for (int n = from; n <= to; ++n) t.Write(Policy(n) + "/" + attr, value + "\n");
}

TEST(FrequencyTest, PassesOnHealthyNode) {
  CheckResult r = RunOnFixture(kId, "healthy-8gpu");
  EXPECT_OUTCOME(r, Outcome::kPass);
  EXPECT_NE(r.summary.find("intel_pstate"), std::string::npos) << r.summary;
  EXPECT_NE(r.summary.find("turbo allowed"), std::string::npos) << r.summary;
  EXPECT_NE(r.summary.find("3800 MHz on cpu0-15"), std::string::npos) << r.summary;
}

TEST(FrequencyTest, NoFalseFindingsOnHealthyShapedFixtures) {
  for (const char* fixture : {"healthy-8gpu", "container-topo-missing", "downtrained-link"}) {
    EXPECT_OUTCOME(RunOnFixture(kId, fixture), Outcome::kPass) << fixture;
  }
}

TEST(FrequencyTest, TurboDisabledAndCappedOnMisconfiguredNode) {
  CheckResult r = RunOnFixture(kId, "h100-misconfigured");
  EXPECT_OUTCOME(r, Outcome::kFail);
  const Finding* turbo = FindFinding(r, "YS-CPU-011");
  ASSERT_NE(turbo, nullptr) << testing::Describe(r);
  EXPECT_NE(turbo->message.find("2000 MHz"), std::string::npos) << turbo->message;
  EXPECT_NE(turbo->message.find("3800 MHz"), std::string::npos) << turbo->message;
  EXPECT_EQ(turbo->fix.rfind("echo 0 > /sys/devices/system/cpu/intel_pstate/no_turbo", 0), 0u);
  const Finding* cap = FindFinding(r, "YS-CPU-012");
  ASSERT_NE(cap, nullptr);
  EXPECT_EQ(cap->entity, "cpu0-15");
  EXPECT_NE(cap->message.find("3000 MHz (of 3800 MHz)"), std::string::npos) << cap->message;
  EXPECT_FALSE(HasFinding(r, "YS-CPU-010"));
  EXPECT_FALSE(HasFinding(r, "YS-CPU-017"));
}

TEST(FrequencyTest, NoTurboAloneIsOneFindingNotTwo) {
  TempHost t("healthy-8gpu");
  t.Write("/sys/devices/system/cpu/intel_pstate/no_turbo", "1\n");
  WriteAll(t, "scaling_max_freq", "2000000");  // what the kernel does under no_turbo
  CheckResult r = t.Run(kId);
  EXPECT_TRUE(HasFinding(r, "YS-CPU-011"));
  EXPECT_FALSE(HasFinding(r, "YS-CPU-012")) << testing::Describe(r);
}

TEST(FrequencyTest, SiteTurboPolicyOff) {
  checks::SiteExpectations off;
  off.cpu.turbo = checks::Policy::kOff;
  CheckResult healthy = RunOnFixture(kId, "healthy-8gpu", off);
  EXPECT_TRUE(HasFinding(healthy, "YS-CPU-018")) << testing::Describe(healthy);
  // Turbo off as the site wants; 3.0 GHz is above the 2.0 GHz base, so no cap either.
  CheckResult capped = RunOnFixture(kId, "h100-misconfigured", off);
  EXPECT_OUTCOME(capped, Outcome::kPass);
}

TEST(FrequencyTest, GovernorOnSomeCpus) {
  TempHost t("healthy-8gpu");
  WriteAll(t, "scaling_governor", "powersave", 8, 15);
  CheckResult r = t.Run(kId);
  const Finding* f = FindFinding(r, "YS-CPU-010");
  ASSERT_NE(f, nullptr) << testing::Describe(r);
  EXPECT_EQ(f->entity, "cpu8-15");
  EXPECT_NE(f->fix.find("cpupower frequency-set -g performance"), std::string::npos);
  EXPECT_FALSE(HasFinding(r, "YS-CPU-017"));  // the governor finding already says it
  // A site without a governor opinion still hears about the divergence.
  checks::SiteExpectations any;
  any.cpu.governor = "any";
  CheckResult r2 = t.Run(kId, any);
  EXPECT_FALSE(HasFinding(r2, "YS-CPU-010"));
  const Finding* d = FindFinding(r2, "YS-CPU-017");
  ASSERT_NE(d, nullptr) << testing::Describe(r2);
  EXPECT_NE(d->message.find("scaling_governor"), std::string::npos);
}

TEST(FrequencyTest, EppMaxPerfPctAndBiosLimit) {
  TempHost t("healthy-8gpu");
  WriteAll(t, "energy_performance_preference", "balance_power");
  t.Write("/sys/devices/system/cpu/intel_pstate/max_perf_pct", "80\n");
  WriteAll(t, "bios_limit", "3000000", 0, 3);
  CheckResult r = t.Run(kId);
  EXPECT_TRUE(HasFinding(r, "YS-CPU-013")) << testing::Describe(r);
  EXPECT_TRUE(HasFinding(r, "YS-CPU-014"));
  const Finding* bios = FindFinding(r, "YS-CPU-015");
  ASSERT_NE(bios, nullptr);
  EXPECT_EQ(bios->entity, "cpu0-3");
}

TEST(FrequencyTest, EppDivergenceIsInconsistency) {
  TempHost t("healthy-8gpu");
  WriteAll(t, "energy_performance_preference", "balance_performance", 0, 7);
  CheckResult r = t.Run(kId);
  EXPECT_OUTCOME(r, Outcome::kWarn);
  EXPECT_TRUE(HasFinding(r, "YS-CPU-017")) << testing::Describe(r);
}

TEST(FrequencyTest, BoostOffUnderAcpiCpufreq) {
  TempHost t("healthy-8gpu");
  t.Remove("/sys/devices/system/cpu/intel_pstate");
  WriteAll(t, "scaling_driver", "acpi-cpufreq");
  t.Write("/sys/devices/system/cpu/cpufreq/boost", "0\n");
  CheckResult r = t.Run(kId);
  const Finding* f = FindFinding(r, "YS-CPU-011");
  ASSERT_NE(f, nullptr) << testing::Describe(r);
  EXPECT_NE(f->fix.find("cpufreq/boost"), std::string::npos);
  t.Write("/sys/devices/system/cpu/cpufreq/boost", "1\n");
  EXPECT_OUTCOME(t.Run(kId), Outcome::kPass);
}

TEST(FrequencyTest, SkipsWithoutCpufreqDriver) {
  CheckResult vm = RunOnFixture(kId, "grace-vm-smmu");
  EXPECT_OUTCOME(vm, Outcome::kSkip);
  EXPECT_NE(vm.summary.find("no cpufreq driver"), std::string::npos) << vm.summary;
  // An empty cpufreq directory, as on the sample VM.
  TempHost t("healthy-8gpu");
  t.Remove("/sys/devices/system/cpu/cpufreq");
  t.Write("/sys/devices/system/cpu/cpufreq/x", "");
  t.Remove("/sys/devices/system/cpu/cpufreq/x");
  EXPECT_OUTCOME(t.Run(kId), Outcome::kSkip);
}

TEST(FrequencyTest, MalformedFilesGiveErrorsWithThePath) {
  testing::ExpectErrorNamingPath(kId, "healthy-8gpu",
                                 {{Policy(3) + "/scaling_max_freq", "fast\n"},
                                  {Policy(3) + "/scaling_max_freq", "-1\n"},
                                  {Policy(3) + "/cpuinfo_max_freq", "99999999999999\n"},
                                  {Policy(3) + "/affected_cpus", "three\n"},
                                  {Policy(3) + "/bios_limit", "0x10\n"},
                                  {"/sys/devices/system/cpu/intel_pstate/no_turbo", "2\n"},
                                  {"/sys/devices/system/cpu/intel_pstate/max_perf_pct", "250\n"},
                                  {"/sys/devices/system/cpu/cpufreq/boost", "yes\n"}});
}

std::string InactiveNote(const CheckResult& r) {
  for (const auto& [k, v] : r.evidence) {
    if (k == "inactive policies") return v;
  }
  return "";
}

// An attribute the kernel left out or empty (the policy of an offline CPU, a driver without
// EPP) is no malformed file: that policy is set aside with the reason and the rest judged.
TEST(FrequencyTest, AbsentOrEmptyAttributesSetThePolicyAside) {
  TempHost t("healthy-8gpu");
  for (const auto& [path, content] :
       std::vector<std::pair<std::string, std::string>>{{Policy(3) + "/scaling_max_freq", ""},
                                                        {Policy(3) + "/scaling_governor", ""},
                                                        {Policy(3) + "/affected_cpus", ""}}) {
    CheckResult r = testing::RunWithFileReplaced(t, kId, path, content);
    EXPECT_OUTCOME(r, Outcome::kPass);
    EXPECT_TRUE(r.findings.empty()) << testing::Describe(r);
    EXPECT_NE(InactiveNote(r).find("policy3"), std::string::npos) << path;
  }
  // An empty EPP is no preference: nothing set aside, nothing found.
  CheckResult epp =
      testing::RunWithFileReplaced(t, kId, Policy(3) + "/energy_performance_preference", "\n");
  EXPECT_OUTCOME(epp, Outcome::kPass);
  t.Remove(Policy(9) + "/scaling_driver");
  CheckResult r = t.Run(kId);
  EXPECT_OUTCOME(r, Outcome::kPass);
  EXPECT_NE(InactiveNote(r).find("policy9 (cpu9): scaling_driver absent"), std::string::npos)
      << InactiveNote(r);
  // Every policy inactive: nothing to judge, a skip with the reason.
  TempHost off("healthy-8gpu");
  for (int p = 0; p < 16; ++p) off.Write(Policy(p) + "/affected_cpus", "");
  CheckResult none = off.Run(kId);
  EXPECT_OUTCOME(none, Outcome::kSkip);
  EXPECT_NE(none.summary.find("no active cpufreq policy"), std::string::npos) << none.summary;
}

}  // namespace
}  // namespace frequency_test
}  // namespace ys
