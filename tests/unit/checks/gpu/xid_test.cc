#include <gtest/gtest.h>

#include <fstream>

#include "testing/check_test_util.h"
#include "testing/gpu_test_util.h"

namespace ys {
namespace {

using testing::GpuRun;

GpuRun WithLog(std::string log) {
  GpuRun run;
  run.kernel_log = std::move(log);
  return run;
}

TEST(GpuXidTest, HealthyLogPasses) {
  CheckResult r = testing::RunGpuFixture("gpu.xid", "healthy-h100x8", WithLog("healthy-kmsg.txt"));
  EXPECT_OUTCOME(r, Outcome::kPass);
  EXPECT_EQ(r.summary, "no XID in the kernel log");
}

TEST(GpuXidTest, XidRecordingFailsOnXid79AndXid48) {
  CheckResult r = testing::RunGpuFixture("gpu.xid", "xid", WithLog("xid-kmsg.txt"));
  EXPECT_OUTCOME(r, Outcome::kFail);
  ASSERT_EQ(r.findings.size(), 2u) << testing::Describe(r);
  const Finding& dbe = r.findings[0];  // in log order
  EXPECT_EQ(dbe.code, "YS-GPU-040");
  EXPECT_EQ(dbe.entity, "gpu1");
  // Two DBE lines 260 us apart are one event (one burst), not two.
  EXPECT_EQ(dbe.message, "XID 48: double-bit ECC error (DBE) in GPU memory");
  EXPECT_NE(dbe.fix.find("nvidia-smi -r -i 1"), std::string::npos) << dbe.fix;
  const Finding& bus = r.findings[1];
  EXPECT_EQ(bus.code, "YS-GPU-040");
  EXPECT_EQ(bus.entity, "gpu4");
  EXPECT_EQ(bus.message, "XID 79: GPU has fallen off the bus");
  bool uuid = false, line = false;
  for (const auto& [k, v] : bus.evidence) {
    if (k == "gpu4.uuid" && v.rfind("GPU-", 0) == 0) uuid = true;
    if (k.rfind("first (95541.3 s after boot)", 0) == 0 &&
        v.find("NVRM: Xid (PCI:0000:51:00): 79") != std::string::npos)
      line = true;
  }
  EXPECT_TRUE(uuid);
  EXPECT_TRUE(line);
  // The lone XID 13 is an application fault: noted, not a finding. The NVSwitch SXid is not an XID.
  bool app = false;
  for (const auto& [k, v] : r.evidence) {
    if (k == "gpu6.xid13" && v.find("an application fault") != std::string::npos) app = true;
  }
  EXPECT_TRUE(app) << testing::Describe(r);
}

TEST(GpuXidTest, SiteListsReclassify) {
  GpuRun run = WithLog("xid-kmsg.txt");
  run.expect.params.Set("gpu.xid", "fatal_xids", std::vector<int>{79});
  run.expect.params.Set("gpu.xid", "ignored_xids", std::vector<int>{13});
  CheckResult r = testing::RunGpuFixture("gpu.xid", "xid", run);
  EXPECT_OUTCOME(r, Outcome::kFail);
  ASSERT_NE(testing::FindFinding(r, "YS-GPU-041"), nullptr);  // 48 is no longer fatal here
  EXPECT_EQ(testing::FindFinding(r, "YS-GPU-041")->entity, "gpu1");
  EXPECT_EQ(testing::FindFinding(r, "YS-GPU-040")->entity, "gpu4");
  bool ignored = false;
  for (const auto& [k, v] : r.evidence) {
    if (k == "gpu6.xid13" && v.find("ignored by site policy") != std::string::npos) ignored = true;
  }
  EXPECT_TRUE(ignored);
}

TEST(GpuXidTest, RepeatedApplicationXidsOnOneGpuWarn) {
  std::string path = ::testing::TempDir() + "ys-xid-app.txt";
  std::ofstream(path)
      << "[ 100.5] NVRM: Xid (PCI:0000:31:00): 13, pid=1, name=a, Graphics Exception\n"
         "[ 200.5] NVRM: Xid (PCI:0000:31:00): 31, pid=2, name=b, MMU Fault\n"
         "[ 300.5] NVRM: Xid (PCI:0000:41:00): 43, pid=3, name=c, Ch 00000010\n"
         "[ 400.5] NVRM: Xid (PCI:0000:41:00): 94, pid=3, name=c, Contained\n"
         "[ 500.5] NVRM: Xid (PCI:0000:41:00): 154, GPU recovery action changed\n";
  CheckResult r = testing::RunGpuFixture("gpu.xid", "healthy-h100x8", WithLog(path));
  EXPECT_OUTCOME(r, Outcome::kWarn);
  const Finding* rep = testing::FindFinding(r, "YS-GPU-042");
  ASSERT_NE(rep, nullptr) << testing::Describe(r);
  EXPECT_EQ(rep->entity, "gpu2");
  EXPECT_NE(rep->fix.find("dcgmi diag -r 3 -i 2"), std::string::npos);
  int warn = 0;
  for (const auto& f : r.findings) warn += f.code == "YS-GPU-041";
  EXPECT_EQ(warn, 2) << testing::Describe(r);  // 94 (DCGM warn), 154 (action not stated)
  EXPECT_EQ(r.findings.size(), 3u);
}

TEST(GpuXidTest, Xid154NamesItsRecoveryActionAndOnlyTheCurrentBootCounts) {
  std::string path = ::testing::TempDir() + "ys-xid-boots.txt";
  std::ofstream(path)
      << "[ 500.5] NVRM: Xid (PCI:0000:11:00): 79, pid='<unknown>', name=<unknown>, GPU has "
         "fallen off the bus.\n"
         "[    0.000000] Linux version 6.8.0-45-generic (buildd@lcy02-amd64-075)\n"
         "[   20.5] NVRM: Xid (PCI:0000:21:00): 154, GPU recovery action changed from 0x0 (None) "
         "to 0x1 (GPU Reset Required)\n";
  CheckResult r = testing::RunGpuFixture("gpu.xid", "healthy-h100x8", WithLog(path));
  EXPECT_OUTCOME(r, Outcome::kFail);
  ASSERT_EQ(r.findings.size(), 1u) << testing::Describe(r);  // the XID 79 was a boot ago
  EXPECT_EQ(r.findings[0].code, "YS-GPU-040");
  EXPECT_NE(r.findings[0].message.find("GPU reset required"), std::string::npos)
      << r.findings[0].message;
  bool noted = false;
  for (const auto& [k, v] : r.evidence) noted |= v.find("the last of 2 boots") != std::string::npos;
  EXPECT_TRUE(noted) << testing::Describe(r);

  GpuRun all = WithLog(path);
  all.expect.params.Set("gpu.xid", "all_boots", true);
  EXPECT_EQ(testing::RunGpuFixture("gpu.xid", "healthy-h100x8", all).findings.size(), 2u);
}

TEST(GpuXidTest, WithoutNvmlTheLogStillSpeaksByPciAddress) {
  CheckResult r = testing::RunGpuSnapshot("gpu.xid", testing::NoNvml(), WithLog("xid-kmsg.txt"));
  EXPECT_OUTCOME(r, Outcome::kFail);
  ASSERT_EQ(r.findings.size(), 2u);
  EXPECT_EQ(r.findings[0].entity, "0000:21:00.0");
  EXPECT_NE(r.findings[0].fix.find("nvidia-smi -r -i 0000:21:00.0"), std::string::npos)
      << r.findings[0].fix;
  EXPECT_EQ(r.findings[1].entity, "0000:51:00.0");
}

TEST(GpuXidTest, SkipsWithoutNvmlAndWithoutXids) {
  CheckResult r =
      testing::RunGpuSnapshot("gpu.xid", testing::NoNvml(), WithLog("healthy-kmsg.txt"));
  EXPECT_OUTCOME(r, Outcome::kSkip);
  EXPECT_NE(r.summary.find("NVML not found"), std::string::npos);
}

TEST(GpuXidTest, UnreadableLog) {
  // /dev/kmsg absent from the tree: skip with the path; a named file that is absent: error.
  CheckResult r = testing::RunGpuFixture("gpu.xid", "healthy-h100x8");
  EXPECT_OUTCOME(r, Outcome::kSkip);
  EXPECT_NE(r.summary.find("dev/kmsg"), std::string::npos) << r.summary;
  CheckResult named =
      testing::RunGpuFixture("gpu.xid", "healthy-h100x8", WithLog("/nonexistent/kmsg"));
  EXPECT_OUTCOME(named, Outcome::kError);
  EXPECT_NE(named.summary.find("/nonexistent/kmsg"), std::string::npos);
  // Even without NVML: the file the operator named is wrong.
  EXPECT_OUTCOME(
      testing::RunGpuSnapshot("gpu.xid", testing::NoNvml(), WithLog("/nonexistent/kmsg")),
      Outcome::kError);
}

TEST(GpuXidTest, GarbageLogHasNoXidAndIsNoEvidence) {
  std::string path = ::testing::TempDir() + "ys-xid-garbage.txt";
  std::ofstream(path, std::ios::binary)
      << std::string("\x00\xff\x01NVRM: Xid (", 15) << "\nNVRM: Xid (PCI:zz:1b:00): 79, x\n"
      << "NVRM: Xid (PCI:0000:1b:00): notanumber\n"
      << std::string(100000, 'x') << "\n";
  CheckResult r = testing::RunGpuFixture("gpu.xid", "healthy-h100x8", WithLog(path));
  EXPECT_TRUE(r.findings.empty()) << testing::Describe(r);
  EXPECT_OUTCOME(r, Outcome::kError);  // four lines: too few to be a node's log
}

// A recorded GPU state judged on the live host: this machine's /dev/kmsg is not the recorded
// machine's log, so the unit says what it needs instead of reading it.
TEST(GpuXidTest, RecordedGpuStateWithoutItsKernelLogSkipsWithoutReadingThisMachinesLog) {
  gpu::GpuSnapshot s = testing::LoadNvmlFixture("xid");
  s.source = "recorded: /elsewhere/node7-nvidia-smi-q.txt";
  const host::Host live = host::Host::Live();
  CheckResult r = testing::RunGpuSnapshotOnHost("gpu.xid", live, s);
  EXPECT_OUTCOME(r, Outcome::kSkip);
  EXPECT_NE(r.summary.find("needs the recorded machine's kernel log"), std::string::npos)
      << r.summary;
  EXPECT_NE(r.summary.find("--kernel-log"), std::string::npos) << r.summary;
  for (const auto& [k, v] : r.evidence) EXPECT_EQ(v.find(" lines, "), std::string::npos) << v;
  // Given the recorded machine's log, it is judged.
  CheckResult judged = testing::RunGpuSnapshotOnHost("gpu.xid", live, s, WithLog("xid-kmsg.txt"));
  EXPECT_OUTCOME(judged, Outcome::kFail);
  EXPECT_TRUE(testing::HasFinding(judged, "YS-GPU-040"));
}

TEST(GpuXidTest, EmptyOrShortLogWithoutFaultIsInconclusiveWithItsLineCount) {
  std::string empty = ::testing::TempDir() + "ys-xid-empty.txt";
  std::ofstream(empty).flush();
  CheckResult e = testing::RunGpuFixture("gpu.xid", "healthy-h100x8", WithLog(empty));
  EXPECT_OUTCOME(e, Outcome::kError);
  EXPECT_NE(e.summary.find("holds 0 lines"), std::string::npos) << e.summary;

  std::string few = ::testing::TempDir() + "ys-xid-few.txt";
  std::ofstream(few) << "[    5.1] nvidia: loading out-of-tree module taints kernel.\n"
                        "[    5.2] nvidia 0000:11:00.0: enabling device (0000 -> 0002)\n"
                        "[    6.0] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.127.05\n";
  CheckResult r = testing::RunGpuFixture("gpu.xid", "healthy-h100x8", WithLog(few));
  EXPECT_OUTCOME(r, Outcome::kError);
  EXPECT_NE(r.summary.find("holds 3 lines"), std::string::npos) << r.summary;
  EXPECT_NE(r.summary.find(few), std::string::npos) << r.summary;

  // A site that accepts short logs says so; a fault in a short log is judged as ever.
  GpuRun lenient = WithLog(few);
  lenient.expect.params.Set("gpu.xid", "min_log_lines", 3);
  EXPECT_OUTCOME(testing::RunGpuFixture("gpu.xid", "healthy-h100x8", lenient), Outcome::kPass);
  std::string fault = ::testing::TempDir() + "ys-xid-short-fault.txt";
  std::ofstream(fault) << "[ 500.5] NVRM: Xid (PCI:0000:11:00): 79, pid='<unknown>', "
                          "name=<unknown>, GPU has fallen off the bus.\n";
  CheckResult f = testing::RunGpuFixture("gpu.xid", "healthy-h100x8", WithLog(fault));
  EXPECT_OUTCOME(f, Outcome::kFail);
  EXPECT_TRUE(testing::HasFinding(f, "YS-GPU-040"));
}

}  // namespace
}  // namespace ys
