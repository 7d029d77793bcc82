#include <gtest/gtest.h>

#include "testing/check_test_util.h"

namespace ys {
// A namespace of the file's own: its file-local names stay its own in a unity batch.
namespace memory_settings_test {
namespace {

using testing::FindFinding;
using testing::HasFinding;
using testing::RunOnFixture;
using testing::TempHost;

constexpr const char* kId = "mem.settings";

TEST(MemorySettingsTest, PassesOnHealthyNode) {
  CheckResult r = RunOnFixture(kId, "healthy-8gpu");
  EXPECT_OUTCOME(r, Outcome::kPass);
  EXPECT_TRUE(r.findings.empty());
}

TEST(MemorySettingsTest, FailsWhenMemlockIsLimitedOnAnRdmaNode) {
  TempHost t("healthy-8gpu");
  t.Write("/proc/self/limits",
          "Limit                     Soft Limit           Hard Limit           Units\n"
          "Max locked memory         8388608              8388608              bytes\n");
  CheckResult r = t.Run(kId);
  EXPECT_OUTCOME(r, Outcome::kFail);
  const Finding* f = FindFinding(r, "YS-MEM-005");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->fix.find("memlock"), std::string::npos);
}

TEST(MemorySettingsTest, MemlockDoesNotMatterWithoutRdmaOrWhenSiteSaysAny) {
  TempHost t("healthy-8gpu");
  t.Write("/proc/self/limits",
          "Max locked memory         8388608              8388608              bytes\n");
  checks::SiteExpectations any;
  any.params.Set("mem.settings", "memlock", std::string("any"));
  EXPECT_FALSE(HasFinding(t.Run(kId, any), "YS-MEM-005"));
  t.Remove("/sys/class/infiniband");
  EXPECT_FALSE(HasFinding(t.Run(kId), "YS-MEM-005"));
}

TEST(MemorySettingsTest, WarnsOnDefragAlwaysSwapAndIdleHugetlb) {
  TempHost t("healthy-8gpu");
  t.Write("/sys/kernel/mm/transparent_hugepage/defrag",
          "[always] defer defer+madvise madvise never\n");
  t.Write("/proc/meminfo",
          "MemTotal: 100 kB\nSwapTotal: 4096 kB\nSwapFree: 1024 kB\nHugePages_Total: 512\n"
          "HugePages_Free: 512\nHugepagesize: 2048 kB\n");
  CheckResult r = t.Run(kId);
  EXPECT_OUTCOME(r, Outcome::kWarn);
  EXPECT_TRUE(HasFinding(r, "YS-MEM-001"));
  EXPECT_TRUE(HasFinding(r, "YS-MEM-003"));
  EXPECT_TRUE(HasFinding(r, "YS-MEM-006"));
}

TEST(MemorySettingsTest, ThpPolicyMismatch) {
  checks::SiteExpectations e;
  e.params.Set("mem.settings", "thp", std::string("always"));
  EXPECT_TRUE(HasFinding(RunOnFixture(kId, "healthy-8gpu", e), "YS-MEM-002"));
}

TEST(MemorySettingsTest, SkipsNothingButReportsKernelWithoutThp) {
  TempHost t("healthy-8gpu");
  t.Remove("/sys/kernel/mm/transparent_hugepage");
  CheckResult r = t.Run(kId);
  EXPECT_OUTCOME(r, Outcome::kPass);
}

TEST(MemorySettingsTest, SkipsWhenProcIsAbsent) {
  TempHost t;
  CheckResult r = t.Run(kId);
  EXPECT_OUTCOME(r, Outcome::kSkip);
}

// RLIM_INFINITY printed as a number (or 2^64-2) is no limit: no false alarm for RDMA.
TEST(MemorySettingsTest, MemlockPrintedNearTwoToThe64IsUnlimited) {
  TempHost t("healthy-8gpu");
  for (const char* v : {"18446744073709551615", "18446744073709551614"}) {
    t.Write("/proc/self/limits",
            std::string("Max locked memory         ") + v + " " + v + " bytes\n");
    CheckResult r = t.Run(kId);
    EXPECT_OUTCOME(r, Outcome::kPass);
    EXPECT_FALSE(HasFinding(r, "YS-MEM-005")) << v;
  }
}

// An empty THP file is not judged (the rest of the check still runs).
TEST(MemorySettingsTest, EmptyThpFileIsNotJudged) {
  TempHost t("healthy-8gpu");
  t.Write("/sys/kernel/mm/transparent_hugepage/enabled", "");
  CheckResult r = t.Run(kId);
  EXPECT_OUTCOME(r, Outcome::kPass);
  bool noted = false;
  for (const auto& [k, v] : r.evidence)
    noted |= k == "thp.enabled" && v == "empty file: not judged";
  EXPECT_TRUE(noted) << testing::Describe(r);
}

// An empty /proc/meminfo records no hugetlb or swap figures: those are not judged, and THP and
// memlock still are.
TEST(MemorySettingsTest, EmptyMeminfoIsNotJudged) {
  for (const char* empty : {"", "\n", "  \n\n"}) {
    TempHost t("healthy-8gpu");
    t.Write("/proc/meminfo", empty);
    CheckResult r = t.Run(kId);
    EXPECT_OUTCOME(r, Outcome::kPass);
    bool noted = false;
    for (const auto& [k, v] : r.evidence)
      noted |= k == "meminfo" && v.find("/proc/meminfo: empty file") != std::string::npos;
    EXPECT_TRUE(noted) << testing::Describe(r);
  }
  TempHost t("healthy-8gpu");
  t.Write("/proc/meminfo", "");
  t.Write("/proc/self/limits", "Max locked memory         65536 65536 bytes\n");
  EXPECT_OUTCOME(t.Run(kId), Outcome::kFail);  // memlock is still judged (RDMA fixture)
}

// An empty limits file records no memlock limit: not judged, and no YS-MEM-005 on an RDMA node.
TEST(MemorySettingsTest, EmptyLimitsIsNotJudged) {
  TempHost t("healthy-8gpu");
  t.Write("/proc/self/limits", "");
  CheckResult r = t.Run(kId);
  EXPECT_OUTCOME(r, Outcome::kPass);
  bool noted = false;
  for (const auto& [k, v] : r.evidence)
    noted |= k == "memlock.soft" && v.find("/proc/self/limits: empty file") != std::string::npos;
  EXPECT_TRUE(noted) << testing::Describe(r);
}

// An empty THP defrag file is not judged; `enabled` still is.
TEST(MemorySettingsTest, EmptyThpDefragIsNotJudged) {
  TempHost t("healthy-8gpu");
  t.Write("/sys/kernel/mm/transparent_hugepage/defrag", "");
  CheckResult r = t.Run(kId);
  EXPECT_OUTCOME(r, Outcome::kPass);
  bool noted = false;
  for (const auto& [k, v] : r.evidence) noted |= k == "thp.defrag" && v == "empty file: not judged";
  EXPECT_TRUE(noted) << testing::Describe(r);
}

TEST(MemorySettingsTest, MalformedFilesGiveErrorsWithThePath) {
  for (const char* bad : {"garbage", "MemTotal: lots kB\n", "SwapTotal:"}) {
    TempHost t("healthy-8gpu");
    t.Write("/proc/meminfo", bad);
    CheckResult r = t.Run(kId);
    EXPECT_OUTCOME(r, Outcome::kError);
    EXPECT_NE(r.summary.find("/proc/meminfo"), std::string::npos) << r.summary;
  }
  TempHost t("healthy-8gpu");
  t.Write("/sys/kernel/mm/transparent_hugepage/defrag", "no brackets here");
  CheckResult r = t.Run(kId);
  EXPECT_OUTCOME(r, Outcome::kError);
  EXPECT_NE(r.summary.find("transparent_hugepage/defrag"), std::string::npos) << r.summary;
}

TEST(MemorySettingsTest, EnormousFileIsRefusedNotRead) {
  TempHost t("healthy-8gpu");
  t.Write("/proc/meminfo", std::string(host::Host::kMaxFileBytes + 10, 'x'));
  CheckResult r = t.Run(kId);
  EXPECT_OUTCOME(r, Outcome::kError);
  EXPECT_NE(r.summary.find("limit"), std::string::npos) << r.summary;
}

}  // namespace
}  // namespace memory_settings_test
}  // namespace ys
