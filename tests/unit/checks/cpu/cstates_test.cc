#include <gtest/gtest.h>

#include <string>

#include "checks/cpu/cpu_test_util.h"

namespace ys {
// A namespace of the file's own: its file-local names stay its own in a unity batch.
namespace cstates_test {
namespace {

using testing::EvidenceValue;
using testing::FindFinding;
using testing::HasFinding;
using testing::RunOnFixture;
using testing::TempHost;

constexpr const char* kId = "cpu.cstates";
constexpr int kCpus = 16;  // x86 fixtures: 2 sockets x 4 cores x 2 threads

std::string StateDir(int cpu, int state) {
  return "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/cpuidle/state" +
         std::to_string(state);
}

TEST(CstatesTest, PassesOnHealthyNodeWithC6Enabled) {
  CheckResult r = RunOnFixture(kId, "healthy-8gpu");
  EXPECT_OUTCOME(r, Outcome::kPass);
  EXPECT_TRUE(r.findings.empty());
  EXPECT_EQ(EvidenceValue(r, "cpuidle.driver"), "intel_idle");
  EXPECT_EQ(EvidenceValue(r, "deepest enabled"), "C6 on cpu0-15");
  EXPECT_NE(EvidenceValue(r, "cpu0 states").find("C6 170/600 us"), std::string::npos);
}

TEST(CstatesTest, NoFalseFindingsOnHealthyShapedFixtures) {
  for (const char* fixture : {"healthy-8gpu", "container-topo-missing", "downtrained-link"}) {
    CheckResult r = RunOnFixture(kId, fixture);
    EXPECT_OUTCOME(r, Outcome::kPass) << fixture;
  }
}

TEST(CstatesTest, C6DisabledOnEveryCpuIsTheExemplarCase) {
  CheckResult r = RunOnFixture(kId, "h100-misconfigured");
  EXPECT_OUTCOME(r, Outcome::kWarn);
  ASSERT_EQ(r.findings.size(), 1u) << testing::Describe(r);
  const Finding* f = FindFinding(r, "YS-CPU-002");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->entity, "node");
  EXPECT_NE(f->message.find("C6 disabled on all 16 CPUs"), std::string::npos) << f->message;
  EXPECT_NE(f->message.find("C1E"), std::string::npos) << f->message;
  EXPECT_NE(f->fix.find("cpupower idle-set -e 3"), std::string::npos) << f->fix;
  EXPECT_NE(f->expected_recovery.find("4%"), std::string::npos);
  EXPECT_NE(f->expected_recovery.find("3.8 GHz"), std::string::npos);
  EXPECT_FALSE(f->evidence.empty());
  EXPECT_FALSE(f->reference.empty());
}

TEST(CstatesTest, C6DisabledOnSomeCpusIsInconsistency) {
  TempHost t("healthy-8gpu");
  for (int cpu = 4; cpu <= 7; ++cpu) t.Write(StateDir(cpu, 3) + "/disable", "1\n");
  CheckResult r = t.Run(kId);
  EXPECT_OUTCOME(r, Outcome::kWarn);
  const Finding* f = FindFinding(r, "YS-CPU-003");
  ASSERT_NE(f, nullptr) << testing::Describe(r);
  EXPECT_EQ(f->entity, "cpu4-7");
  EXPECT_NE(f->message.find("4 of 16"), std::string::npos) << f->message;
  // Inconsistency is flagged whatever the policy.
  checks::SiteExpectations any;
  any.cpu.deep_cstates = checks::Policy::kAny;
  EXPECT_TRUE(HasFinding(t.Run(kId, any), "YS-CPU-003"));
}

TEST(CstatesTest, IdlePollAndCpuidleOffOnTheCommandLine) {
  TempHost t("healthy-8gpu");
  for (const char* token : {"idle=poll", "idle=halt", "cpuidle.off=1"}) {
    t.Write("/proc/cmdline", std::string("BOOT_IMAGE=/vmlinuz ro ") + token + " quiet\n");
    CheckResult r = t.Run(kId);
    const Finding* f = FindFinding(r, "YS-CPU-001");
    ASSERT_NE(f, nullptr) << token << ": " << testing::Describe(r);
    EXPECT_NE(f->message.find(token), std::string::npos);
    EXPECT_NE(f->fix.find("kernel command line"), std::string::npos);
  }
  // After "--" the token belongs to init, not the kernel.
  t.Write("/proc/cmdline", "BOOT_IMAGE=/vmlinuz ro -- idle=poll\n");
  EXPECT_OUTCOME(t.Run(kId), Outcome::kPass);
}

TEST(CstatesTest, MaxCstateOnTheCommandLineRemovesC6) {
  TempHost t("healthy-8gpu");
  for (int cpu = 0; cpu < kCpus; ++cpu) t.Remove(StateDir(cpu, 3));
  t.Write("/sys/module/intel_idle/parameters/max_cstate", "2\n");
  t.Write("/proc/cmdline", "BOOT_IMAGE=/vmlinuz ro intel_idle.max_cstate=2\n");
  CheckResult r = t.Run(kId);
  const Finding* f = FindFinding(r, "YS-CPU-004");
  ASSERT_NE(f, nullptr) << testing::Describe(r);
  EXPECT_NE(f->message.find("intel_idle.max_cstate=2"), std::string::npos) << f->message;
  EXPECT_NE(f->fix.find("Remove intel_idle.max_cstate=2"), std::string::npos) << f->fix;
  EXPECT_FALSE(HasFinding(r, "YS-CPU-005"));
}

TEST(CstatesTest, NoC6OfferedAtAllIsASiteDivergence) {
  TempHost t("healthy-8gpu");
  for (int cpu = 0; cpu < kCpus; ++cpu) t.Remove(StateDir(cpu, 3));
  CheckResult r = t.Run(kId);
  const Finding* f = FindFinding(r, "YS-CPU-005");
  ASSERT_NE(f, nullptr) << testing::Describe(r);
  EXPECT_NE(f->fix.find("BIOS"), std::string::npos);
  EXPECT_NE(f->expected_recovery.find("4%"), std::string::npos);
  checks::SiteExpectations any;
  any.cpu.deep_cstates = checks::Policy::kAny;
  EXPECT_OUTCOME(t.Run(kId, any), Outcome::kPass);
}

TEST(CstatesTest, SitePolicyOffInvertsTheVerdict) {
  checks::SiteExpectations off;
  off.cpu.deep_cstates = checks::Policy::kOff;
  CheckResult healthy = RunOnFixture(kId, "healthy-8gpu", off);
  EXPECT_TRUE(HasFinding(healthy, "YS-CPU-005")) << testing::Describe(healthy);
  CheckResult disabled = RunOnFixture(kId, "h100-misconfigured", off);
  EXPECT_OUTCOME(disabled, Outcome::kPass);
}

TEST(CstatesTest, EnabledButNeverEnteredSinceBoot) {
  TempHost t("healthy-8gpu");
  for (int cpu = 0; cpu < kCpus; ++cpu) t.Write(StateDir(cpu, 3) + "/usage", "0\n");
  CheckResult r = t.Run(kId);
  const Finding* f = FindFinding(r, "YS-CPU-005");
  ASSERT_NE(f, nullptr) << testing::Describe(r);
  EXPECT_NE(f->message.find("never entered"), std::string::npos);
  EXPECT_NE(f->fix.find("/dev/cpu_dma_latency"), std::string::npos);
}

TEST(CstatesTest, AcpiTableDeepStateIsFoundByLatency) {
  TempHost t("healthy-8gpu");
  t.Write("/sys/devices/system/cpu/cpuidle/current_driver", "acpi_idle\n");
  for (int cpu = 0; cpu < kCpus; ++cpu) {
    t.Remove(StateDir(cpu, 3));
    t.Write(StateDir(cpu, 2) + "/name", "C2\n");
    t.Write(StateDir(cpu, 2) + "/latency", "400\n");
  }
  EXPECT_OUTCOME(t.Run(kId), Outcome::kPass);
  // A shallow ACPI C2 (18 us) is not C6-class.
  for (int cpu = 0; cpu < kCpus; ++cpu) t.Write(StateDir(cpu, 2) + "/latency", "18\n");
  EXPECT_TRUE(HasFinding(t.Run(kId), "YS-CPU-005"));
}

TEST(CstatesTest, GraceVmWithoutDriverSkipsWithTheReason) {
  CheckResult r = RunOnFixture(kId, "grace-vm-smmu");
  EXPECT_OUTCOME(r, Outcome::kSkip);
  EXPECT_NE(r.summary.find("VM guest"), std::string::npos) << r.summary;
  EXPECT_NE(EvidenceValue(r, "guest").find("KVM Virtual Machine"), std::string::npos);
}

// The sample VM (host-sample): haltpoll with POLL and "haltpoll idle" only.
TEST(CstatesTest, HaltpollGuestSkipsAndIsNeverAFail) {
  TempHost t;
  t.Write("/proc/cmdline", "console=ttyS0 cpuidle_haltpoll.force=1 -- --init\n");
  t.Write("/sys/devices/system/cpu/online", "0-1\n");
  t.Write("/sys/devices/system/cpu/cpuidle/current_driver", "haltpoll\n");
  t.Write("/sys/devices/system/cpu/cpuidle/current_governor_ro", "haltpoll\n");
  for (int cpu = 0; cpu < 2; ++cpu) {
    t.Write(StateDir(cpu, 0) + "/name", "POLL\n");
    t.Write(StateDir(cpu, 0) + "/latency", "0\n");
    t.Write(StateDir(cpu, 0) + "/disable", "0\n");
    t.Write(StateDir(cpu, 1) + "/name", "haltpoll idle\n");
    t.Write(StateDir(cpu, 1) + "/latency", "1\n");
    t.Write(StateDir(cpu, 1) + "/disable", "0\n");
  }
  CheckResult r = t.Run(kId);
  EXPECT_OUTCOME(r, Outcome::kSkip);
  EXPECT_NE(r.summary.find("haltpoll"), std::string::npos) << r.summary;
  EXPECT_NE(EvidenceValue(r, "cpu0 states").find("haltpoll idle"), std::string::npos);
}

TEST(CstatesTest, NoDriverOnBareMetalIsAFinding) {
  TempHost t("healthy-8gpu");
  t.Write("/sys/devices/system/cpu/cpuidle/current_driver", "none\n");
  for (int cpu = 0; cpu < kCpus; ++cpu)
    t.Remove("/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/cpuidle");
  EXPECT_TRUE(HasFinding(t.Run(kId), "YS-CPU-001"));
}

TEST(CstatesTest, SkipsWithoutCpuidleSysfs) {
  TempHost t("healthy-8gpu");
  t.Remove("/sys/devices/system/cpu/cpuidle");
  CheckResult r = t.Run(kId);
  EXPECT_OUTCOME(r, Outcome::kSkip);
  EXPECT_NE(r.summary.find("cpuidle"), std::string::npos);
}

// An empty current_driver (a copy that could not read it) names no driver: a skip with the
// reason, not an error.
TEST(CstatesTest, EmptyDriverFileIsASkipWithTheReason) {
  TempHost t("healthy-8gpu");
  t.Write("/sys/devices/system/cpu/cpuidle/current_driver", "");
  CheckResult r = t.Run(kId);
  EXPECT_OUTCOME(r, Outcome::kSkip);
  EXPECT_NE(r.summary.find("current_driver: empty file"), std::string::npos) << r.summary;
}

// An empty `disable` file leaves that CPU's idle states unknown: the CPU is set aside with the
// reason and the others are judged; with every CPU so, a skip. Never an error.
TEST(CstatesTest, EmptyDisableFileSetsTheCpuAside) {
  TempHost t("healthy-8gpu");
  t.Write(StateDir(5, 3) + "/disable", "");
  CheckResult r = t.Run(kId);
  EXPECT_OUTCOME(r, Outcome::kPass);
  EXPECT_EQ(EvidenceValue(r, "CPUs not judged (empty cpuidle state disable file)"), "cpu5");
  EXPECT_EQ(EvidenceValue(r, "deepest enabled"), "C6 on cpu0-4,6-15");

  TempHost all("h100-misconfigured");  // C6 disabled everywhere: still no finding from nothing
  for (int cpu = 0; cpu < kCpus; ++cpu) all.Write(StateDir(cpu, 3) + "/disable", "");
  // The per-CPU units skip with the reason; cpu.cstates.idle_framework still judges the driver.
  r = all.Run("cpu.cstates.deepest_enabled");
  EXPECT_OUTCOME(r, Outcome::kSkip);
  EXPECT_NE(r.summary.find("empty cpuidle state disable file"), std::string::npos) << r.summary;
  EXPECT_OUTCOME(all.Run(kId), Outcome::kPass);
}

// An empty `latency` or `name` sets the CPU aside like an empty `disable`; an empty `residency`
// or `usage` is absent (C6 enabled with no usage count: no never-entered finding).
TEST(CstatesTest, EmptyLatencyOrNameSetsTheCpuAsideEmptyUsageIsAbsent) {
  TempHost t("healthy-8gpu");
  t.Write(StateDir(5, 3) + "/latency", "");
  t.Write(StateDir(6, 3) + "/name", "\n");
  for (int cpu = 0; cpu < kCpus; ++cpu) {
    t.Write(StateDir(cpu, 3) + "/residency", "");
    t.Write(StateDir(cpu, 3) + "/usage", "");
  }
  CheckResult r = t.Run(kId);
  EXPECT_OUTCOME(r, Outcome::kPass);
  EXPECT_EQ(EvidenceValue(r, "CPUs not judged (empty cpuidle state latency file)"), "cpu5");
  EXPECT_EQ(EvidenceValue(r, "CPUs not judged (empty cpuidle state name file)"), "cpu6");
  EXPECT_EQ(EvidenceValue(r, "deepest enabled"), "C6 on cpu0-4,7-15");

  TempHost all("healthy-8gpu");
  for (int cpu = 0; cpu < kCpus; ++cpu) all.Write(StateDir(cpu, 2) + "/latency", "");
  r = all.Run("cpu.cstates.kernel_limit");  // every per-CPU unit skips alike
  EXPECT_OUTCOME(r, Outcome::kSkip);
  EXPECT_NE(r.summary.find("empty cpuidle state latency file on cpu0-15"), std::string::npos)
      << r.summary;
}

// An empty max_cstate module parameter is noted and sets no limit, for the active driver too.
TEST(CstatesTest, EmptyMaxCstateIsNotedNotJudged) {
  TempHost t("healthy-8gpu");
  t.Write("/sys/module/processor/parameters/max_cstate", "");
  t.Write("/sys/module/intel_idle/parameters/max_cstate", "");
  CheckResult r = t.Run(kId);
  EXPECT_OUTCOME(r, Outcome::kPass);
  EXPECT_EQ(EvidenceValue(r, "/sys/module/processor/parameters/max_cstate"),
            "empty file: the limit is not judged");
  EXPECT_EQ(EvidenceValue(r, "/sys/module/intel_idle/parameters/max_cstate"),
            "empty file: the limit is not judged");
}

TEST(CstatesTest, MalformedFilesGiveErrorsWithThePath) {
  testing::ExpectErrorNamingPath(kId, "healthy-8gpu",
                                 {{StateDir(5, 3) + "/latency", "soon\n"},
                                  {StateDir(5, 3) + "/latency", "-4\n"},
                                  {StateDir(5, 3) + "/disable", "2\n"},
                                  {StateDir(5, 3) + "/default_status", "maybe\n"},
                                  {StateDir(5, 3) + "/usage", "99999999999999999999999\n"},
                                  {"/sys/module/intel_idle/parameters/max_cstate", "nine\n"}});
  TempHost t("healthy-8gpu");
  t.Remove(StateDir(2, 1) + "/latency");
  CheckResult r = t.Run(kId);
  EXPECT_OUTCOME(r, Outcome::kError);
  EXPECT_NE(r.summary.find(StateDir(2, 1) + "/latency"), std::string::npos) << r.summary;
  t.Write(StateDir(2, 1) + "/latency", "2\n");
  t.Write(StateDir(0, 3) + "/name", std::string(host::Host::kMaxFileBytes + 1, 'C'));
  r = t.Run(kId);
  EXPECT_OUTCOME(r, Outcome::kError);
  EXPECT_NE(r.summary.find("limit"), std::string::npos) << r.summary;
}

}  // namespace
}  // namespace cstates_test
}  // namespace ys
