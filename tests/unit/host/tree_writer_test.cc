#include "host/tree_writer.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

namespace ys::host {
namespace {

namespace fs = std::filesystem;

class TreeWriterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string templ = (fs::temp_directory_path() / "ys-tree-XXXXXX").string();
    ASSERT_NE(::mkdtemp(templ.data()), nullptr);
    tmp_ = templ;
    fs::create_directory(tmp_ + "/outside");
  }
  void TearDown() override { fs::remove_all(tmp_); }
  bool OutsideEmpty() const { return fs::is_empty(tmp_ + "/outside"); }
  std::string tmp_;
};

TEST_F(TreeWriterTest, WritesFilesDirectoriesAndLinks) {
  auto t = TreeWriter::Create(tmp_ + "/new/tree");
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_TRUE(t->WriteFile("proc/meminfo", "MemTotal: 1 kB\n").ok());
  ASSERT_TRUE(t->MakeDirs("sys/devices/system/cpu").ok());
  ASSERT_TRUE(t->Symlink("sys/class/net/eth0", "../../devices/pci/net/eth0").ok());
  ASSERT_TRUE(
      t->Symlink("sys/class/net/eth0", "../../devices/pci/net/eth0").ok());  // already there
  EXPECT_TRUE(t->IsSymlink("sys/class/net/eth0"));
  EXPECT_FALSE(t->IsSymlink("proc/meminfo"));
  std::ifstream in(tmp_ + "/new/tree/proc/meminfo");
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "MemTotal: 1 kB");
  EXPECT_FALSE(t->WriteFile("proc/meminfo", "again").ok());  // never overwritten
  EXPECT_FALSE(t->WriteFile("../escape", "x").ok());
  EXPECT_FALSE(t->WriteFile("/etc/escape", "x").ok());
  // An existing empty directory is fine.
  fs::create_directory(tmp_ + "/empty");
  EXPECT_TRUE(TreeWriter::Create(tmp_ + "/empty").ok());
}

TEST_F(TreeWriterTest, NeverFollowsALinkFoundInTheTree) {
  // The target itself a link to an empty directory: refused.
  fs::create_directory_symlink(tmp_ + "/outside", tmp_ + "/link");
  auto linked = TreeWriter::Create(tmp_ + "/link");
  ASSERT_FALSE(linked.ok());
  EXPECT_NE(linked.status().message().find("a symbolic link"), std::string::npos);
  // Not empty: refused.
  std::ofstream(tmp_ + "/outside/keep") << "x";
  EXPECT_NE(TreeWriter::Create(tmp_ + "/outside").status().message().find("not empty"),
            std::string::npos);
  fs::remove(tmp_ + "/outside/keep");

  // Links planted in the tree after it was opened (another user writing the same directory):
  // a directory link, a file link, a link made by the writer itself.
  auto t = TreeWriter::Create(tmp_ + "/tree");
  ASSERT_TRUE(t.ok());
  fs::create_directory_symlink(tmp_ + "/outside", tmp_ + "/tree/proc");
  fs::create_directories(tmp_ + "/tree/sys");
  fs::create_symlink(tmp_ + "/outside/passwd", tmp_ + "/tree/sys/file");
  EXPECT_FALSE(t->WriteFile("proc/meminfo", "x").ok());
  EXPECT_FALSE(t->MakeDirs("proc/self").ok());
  EXPECT_FALSE(t->WriteFile("sys/file", "x").ok());
  ASSERT_TRUE(t->Symlink("sys/class", tmp_ + "/outside").ok());
  EXPECT_FALSE(t->WriteFile("sys/class/x", "x").ok());
  EXPECT_TRUE(OutsideEmpty());
  EXPECT_FALSE(fs::exists(tmp_ + "/outside/passwd"));
}

}  // namespace
}  // namespace ys::host
