#include <gtest/gtest.h>

#include <string>

#include "checks/cpu/cpu_test_util.h"

namespace ys {
// A namespace of the file's own: its file-local names stay its own in a unity batch.
namespace mitigations_test {
namespace {

using testing::FindFinding;
using testing::HasFinding;
using testing::RunOnFixture;
using testing::TempHost;

constexpr const char* kId = "cpu.mitigations";
constexpr const char* kDir = "/sys/devices/system/cpu/vulnerabilities";

checks::SiteExpectations WithMitigations(checks::Policy p) {
  checks::SiteExpectations e;
  e.params.Set("cpu.mitigations", "mitigations", p);
  return e;
}

TEST(MitigationsTest, PatchedSapphireRapidsPassesUnderEveryPolicyButOff) {
  CheckResult r = RunOnFixture(kId, "healthy-8gpu");
  EXPECT_OUTCOME(r, Outcome::kPass);
  EXPECT_NE(r.summary.find("12 not affected, 3 mitigated, 0 vulnerable"), std::string::npos)
      << r.summary;
  EXPECT_OUTCOME(RunOnFixture(kId, "healthy-8gpu", WithMitigations(checks::Policy::kOn)),
                 Outcome::kPass);
  for (const char* fixture :
       {"h100-misconfigured", "container-topo-missing", "downtrained-link", "grace-vm-smmu"}) {
    EXPECT_OUTCOME(RunOnFixture(kId, fixture), Outcome::kPass) << fixture;
  }
}

TEST(MitigationsTest, ActiveMitigationsWhenTheSiteRunsWithoutThem) {
  CheckResult r = RunOnFixture(kId, "healthy-8gpu", WithMitigations(checks::Policy::kOff));
  EXPECT_OUTCOME(r, Outcome::kWarn);
  const Finding* f = FindFinding(r, "YS-CPU-021");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->message.find("3 mitigations active"), std::string::npos) << f->message;
  EXPECT_NE(f->message.find("spectre_v2"), std::string::npos);
  EXPECT_NE(f->message.find("data loaders"), std::string::npos);  // the cost, noted
  EXPECT_NE(f->fix.find("mitigations=off"), std::string::npos);
  // Already booted with mitigations=off: what remains is always-on; nothing to change.
  TempHost t("healthy-8gpu");
  t.Write("/proc/cmdline", "BOOT_IMAGE=/vmlinuz ro mitigations=off\n");
  EXPECT_OUTCOME(t.Run(kId, WithMitigations(checks::Policy::kOff)), Outcome::kPass);
}

TEST(MitigationsTest, VulnerableWhenTheSiteWantsMitigations) {
  TempHost t("healthy-8gpu");
  t.Write(std::string(kDir) + "/spec_store_bypass", "Vulnerable\n");
  t.Write(std::string(kDir) + "/mds",
          "Vulnerable: Clear CPU buffers attempted, no microcode; SMT vulnerable\n");
  CheckResult on = t.Run(kId, WithMitigations(checks::Policy::kOn));
  const Finding* f = FindFinding(on, "YS-CPU-021");
  ASSERT_NE(f, nullptr) << testing::Describe(on);
  EXPECT_NE(f->message.find("spec_store_bypass"), std::string::npos);
  EXPECT_EQ(f->message.find("mds"), std::string::npos);  // the microcode finding covers it
  EXPECT_TRUE(HasFinding(on, "YS-CPU-022"));
  // Report only: the plain "Vulnerable" is evidence, the microcode gap still a finding.
  CheckResult any = t.Run(kId);
  EXPECT_FALSE(HasFinding(any, "YS-CPU-021"));
  EXPECT_TRUE(HasFinding(any, "YS-CPU-022"));
}

// As on the sample VM: "spec_rstack_overflow: Vulnerable: Safe RET, no microcode".
TEST(MitigationsTest, MissingMicrocode) {
  TempHost t("healthy-8gpu");
  t.Write(std::string(kDir) + "/spec_rstack_overflow", "Vulnerable: Safe RET, no microcode\n");
  CheckResult r = t.Run(kId);
  EXPECT_OUTCOME(r, Outcome::kWarn);
  const Finding* f = FindFinding(r, "YS-CPU-022");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->message.find("spec_rstack_overflow"), std::string::npos);
  EXPECT_NE(f->fix.find("microcode"), std::string::npos);
  ASSERT_FALSE(f->evidence.empty());
  EXPECT_EQ(f->evidence[0].second, "Vulnerable: Safe RET, no microcode");
  // A site running without mitigations does not need the microcode for them.
  EXPECT_FALSE(HasFinding(t.Run(kId, WithMitigations(checks::Policy::kOff)), "YS-CPU-022"));
}

TEST(MitigationsTest, SkipsWithoutTheVulnerabilitiesDirectory) {
  TempHost t("healthy-8gpu");
  t.Remove(kDir);
  CheckResult r = t.Run(kId);
  EXPECT_OUTCOME(r, Outcome::kSkip);
  EXPECT_NE(r.summary.find("vulnerabilities"), std::string::npos) << r.summary;
}

TEST(MitigationsTest, MalformedFilesGiveErrorsWithThePath) {
  const std::string file = std::string(kDir) + "/spectre_v2";
  testing::ExpectErrorNamingPath(kId, "healthy-8gpu",
                                 {{file, "Fine, thanks\n"},
                                  {file, "Mitigation: a\nMitigation: b\n"},
                                  {file, std::string(host::Host::kMaxFileBytes + 1, 'M')}});
}

// An empty status file (a copy that could not read it) is an unknown status, not an error.
TEST(MitigationsTest, AnEmptyStatusFileIsUnknownNotAnError) {
  TempHost t("healthy-8gpu");
  t.Write(std::string(kDir) + "/spectre_v2", "");
  CheckResult r = t.Run(kId);
  EXPECT_OUTCOME(r, Outcome::kPass);
  bool noted = false;
  for (const auto& [k, v] : r.evidence) noted |= k == "spectre_v2" && v == "(empty file)";
  EXPECT_TRUE(noted) << testing::Describe(r);
}

}  // namespace
}  // namespace mitigations_test
}  // namespace ys
