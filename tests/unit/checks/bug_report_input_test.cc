// preflight --bug-report: a report shaped as nvidia-bug-report.sh writes it (one gzip member per
// section), made of a real nvidia-smi -q dump (tests/fixtures/real/nvidia-smi/) and a kernel log,
// judged offline with nothing of this machine read.
#include "checks/bug_report_input.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <fstream>
#include <sstream>

#include "checks/preflight.h"
#include "core/format_registry.h"
#include "core/scratch_dir.h"
#include "testing/check_test_util.h"
#include "testing/gzip.h"

namespace ys::checks {
namespace {

constexpr const char* kSep = "____________________________________________\n";

std::string ReadFixture(const std::string& rel) {
  std::ifstream in(std::string(YS_FIXTURES_DIR) + "/" + rel, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  EXPECT_FALSE(s.str().empty()) << rel;
  return s.str();
}

// The report of the HGX H100 of the real dump, with `journal` as this boot's NVIDIA lines.
std::string WriteReport(const ScratchDir& dir, const std::string& journal,
                        const std::string& nvlink = "") {
  std::vector<std::string> sections = {
      std::string(kSep) +
          "\nStart of NVIDIA bug report log file.  Please include this file\n\n"
          "nvidia-bug-report.sh Version: 34207466\n\n"
          "Date: Tue Mar  4 10:11:12 UTC 2025\n"
          "uname: Linux hgx-h100-07 5.15.0-131-generic #141-Ubuntu SMP x86_64\n\n",
      std::string(kSep) +
          "\n*** /proc/driver/nvidia/version\n*** ls: -r--r--r-- 1 root root 0 "
          "/proc/driver/nvidia/version\n"
          "NVRM version: NVIDIA UNIX x86_64 Kernel Module  565.57.01  Thu Oct 10 "
          "12:29:05 UTC 2024\nGCC version:  gcc version 12.3.0\n\n",
      std::string(kSep) +
          "\nScanning kernel log files for NVIDIA kernel messages:\n\n"
          "  journalctl -b -0:\n" +
          journal + "\n",
      std::string(kSep) + "\ndmesg:\n\n[    4.100000] Linux version 5.15.0-131-generic\n",
      std::string(kSep) + "\n/usr/bin/nvidia-smi --query\n\n" +
          ReadFixture("real/nvidia-smi/h100-sxm5x8-r565.txt") + "\n" +
          (nvlink.empty() ? "" : "/usr/bin/nvidia-smi nvlink --status\n\n" + nvlink + "\n"),
      std::string(kSep) + "\nEnd of NVIDIA bug report log file.\n"};
  std::string gz;
  for (const auto& s : sections) gz += testing::Gzip(s);
  std::string path = dir.path() + "/nvidia-bug-report.log.gz";
  std::ofstream(path, std::ios::binary) << gz;
  return path;
}

const CheckResult* Find(const RunDocument& doc, std::string_view id) {
  for (const auto& c : doc.checks) {
    if (c.unit_id == id) return &c;
  }
  return nullptr;
}

// The NVIDIA lines of a healthy boot of the eight-GPU node: gpu.xid takes fewer than ten lines
// for a fragment, not for a log.
std::string HealthyBootJournal() {
  std::string j =
      "Mar 04 09:00:00 hgx-h100-07 kernel: nvidia: loading out-of-tree module taints kernel.\n"
      "Mar 04 09:00:00 hgx-h100-07 kernel: nvidia-nvlink: Nvlink Core is being initialized, "
      "major device number 509\n";
  for (const char* bus : {"18", "2a", "3a", "5d", "9a", "ab", "ba", "db"}) {
    j += std::string("Mar 04 09:00:01 hgx-h100-07 kernel: nvidia 0000:") + bus +
         ":00.0: enabling device (0000 -> 0002)\n";
  }
  return j +
         "Mar 04 09:00:01 hgx-h100-07 kernel: NVRM: loading NVIDIA UNIX x86_64 Kernel Module  "
         "565.57.01\n";
}

TEST(BugReportInputTest, AHealthyReportGivesTheDumpsVerdictsOffline) {
  auto dir = ScratchDir::Make("bug-report-input-test");
  ASSERT_TRUE(dir.ok());
  PreflightOptions o;
  o.bug_report = WriteReport(*dir, HealthyBootJournal());
  auto doc = RunPreflight(o);
  ASSERT_TRUE(doc.ok()) << doc.status().message();
  EXPECT_EQ(doc->host.hostname, "hgx-h100-07");
  EXPECT_EQ(doc->host.gpu_driver, "565.57.01");
  for (const auto& c : doc->checks) {
    EXPECT_EQ(c.unit_id.rfind("gpu.", 0), 0u) << c.unit_id;  // gpu.* by default
    EXPECT_NE(c.outcome, Outcome::kFail) << testing::Describe(c);
    EXPECT_NE(c.outcome, Outcome::kError) << testing::Describe(c);
    // Nothing names the scratch directory the report was laid out in.
    for (const auto& [k, v] : c.evidence) {
      EXPECT_EQ(v.find(dir->path() + "/nvidia-bug-report.log.gz") == 0
                    ? std::string::npos
                    : v.find("yardstick-bug-report-"),
                std::string::npos)
          << k << " = " << v;
    }
  }
  const CheckResult* xid = Find(*doc, "gpu.xid");
  ASSERT_NE(xid, nullptr);
  EXPECT_OUTCOME(*xid, Outcome::kPass);
  const CheckResult* count = Find(*doc, "gpu.count");
  ASSERT_NE(count, nullptr);
  EXPECT_NE(count->outcome, Outcome::kFail);
  ASSERT_FALSE(doc->warnings.empty());
  EXPECT_NE(doc->warnings[0].find("read offline from the nvidia-bug-report log " + o.bug_report),
            std::string::npos)
      << doc->warnings[0];
  for (const auto& w : doc->warnings) {
    EXPECT_EQ(w.find("yardstick-bug-report-"), std::string::npos) << w;
  }
}

TEST(BugReportInputTest, AnXid79InTheJournalOfThisBootFailsTheRightGpu) {
  auto dir = ScratchDir::Make("bug-report-input-test");
  ASSERT_TRUE(dir.ok());
  PreflightOptions o;
  o.bug_report = WriteReport(
      *dir,
      "Mar 04 09:00:01 hgx-h100-07 kernel: NVRM: loading NVIDIA UNIX x86_64 Kernel Module  "
      "565.57.01\n"
      "Mar 04 09:59:58 hgx-h100-07 kernel: NVRM: Xid (PCI:0000:9a:00): 79, pid='<unknown>', "
      "name=<unknown>, GPU has fallen off the bus.\n");
  auto doc = RunPreflight(o);
  ASSERT_TRUE(doc.ok()) << doc.status().message();
  const CheckResult* xid = Find(*doc, "gpu.xid");
  ASSERT_NE(xid, nullptr);
  EXPECT_OUTCOME(*xid, Outcome::kFail);
  bool gpu4 = false;
  for (const auto& f : xid->findings) {
    if (f.entity == "gpu4 (00000000:9A:00.0)" && f.message.find("79") != std::string::npos)
      gpu4 = true;
  }
  EXPECT_TRUE(gpu4) << testing::Describe(*xid);
}

// The report's `nvidia-smi nvlink -s` section is read by the format room's nvidia-smi-nvlink
// reader from memory: its gpu.nvlink result replaces the dump's, which cannot show links.
TEST(BugReportInputTest, TheReportsNvlinkStatusIsJudgedByTheFormatRoomsReader) {
  auto dir = ScratchDir::Make("bug-report-input-test");
  ASSERT_TRUE(dir.ok());
  PreflightOptions o;
  o.filters = {"gpu.nvlink"};
  o.bug_report = WriteReport(*dir, "", ReadFixture("real/nvlink/v100_nvlink_s_two_inactive.txt"));
  auto doc = RunPreflight(o);
  ASSERT_TRUE(doc.ok()) << doc.status().message();
  ASSERT_EQ(doc->checks.size(), 1u);
  EXPECT_OUTCOME(doc->checks[0], Outcome::kFail);
  EXPECT_EQ(doc->checks[0].findings.at(0).code, "YS-GPU-045");
  EXPECT_NE(doc->checks[0].summary.find(o.bug_report + " [nvidia-smi nvlink]"), std::string::npos)
      << doc->checks[0].summary;
  // A section that is not nvidia-smi nvlink output is an error naming the report's section.
  o.bug_report = WriteReport(*dir, "", "GPU 0: Tesla V100 (UUID: GPU-1)\n\tLink 0: broken\n");
  doc = RunPreflight(o);
  ASSERT_FALSE(doc.ok());
  EXPECT_NE(doc.status().message().find("[nvidia-smi nvlink]"), std::string::npos)
      << doc.status().message();
}

// A yardstick built without the format units cannot read the section: the check says it went
// unjudged, and why, instead of passing over it.
TEST(BugReportInputTest, WithoutTheNvlinkFormatTheReportSaysItsNvlinkOutputWentUnjudged) {
  auto dir = ScratchDir::Make("bug-report-input-test");
  ASSERT_TRUE(dir.ok());
  const FormatRegistry no_formats;
  PreflightOptions o;
  o.filters = {"gpu.nvlink"};
  o.formats = &no_formats;
  o.bug_report = WriteReport(*dir, "", ReadFixture("real/nvlink/v100_nvlink_s_two_inactive.txt"));
  auto doc = RunPreflight(o);
  ASSERT_TRUE(doc.ok()) << doc.status().message();
  ASSERT_EQ(doc->checks.size(), 1u);
  EXPECT_OUTCOME(doc->checks[0], Outcome::kSkip);
  const std::string why = o.bug_report +
                          " [nvidia-smi nvlink] was not judged: this yardstick has no "
                          "nvidia-smi-nvlink format";
  EXPECT_NE(doc->checks[0].summary.find(why), std::string::npos) << doc->checks[0].summary;
  bool warned = false;
  for (const auto& w : doc->warnings) warned = warned || w.find(why) != std::string::npos;
  EXPECT_TRUE(warned);
}

TEST(BugReportInputTest, RefusesToMixWithThisMachinesInputs) {
  PreflightOptions o;
  o.bug_report = "/nonexistent/nvidia-bug-report.log.gz";
  o.kernel_log = "/dev/null";
  auto doc = RunPreflight(o);
  ASSERT_FALSE(doc.ok());
  EXPECT_NE(doc.status().message().find("cannot be combined"), std::string::npos);
  o.kernel_log.clear();
  doc = RunPreflight(o);
  ASSERT_FALSE(doc.ok());
  EXPECT_NE(doc.status().message().find("/nonexistent/nvidia-bug-report.log.gz"),
            std::string::npos);
}

}  // namespace
}  // namespace ys::checks
