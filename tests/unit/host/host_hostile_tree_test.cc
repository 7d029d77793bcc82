// Host on recorded trees nobody here wrote: links out of the tree, FIFOs, devices, loops.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>

#include "host/host.h"
#include "host/kernel_log.h"
#include "testing/check_test_util.h"

namespace ys::host {
namespace {

using ys::testing::TempHost;

std::string ThisMachinesPasswd() {
  std::ifstream in("/etc/passwd");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str().substr(0, ss.str().find('\n'));
}

TEST(HostHostileTreeTest, LinksOutOfTheTreeReadNothingOfThisMachine) {
  const std::string passwd_line = ThisMachinesPasswd();
  ASSERT_FALSE(passwd_line.empty());
  TempHost t;
  t.Symlink("/proc/cpuinfo", "/etc/passwd");
  t.Symlink("/proc/self/environ", "/proc/self/environ");  // a loop inside the tree
  t.Symlink("/proc/cmdline", "../../../../../../../../../../etc/passwd");
  t.Symlink("/sys/class/net", "/sys/class/net");
  t.Symlink("/sys/etc", "/etc");
  Host h = t.Host();
  for (const char* p :
       {"/proc/cpuinfo", "/proc/self/environ", "/proc/cmdline", "/sys/etc/passwd"}) {
    auto r = h.ReadFile(p);
    ASSERT_FALSE(r.ok()) << p << " read " << r->substr(0, 40);
    EXPECT_NE(r.status().message().find(t.root() + p), std::string::npos) << r.status().ToString();
    EXPECT_EQ(r.status().message().find(passwd_line), std::string::npos);
    EXPECT_FALSE(h.ReadLine(p).ok()) << p;
  }
  // The environment of the tree is empty, not this process's.
  EXPECT_FALSE(h.env().Has("PATH"));
  // Listing and following links stay in the tree.
  EXPECT_FALSE(h.ListDir("/sys/class/net").ok());
  EXPECT_FALSE(h.IsDirectory("/sys/etc"));
  EXPECT_FALSE(h.Exists("/sys/etc/passwd"));
  EXPECT_TRUE(h.ListMatching("/sys/etc", "*").empty());
  EXPECT_FALSE(h.RealPath("/sys/etc").ok());
  // The link text itself is fine to give.
  EXPECT_EQ(*h.ReadLink("/proc/cpuinfo"), "/etc/passwd");
  EXPECT_TRUE(h.Exists("/proc/cpuinfo"));  // the link exists, as lstat says
}

TEST(HostHostileTreeTest, AbsoluteLinksInsideACapturedTreeKeepResolving) {
  TempHost t;
  t.Write("/sys/devices/pci0000:00/0000:00:01.0/vendor", "0x10de\n");
  t.Symlink("/sys/bus/pci/devices/0000:00:01.0", "/sys/devices/pci0000:00/0000:00:01.0");
  t.Symlink("/sys/bus/pci/devices/0000:00:02.0", "../../../devices/pci0000:00/0000:00:01.0");
  Host h = t.Host();
  EXPECT_EQ(*h.ReadLine("/sys/bus/pci/devices/0000:00:01.0/vendor"), "0x10de");
  EXPECT_EQ(*h.ReadLine("/sys/bus/pci/devices/0000:00:02.0/vendor"), "0x10de");
  EXPECT_EQ(*h.RealPath("/sys/bus/pci/devices/0000:00:01.0"),
            "/sys/devices/pci0000:00/0000:00:01.0");
  EXPECT_TRUE(h.IsDirectory("/sys/bus/pci/devices/0000:00:01.0"));
  EXPECT_EQ(*h.ListDir("/sys/bus/pci/devices/0000:00:01.0"), (std::vector<std::string>{"vendor"}));
  EXPECT_EQ(*h.ReadLink("/sys/bus/pci/devices/0000:00:01.0"),
            "/sys/devices/pci0000:00/0000:00:01.0");
}

TEST(HostHostileTreeTest, AFifoIsRefusedByNameWithoutBlocking) {
  TempHost t;
  t.Write("/sys/devices/system/cpu/possible", "0-1\n");
  ASSERT_EQ(::mkfifo((t.root() + "/sys/devices/system/cpu/online").c_str(), 0644), 0);
  t.Symlink("/proc/cpuinfo", "/sys/devices/system/cpu/online");
  Host h = t.Host();
  auto start = std::chrono::steady_clock::now();
  for (const char* p : {"/sys/devices/system/cpu/online", "/proc/cpuinfo"}) {
    auto r = h.ReadFile(p);
    ASSERT_FALSE(r.ok()) << p;
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidInput);
    EXPECT_NE(r.status().message().find(t.root() + p + ": a FIFO, expected a regular file"),
              std::string::npos)
        << r.status().ToString();
    EXPECT_FALSE(h.ReadInt(p).ok());
    EXPECT_FALSE(h.ReadDevice(p, 1024).ok());  // a recorded tree holds no devices to read
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

TEST(HostHostileTreeTest, ADeviceNodeInATreeIsRefusedUnopened) {
  TempHost t;
  // Only where this process may make device nodes (root in a container that allows it).
  if (::mknod((t.root() + "/zero").c_str(), S_IFCHR | 0644, makedev(1, 5)) != 0) {
    GTEST_SKIP() << "cannot make a device node here";
  }
  Host h = t.Host();
  auto r = h.ReadFile("/zero");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("a character device, expected a regular file"),
            std::string::npos);
  EXPECT_FALSE(h.ReadDevice("/zero", 1024).ok());
}

TEST(HostHostileTreeTest, TheLiveHostReadsRegularFilesOnly) {
  Host live = Host::Live();
  auto zero = live.ReadFile("/dev/zero");
  ASSERT_FALSE(zero.ok());
  EXPECT_EQ(zero.status().message(), "/dev/zero: a character device, expected a regular file");
  // A device is read only on request, bounded, and never waits.
  auto bounded = live.ReadDevice("/dev/zero", 1 << 16);
  ASSERT_FALSE(bounded.ok());
  EXPECT_NE(bounded.status().message().find("larger than the 65536-byte limit"), std::string::npos);
  EXPECT_EQ(*live.ReadDevice("/dev/null", 1 << 16), "");
  EXPECT_TRUE(live.ReadLine("/proc/self/status").ok());
}

TEST(HostHostileTreeTest, LinesAreReadOnlyAsFarAsTheFirstLine) {
  TempHost t;
  t.Write("/short-first-line", "1\n" + std::string(Host::kMaxFileBytes + 10, 'x'));
  t.Write("/long-first-line", std::string(Host::kMaxLineBytes + 10, '7'));
  Host h = t.Host();
  EXPECT_EQ(*h.ReadInt("/short-first-line"), 1);
  auto long_line = h.ReadLine("/long-first-line");
  ASSERT_FALSE(long_line.ok());
  EXPECT_NE(long_line.status().message().find("first line longer than the"), std::string::npos);
}

TEST(HostHostileTreeTest, LoopsAreErrorsNotHangs) {
  TempHost t;
  t.Symlink("/a", "/b");
  t.Symlink("/b", "/a");
  Host h = t.Host();
  auto r = h.ReadFile("/a");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find(t.root() + "/a"), std::string::npos);
  EXPECT_FALSE(h.RealPath("/a").ok());
}

TEST(HostHostileTreeTest, KernelLogOfATreeIsARegularFile) {
  TempHost t;
  t.Symlink("/dev/kmsg", "/dev/zero");  // names the tree's /dev/zero, which is absent
  auto log = ReadKernelLog(t.Host());
  ASSERT_FALSE(log.ok());
  EXPECT_EQ(log.status().code(), StatusCode::kNotFound);
  t.Write("/dev/kmsg",
          "6,339,5140900,-;NVRM: Xid (PCI:0000:1b:00): 79, GPU has fallen off the bus\n");
  auto ok = ReadKernelLog(t.Host());
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(ok->size(), 1u);
}

}  // namespace
}  // namespace ys::host
