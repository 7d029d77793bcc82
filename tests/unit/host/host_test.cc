#include "host/host.h"

#include <gtest/gtest.h>

#include "host/kernel_log.h"
#include "testing/check_test_util.h"

namespace ys::host {
namespace {

using ys::testing::TempHost;

TEST(HostTest, ReadsUnderTheRoot) {
  TempHost t;
  t.Write("/proc/sys/kernel/hostname", "node7\n");
  t.Write("/sys/x/val", "42\n");
  Host h = t.Host();
  EXPECT_FALSE(h.live());
  EXPECT_EQ(*h.ReadLine("/proc/sys/kernel/hostname"), "node7");
  EXPECT_EQ(*h.ReadInt("/sys/x/val"), 42);
  EXPECT_EQ(h.Resolve("/sys/x/val"), t.root() + "/sys/x/val");
}

TEST(HostTest, ErrorsNameTheResolvedPath) {
  TempHost t;
  t.Write("/sys/x/val", "forty-two\n");
  Host h = t.Host();
  auto missing = h.ReadFile("/sys/none");
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find(t.root() + "/sys/none"), std::string::npos);
  auto bad = h.ReadInt("/sys/x/val");
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidInput);
  EXPECT_NE(bad.status().message().find("forty-two"), std::string::npos);
  EXPECT_EQ(h.ReadFile("/sys/x").status().code(), StatusCode::kInvalidInput);  // a directory
}

TEST(HostTest, RefusesEnormousFiles) {
  TempHost t;
  t.Write("/big", std::string(Host::kMaxFileBytes + 1, 'a'));
  auto r = t.Host().ReadFile("/big");
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidInput);
}

TEST(HostTest, ListsNaturallyAndMatchesGlobs) {
  TempHost t;
  for (const char* n : {"cpu10", "cpu2", "cpu1", "cpufreq", "cpuidle"})
    t.Write(std::string("/c/") + n + "/x", "");
  Host h = t.Host();
  EXPECT_EQ(h.ListMatching("/c", "cpu[0-9]*"), (std::vector<std::string>{"cpu1", "cpu2", "cpu10"}));
  EXPECT_TRUE(h.ListMatching("/absent", "*").empty());
}

TEST(HostTest, RealPathStaysInsideTheRoot) {
  TempHost t;
  t.Write("/sys/devices/pci0000:00/0000:00:01.0/vendor", "0x10de\n");
  t.Symlink("/sys/bus/pci/devices/0000:00:01.0", "../../../devices/pci0000:00/0000:00:01.0");
  t.Symlink("/escape", "/etc");
  Host h = t.Host();
  EXPECT_EQ(*h.RealPath("/sys/bus/pci/devices/0000:00:01.0"),
            "/sys/devices/pci0000:00/0000:00:01.0");
  EXPECT_FALSE(h.RealPath("/escape").ok());
}

TEST(HostTest, EnvironmentFromTheTree) {
  TempHost t;
  t.Write("/proc/self/environ", std::string("NCCL_DEBUG=INFO\0SLURM_JOB_ID=7\0junk\0", 36));
  Host h = t.Host();
  EXPECT_EQ(*h.env().Get("NCCL_DEBUG"), "INFO");
  EXPECT_EQ(*h.env().Get("SLURM_JOB_ID"), "7");
  EXPECT_FALSE(h.env().Has("junk"));
}

TEST(HostTest, RecorderSeesEveryPathRead) {
  TempHost t;
  t.Write("/a", "1");
  Host h = t.Host();
  auto rec = std::make_shared<PathRecorder>();
  h.set_recorder(rec);
  (void)h.ReadFile("/a");
  (void)h.Exists("/b");
  EXPECT_EQ(rec->Paths(), (std::set<std::string>{"/a", "/b"}));
}

TEST(KernelLogTest, ParsesKmsgDmesgAndPlainLines) {
  auto lines = ParseKernelLog(
      "6,339,5140900,-;arm-smmu-v3 arm-smmu-v3.0.auto: ias 48-bit\n"
      " SUBSYSTEM=platform\n"
      "[   12.500000] NVRM: Xid (PCI:0000:1b:00): 79, GPU has fallen off the bus\n"
      "plain line\n");
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0].priority, 6);
  EXPECT_DOUBLE_EQ(lines[0].seconds, 5.1409);
  EXPECT_EQ(lines[0].text, "arm-smmu-v3 arm-smmu-v3.0.auto: ias 48-bit");
  EXPECT_DOUBLE_EQ(lines[1].seconds, 12.5);
  EXPECT_EQ(lines[2].text, "plain line");
  EXPECT_TRUE(ParseKernelLog("").empty());
  EXPECT_EQ(ParseKernelLog("x,y;z\n").size(), 1u);  // not a record: kept as text, no crash
}

}  // namespace
}  // namespace ys::host
