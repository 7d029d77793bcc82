#include <gtest/gtest.h>

#include <string>

#include "testing/check_test_util.h"

namespace ys {
// A namespace of the file's own: its file-local names stay its own in a unity batch.
namespace clocksource_test {
namespace {

using testing::FindFinding;
using testing::RunWithFileReplaced;
using testing::TempHost;

constexpr const char* kId = "cpu.clocksource";
constexpr const char* kCurrent = "/sys/devices/system/clocksource/clocksource0/current_clocksource";
constexpr const char* kAvailable =
    "/sys/devices/system/clocksource/clocksource0/available_clocksource";

TEST(ClocksourceTest, FastClocksourcesPass) {
  TempHost t("healthy-8gpu");
  t.Write(kAvailable, "tsc hpet acpi_pm \n");
  for (const char* fast : {"tsc\n", "kvm-clock\n", "arch_sys_counter\n"}) {
    CheckResult r = RunWithFileReplaced(t, kId, kCurrent, fast);
    EXPECT_OUTCOME(r, Outcome::kPass);
    EXPECT_NE(r.summary.find("user space"), std::string::npos) << r.summary;
  }
}

TEST(ClocksourceTest, HpetWarnsAndSuggestsTheTsc) {
  TempHost t("healthy-8gpu");
  t.Write(kAvailable, "tsc hpet acpi_pm \n");
  CheckResult r = RunWithFileReplaced(t, kId, kCurrent, "hpet\n");
  EXPECT_OUTCOME(r, Outcome::kWarn);
  const Finding* f = FindFinding(r, "YS-CPU-030");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->message, "clocksource is hpet: every clock read is a system call or device access");
  EXPECT_NE(f->fix.find("echo tsc >"), std::string::npos) << f->fix;
}

TEST(ClocksourceTest, XenWithoutTscNamesNoTsc) {
  TempHost t("healthy-8gpu");
  t.Write(kAvailable, "xen \n");
  CheckResult r = RunWithFileReplaced(t, kId, kCurrent, "xen\n");
  const Finding* f = FindFinding(r, "YS-CPU-030");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->fix.find("echo tsc"), std::string::npos) << f->fix;
}

TEST(ClocksourceTest, NoClocksourceInSysfsSkips) {
  TempHost t("healthy-8gpu");
  t.Remove("/sys/devices/system/clocksource");
  CheckResult r = t.Run(kId);
  EXPECT_OUTCOME(r, Outcome::kSkip);
}

}  // namespace
}  // namespace clocksource_test
}  // namespace ys
