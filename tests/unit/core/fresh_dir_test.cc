// MakeFreshDirectory: the default output folders of runs that start in the same second, or of
// processes racing for one name, never coincide.
#include "core/fresh_dir.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <set>

namespace ys {
// A namespace of the file's own: its file-local names stay its own in a unity batch.
namespace fresh_dir_test {
namespace {

namespace fs = std::filesystem;

std::string Scratch(const std::string& name) {
  std::string dir = ::testing::TempDir() + "/ys-fresh-dir-test/" + name;
  fs::remove_all(dir);
  return dir;
}

TEST(FreshDirTest, TakesTheNameThenNumberedSiblings) {
  std::string base = Scratch("seq") + "/yardstick-runs/20261201T101500Z-node1";
  auto first = MakeFreshDirectory(base);
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_EQ(*first, base);  // the parents are made too
  auto second = MakeFreshDirectory(base + "/");
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(*second, base + "-2");
  auto third = MakeFreshDirectory(base);
  ASSERT_TRUE(third.ok());
  EXPECT_EQ(*third, base + "-3");
  EXPECT_TRUE(fs::is_directory(base + "-3"));
}

TEST(FreshDirTest, AFileOfThatNameIsTakenToo) {
  std::string dir = Scratch("file");
  fs::create_directories(dir);
  {
    std::FILE* f = std::fopen((dir + "/run").c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fclose(f);
  }
  auto made = MakeFreshDirectory(dir + "/run");
  ASSERT_TRUE(made.ok());
  EXPECT_EQ(*made, dir + "/run-2");
}

TEST(FreshDirTest, RacingProcessesEachGetTheirOwn) {
  std::string base = Scratch("race") + "/out";
  constexpr int kProcs = 8;
  std::vector<pid_t> kids;
  for (int i = 0; i < kProcs; ++i) {
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      auto made = MakeFreshDirectory(base);
      // Each child leaves a mark in the folder it got; two in one folder would collide here.
      if (!made.ok()) _exit(3);
      std::FILE* f = std::fopen((*made + "/mine").c_str(), "wx");
      _exit(f != nullptr ? 0 : 4);
    }
    kids.push_back(pid);
  }
  for (pid_t pid : kids) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  }
  std::set<std::string> made;
  for (const auto& e : fs::directory_iterator(fs::path(base).parent_path()))
    made.insert(e.path().filename());
  EXPECT_EQ(made.size(), static_cast<size_t>(kProcs));
  EXPECT_TRUE(made.count("out") && made.count("out-8")) << made.size();
}

TEST(FreshDirTest, AParentThatCannotBeMadeIsNamed) {
  auto made = MakeFreshDirectory("/proc/ys-no-such/yardstick-runs/x");
  ASSERT_FALSE(made.ok());
  EXPECT_NE(made.status().message().find("/proc/ys-no-such"), std::string::npos)
      << made.status().message();
}

}  // namespace
}  // namespace fresh_dir_test
}  // namespace ys
