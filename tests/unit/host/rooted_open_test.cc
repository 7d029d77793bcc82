#include "host/rooted_open.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <string>

#include "testing/check_test_util.h"

namespace ys::host {
namespace {

using ys::testing::TempHost;

// Both resolvers must agree: openat2 where the kernel has it, and the walk that stands in where
// it does not.
class RootedOpenTest : public ::testing::TestWithParam<RootedResolver> {
 protected:
  void SetUp() override {
    if (GetParam() == RootedResolver::kOpenat2 && !Openat2Available()) {
      GTEST_SKIP() << "this kernel has no openat2";
    }
    t_.Write("/sys/devices/pci0000:00/0000:00:01.0/vendor", "0x10de\n");
    t_.Write("/etc/os-release", "tree\n");
    t_.Symlink("/sys/bus/pci/devices/0000:00:01.0", "../../../devices/pci0000:00/0000:00:01.0");
    t_.Symlink("/sys/class/abs", "/sys/devices/pci0000:00/0000:00:01.0");
    t_.Symlink("/passwd", "/etc/passwd");
    t_.Symlink("/environ", "/proc/self/environ");
    t_.Symlink("/up", "../../../../../../../../etc/os-release");
    t_.Symlink("/loop", "/loop");
    t_.Symlink("/dotdot", "sys/../../../sys/devices");
    root_fd_ = ::open(t_.root().c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
    ASSERT_GE(root_fd_, 0);
  }
  void TearDown() override {
    if (root_fd_ >= 0) ::close(root_fd_);
  }

  // The file's content, or "errno N".
  std::string Read(const std::string& path) {
    int fd = OpenInRoot(root_fd_, path, O_RDONLY, GetParam());
    if (fd < 0) return "errno " + std::to_string(-fd);
    char buf[256];
    ssize_t n = ::read(fd, buf, sizeof buf);
    ::close(fd);
    return n < 0 ? "read error" : std::string(buf, static_cast<size_t>(n));
  }

  TempHost t_;
  int root_fd_ = -1;
};

TEST_P(RootedOpenTest, RelativeAndAbsoluteLinksResolveInsideTheTree) {
  EXPECT_EQ(Read("/sys/bus/pci/devices/0000:00:01.0/vendor"), "0x10de\n");
  EXPECT_EQ(Read("sys/class/abs/vendor"), "0x10de\n");
  EXPECT_EQ(Read("/dotdot/pci0000:00/0000:00:01.0/vendor"), "0x10de\n");
}

TEST_P(RootedOpenTest, NothingOutsideTheTreeIsOpened) {
  // /etc/passwd of this machine exists; the tree has none.
  EXPECT_EQ(Read("/passwd"), "errno " + std::to_string(ENOENT));
  EXPECT_EQ(Read("/environ"), "errno " + std::to_string(ENOENT));
  EXPECT_EQ(Read("/../../../../etc/passwd"), "errno " + std::to_string(ENOENT));
  // ".." stops at the top of the tree: this is the tree's own /etc/os-release.
  EXPECT_EQ(Read("/up"), "tree\n");
  EXPECT_EQ(Read("/../etc/os-release"), "tree\n");
}

TEST_P(RootedOpenTest, LoopsEndInEloop) {
  EXPECT_EQ(Read("/loop"), "errno " + std::to_string(ELOOP));
}

TEST_P(RootedOpenTest, NoFollowOpensTheLinkItself) {
  int fd = OpenInRoot(root_fd_, "/passwd", O_PATH | O_NOFOLLOW, GetParam());
  ASSERT_GE(fd, 0);
  struct stat st {};
  ASSERT_EQ(::fstat(fd, &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
  ::close(fd);
  EXPECT_EQ(OpenInRoot(root_fd_, "/passwd", O_RDONLY | O_NOFOLLOW, GetParam()), -ELOOP);
}

TEST_P(RootedOpenTest, TheRootItself) {
  for (const char* p : {"", "/", "..", "/sys/../.."}) {
    int fd = OpenInRoot(root_fd_, p, O_RDONLY | O_DIRECTORY, GetParam());
    ASSERT_GE(fd, 0) << p;
    struct stat a {
    }, b{};
    ASSERT_EQ(::fstat(fd, &a), 0);
    ASSERT_EQ(::fstat(root_fd_, &b), 0);
    EXPECT_EQ(a.st_ino, b.st_ino) << p;
    ::close(fd);
  }
}

INSTANTIATE_TEST_SUITE_P(Resolvers, RootedOpenTest,
                         ::testing::Values(RootedResolver::kOpenat2, RootedResolver::kWalk),
                         [](const auto& info) {
                           return info.param == RootedResolver::kWalk ? std::string("Walk")
                                                                      : std::string("Openat2");
                         });

TEST(CanonicalInRootTest, FollowsLinksInsideTheTree) {
  TempHost t;
  t.Write("/sys/devices/pci0000:00/0000:00:01.0/vendor", "0x10de\n");
  t.Symlink("/sys/bus/pci/devices/0000:00:01.0", "../../../devices/pci0000:00/0000:00:01.0");
  t.Symlink("/sys/class/abs", "/sys/devices/pci0000:00/0000:00:01.0");
  t.Symlink("/escape", "/etc");
  int root = ::open(t.root().c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  ASSERT_GE(root, 0);
  int err = 0;
  EXPECT_EQ(CanonicalInRoot(root, "/sys/bus/pci/devices/0000:00:01.0", &err),
            "/sys/devices/pci0000:00/0000:00:01.0");
  EXPECT_EQ(CanonicalInRoot(root, "/sys/class/abs/vendor", &err),
            "/sys/devices/pci0000:00/0000:00:01.0/vendor");
  EXPECT_EQ(CanonicalInRoot(root, "/sys/../..", &err), "/");
  EXPECT_EQ(err, 0);
  EXPECT_EQ(CanonicalInRoot(root, "/escape", &err), "");  // the tree has no /etc
  EXPECT_EQ(err, ENOENT);
  ::close(root);
}

}  // namespace
}  // namespace ys::host
