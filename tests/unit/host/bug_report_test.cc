#include "host/bug_report.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "core/scratch_dir.h"
#include "testing/gzip.h"

namespace ys::host {
namespace {

constexpr const char* kSep = "____________________________________________\n";

// A report laid out as nvidia-bug-report.sh writes one (sections in the script's order).
std::vector<std::string> Sections() {
  return {std::string(kSep) +
              "\nStart of NVIDIA bug report log file.  Please include this file, along\n"
              "with a detailed description of your problem, when reporting a graphics\n"
              "driver bug via the NVIDIA Linux forum (see forums.developer.nvidia.com)\n"
              "or by sending email to 'linux-bugs@nvidia.com'.\n\n"
              "nvidia-bug-report.sh Version: 34207466\n\n"
              "Date: Tue Mar  4 10:11:12 UTC 2025\n"
              "uname: Linux gpu-node-17 5.15.0-131-generic #141-Ubuntu SMP x86_64 GNU/Linux\n"
              "command line flags: \n\n",
          std::string(kSep) +
              "\n*** /etc/issue\n*** ls: -rw-r--r-- 1 root root 26 2024-08-27 /etc/issue\n"
              "Ubuntu 22.04.5 LTS \\n \\l\n\n\n",
          std::string(kSep) + "\n*** /var/log/nvidia-installer.log does not exist\n\n",
          std::string(kSep) +
              "\nScanning kernel log files for NVIDIA kernel messages:\n\n"
              "  journalctl -b -0:\n"
              "Mar 04 09:00:01 gpu-node-17 kernel: NVRM: loading NVIDIA UNIX x86_64 "
              "Kernel Module  550.127.05\n"
              "Mar 04 09:59:58 gpu-node-17 kernel: NVRM: Xid (PCI:0000:b3:00): 79, "
              "pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\n\n"
              "  journalctl -b -1:\n"
              "Mar 01 12:00:00 gpu-node-17 kernel: NVRM: Xid (PCI:0000:18:00): 48, "
              "pid=1, name=python3, An uncorrectable double bit error\n\n",
          std::string(kSep) +
              "\ndmesg:\n\n"
              "[    5.201330] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.127.05\n",
          std::string(kSep) +
              "\n*** /proc/driver/nvidia/version\n*** ls: -r--r--r-- 1 root root 0 "
              "2025-03-04 /proc/driver/nvidia/version\n"
              "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.127.05\n"
              "GCC version:  gcc version 12.3.0\n\n",
          std::string(kSep) +
              "\n/usr/bin/nvidia-smi --query\n\n\n"
              "==============NVSMI LOG==============\n\n"
              "Timestamp                                 : Tue Mar  4 10:11:20 2025\n"
              "Driver Version                            : 550.127.05\n\n"
              "/usr/bin/nvidia-smi --query --unit\n\n\n"
              "==============NVSMI LOG==============\n\n"
              "/usr/bin/nvidia-smi nvlink --errorcounters\n\n"
              "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-0)\n"
              "\t Link 0: Replay Errors: 0\n\n"
              "/usr/bin/nvidia-smi nvlink --status\n\n"
              "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-0)\n"
              "\t Link 0: 26.562 GB/s\n\n",
          std::string(kSep) + "\nEnd of NVIDIA bug report log file.\n"};
}

std::string Joined() {
  std::string all;
  for (const auto& s : Sections()) all += s;
  return all;
}

TEST(BugReportTest, ReadsTheSectionsTheScriptWrites) {
  auto r = ParseBugReport(Joined());
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->version, "34207466");
  EXPECT_EQ(r->date, "Tue Mar  4 10:11:12 UTC 2025");
  EXPECT_NE(r->uname.find("gpu-node-17"), std::string::npos);
  // --query only, not --query --unit; the blank lines around the output are dropped.
  EXPECT_EQ(r->smi_query.rfind("==============NVSMI LOG==============\n", 0), 0u) << r->smi_query;
  EXPECT_NE(r->smi_query.find("Driver Version                            : 550.127.05\n"),
            std::string::npos);
  EXPECT_EQ(r->smi_query.find("--unit"), std::string::npos);
  EXPECT_EQ(r->nvlink_errors,
            "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-0)\n\t Link 0: Replay Errors: 0\n");
  EXPECT_EQ(r->nvlink_status,
            "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-0)\n\t Link 0: 26.562 GB/s\n");
  ASSERT_EQ(r->files.count("/proc/driver/nvidia/version"), 1u);
  EXPECT_EQ(r->files.at("/proc/driver/nvidia/version"),
            "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.127.05\n"
            "GCC version:  gcc version 12.3.0\n");
  EXPECT_EQ(r->files.at("/etc/issue"), "Ubuntu 22.04.5 LTS \\n \\l\n\n");
  EXPECT_EQ(r->files.count("/var/log/nvidia-installer.log"), 0u);
  // The ring buffer lost the XID 79 the journal kept for this boot; the older boot's XID 48 is
  // not this boot's.
  EXPECT_NE(r->kernel_log.find("79, pid="), std::string::npos) << r->kernel_log;
  EXPECT_EQ(r->kernel_log.find("48, pid="), std::string::npos) << r->kernel_log;
  EXPECT_NE(r->kernel_log_source.find("journalctl -b -0"), std::string::npos);
}

TEST(BugReportTest, PrefersTheRingBufferWhenItHoldsAsMuch) {
  std::vector<std::string> s = Sections();
  s[4] +=
      "[ 3598.100000] NVRM: Xid (PCI:0000:b3:00): 79, pid='<unknown>', name=<unknown>, GPU "
      "has fallen off the bus.\n";
  std::string all;
  for (const auto& x : s) all += x;
  auto r = ParseBugReport(all);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->kernel_log_source, "the dmesg section (the boot the report was taken in)");
  EXPECT_EQ(r->kernel_log.rfind("[    5.201330] NVRM: loading", 0), 0u) << r->kernel_log;
}

TEST(BugReportTest, SafeModeReportHasNoGpuStateAndSaysSo) {
  std::vector<std::string> s = Sections();
  s[6] = std::string(kSep) +
         "Skipping nvidia-smi, nvidia-debugdump, and vulkaninfo due to --safe-mode argument.\n\n";
  std::string all;
  for (const auto& x : s) all += x;
  auto r = ParseBugReport(all);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->smi_query.empty());
  bool said = false;
  for (const auto& n : r->notes) said |= n.find("--safe-mode") != std::string::npos;
  EXPECT_TRUE(said);
}

TEST(BugReportTest, RefusesTextThatIsNoReport) {
  for (std::string_view text : {"", "hello\n", "==============NVSMI LOG==============\n"}) {
    auto r = ParseBugReport(text);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.status().message().find("not an nvidia-bug-report log"), std::string::npos);
  }
}

TEST(BugReportTest, ReadsTheGzipOfOneMemberPerSectionAndNamesTheFileInErrors) {
  auto dir = ScratchDir::Make("bug-report-test");
  ASSERT_TRUE(dir.ok());
  std::string gz;
  for (const auto& s : Sections())
    gz += testing::Gzip(s);  // as `gzip -c >> file`, once per section
  const std::string path = dir->path() + "/nvidia-bug-report.log.gz";
  std::ofstream(path, std::ios::binary) << gz;
  auto r = ReadBugReport(path);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_FALSE(r->smi_query.empty());
  EXPECT_EQ(r->files.size(), 2u);

  std::ofstream(path, std::ios::binary) << gz.substr(0, gz.size() - 9);  // truncated
  auto bad = ReadBugReport(path);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message().rfind(path + ": ", 0), 0u) << bad.status().message();
  auto missing = ReadBugReport(dir->path() + "/absent.log.gz");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("absent.log.gz"), std::string::npos);
}

}  // namespace
}  // namespace ys::host
