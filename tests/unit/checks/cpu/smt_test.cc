#include <gtest/gtest.h>

#include <string>

#include "checks/cpu/cpu_test_util.h"

namespace ys {
// A namespace of the file's own: its file-local names stay its own in a unity batch.
namespace smt_test {
namespace {

using testing::FindFinding;
using testing::HasFinding;
using testing::RunOnFixture;
using testing::TempHost;

constexpr const char* kId = "cpu.smt";
constexpr const char* kSmt = "/sys/devices/system/cpu/smt";

checks::SiteExpectations WithSmt(checks::Policy p) {
  checks::SiteExpectations e;
  e.params.Set("cpu.smt", "smt", p);
  return e;
}

TEST(SmtTest, PassesOnHealthyNodeAndReportsThreads) {
  CheckResult r = RunOnFixture(kId, "healthy-8gpu");
  EXPECT_OUTCOME(r, Outcome::kPass);
  EXPECT_NE(r.summary.find("SMT active"), std::string::npos) << r.summary;
  EXPECT_NE(r.summary.find("2 threads per core"), std::string::npos) << r.summary;
  EXPECT_OUTCOME(RunOnFixture(kId, "healthy-8gpu", WithSmt(checks::Policy::kOn)), Outcome::kPass);
  for (const char* fixture : {"h100-misconfigured", "container-topo-missing", "downtrained-link"}) {
    EXPECT_OUTCOME(RunOnFixture(kId, fixture), Outcome::kPass) << fixture;
  }
}

TEST(SmtTest, ActiveSmtWhenTheSiteWantsItOff) {
  CheckResult r = RunOnFixture(kId, "healthy-8gpu", WithSmt(checks::Policy::kOff));
  EXPECT_OUTCOME(r, Outcome::kWarn);
  const Finding* f = FindFinding(r, "YS-CPU-020");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->message.find("2 threads per core"), std::string::npos) << f->message;
  EXPECT_NE(f->fix.find("echo off > /sys/devices/system/cpu/smt/control"), std::string::npos);
}

TEST(SmtTest, SmtOffWhenTheSiteWantsItOn) {
  TempHost t("healthy-8gpu");
  t.Write(std::string(kSmt) + "/control", "off\n");
  t.Write(std::string(kSmt) + "/active", "0\n");
  const Finding* f = nullptr;
  CheckResult r = t.Run(kId, WithSmt(checks::Policy::kOn));
  f = FindFinding(r, "YS-CPU-020");
  ASSERT_NE(f, nullptr) << testing::Describe(r);
  EXPECT_NE(f->fix.find("echo on"), std::string::npos) << f->fix;
  // forceoff from nosmt=force cannot be undone at run time.
  t.Write(std::string(kSmt) + "/control", "forceoff\n");
  t.Write("/proc/cmdline", "BOOT_IMAGE=/vmlinuz ro nosmt=force\n");
  r = t.Run(kId, WithSmt(checks::Policy::kOn));
  f = FindFinding(r, "YS-CPU-020");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->fix.find("remove nosmt=force"), std::string::npos) << f->fix;
  // No opinion: report only.
  EXPECT_OUTCOME(t.Run(kId), Outcome::kPass);
}

TEST(SmtTest, SkipsWhereSmtIsNotSupportedOrNotExposed) {
  CheckResult vm = RunOnFixture(kId, "grace-vm-smmu", WithSmt(checks::Policy::kOn));
  EXPECT_OUTCOME(vm, Outcome::kSkip);
  EXPECT_NE(vm.summary.find("notsupported"), std::string::npos) << vm.summary;
  TempHost t("healthy-8gpu");
  t.Remove(kSmt);
  CheckResult r = t.Run(kId);
  EXPECT_OUTCOME(r, Outcome::kSkip);
  EXPECT_NE(r.summary.find("smt"), std::string::npos) << r.summary;
}

// An empty control file records no SMT state: a skip with the reason, not an error.
TEST(SmtTest, EmptyControlFileIsASkipWithTheReason) {
  TempHost t("healthy-8gpu");
  t.Write(std::string(kSmt) + "/control", "");
  CheckResult r = t.Run(kId);
  EXPECT_OUTCOME(r, Outcome::kSkip);
  EXPECT_NE(r.summary.find("control: empty file"), std::string::npos) << r.summary;
}

// An empty `active` is unknown, as when absent: the control state stands for it.
TEST(SmtTest, EmptyActiveFileFallsBackToTheControl) {
  TempHost t("healthy-8gpu");
  t.Write(std::string(kSmt) + "/active", "");
  CheckResult r = t.Run(kId, WithSmt(checks::Policy::kOff));
  EXPECT_OUTCOME(r, Outcome::kWarn);  // control "on": SMT is active
  EXPECT_TRUE(HasFinding(r, "YS-CPU-020")) << testing::Describe(r);
  EXPECT_OUTCOME(t.Run(kId, WithSmt(checks::Policy::kAny)), Outcome::kPass);
}

TEST(SmtTest, MalformedFilesGiveErrorsWithThePath) {
  const std::string smt = kSmt;
  testing::ExpectErrorNamingPath(
      kId, "healthy-8gpu",
      {{smt + "/control", "sometimes\n"}, {smt + "/active", "yes\n"}, {smt + "/active", "7\n"}});
}

}  // namespace
}  // namespace smt_test
}  // namespace ys
