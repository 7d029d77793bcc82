#include "host/cpu_vulnerabilities.h"

#include <gtest/gtest.h>

#include "testing/check_test_util.h"

namespace ys::host {
namespace {

TEST(VulnerabilityParseTest, TheKernelForms) {
  auto v = ParseVulnerability("meltdown", "Not affected\n");
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->state, VulnState::kNotAffected);
  EXPECT_FALSE(v->needs_microcode);

  v = ParseVulnerability("spectre_v2",
                         "Mitigation: Retpolines; STIBP: disabled; RSB filling; PBRSB-eIBRS: Not "
                         "affected; BHI: Not affected\n");
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->state, VulnState::kMitigated);
  EXPECT_EQ(v->text.substr(0, 22), "Mitigation: Retpolines");

  v = ParseVulnerability("spec_store_bypass", "Vulnerable");
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->state, VulnState::kVulnerable);
  EXPECT_FALSE(v->needs_microcode);

  v = ParseVulnerability("spec_rstack_overflow", "Vulnerable: Safe RET, no microcode\n");
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->state, VulnState::kVulnerable);
  EXPECT_TRUE(v->needs_microcode);

  v = ParseVulnerability("spec_rstack_overflow", "Vulnerable: No microcode\n");
  EXPECT_TRUE(v->needs_microcode);
  v = ParseVulnerability("old_microcode", "Vulnerable\n");
  EXPECT_TRUE(v->needs_microcode);

  v = ParseVulnerability("itlb_multihit", "KVM: Mitigation: Split huge pages\n");
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->state, VulnState::kMitigated);
  v = ParseVulnerability("itlb_multihit", "KVM: Mitigation: VMX disabled\n");
  EXPECT_EQ(v->state, VulnState::kMitigated);
  v = ParseVulnerability("gather_data_sampling", "Unknown: Dependent on hypervisor status\n");
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->state, VulnState::kUnknown);
  v = ParseVulnerability("mmio_stale_data", "Mitigation: Clear CPU buffers; SMT vulnerable\n");
  EXPECT_EQ(v->state, VulnState::kMitigated);
}

TEST(VulnerabilityParseTest, RejectsMalformedInput) {
  for (const char* bad :
       {"Fine", "vulnerable", "Mitigated: x", "VulnerableX", "Not affected\nNot affected\n"}) {
    EXPECT_FALSE(ParseVulnerability("x", bad).ok()) << "\"" << bad << "\"";
  }
}

// An empty file is no status (unknown), not an unreadable directory.
TEST(VulnerabilityParseTest, AnEmptyFileIsUnknown) {
  for (const char* empty : {"", "\n", "   "}) {
    auto v = ParseVulnerability("tsa", empty);
    ASSERT_TRUE(v.ok()) << "\"" << empty << "\": " << v.status().ToString();
    EXPECT_EQ(v->state, VulnState::kUnknown);
    EXPECT_EQ(v->text, "(empty file)");
  }
}

TEST(VulnerabilityReadTest, ReadsTheFixtureDirectory) {
  auto h = Host::AtRoot(testing::FixturePath("healthy-8gpu"));
  ASSERT_TRUE(h.ok());
  auto vs = ReadVulnerabilities(*h);
  ASSERT_TRUE(vs.ok()) << vs.status().ToString();
  EXPECT_EQ(vs->size(), 15u);
  EXPECT_EQ(vs->front().name, "gather_data_sampling");
  testing::TempHost t;
  EXPECT_EQ(ReadVulnerabilities(t.Host()).status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace ys::host
