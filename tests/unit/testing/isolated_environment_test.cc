// The unit tests run in their own HOME, XDG_DATA_HOME and working directory
// (isolated_environment.cc): the default history and the default run folder are not the user's.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <string>

#include "history/history.h"

namespace ys::testing {
namespace {

bool Inside(const std::string& path, const std::string& dir) {
  return path.size() > dir.size() && path.compare(0, dir.size(), dir) == 0 &&
         path[dir.size()] == '/';
}

TEST(IsolatedEnvironmentTest, HomeHistoryAndWorkingDirectoryAreScratch) {
  const char* home = std::getenv("HOME");
  const char* xdg = std::getenv("XDG_DATA_HOME");
  ASSERT_NE(home, nullptr);
  ASSERT_NE(xdg, nullptr);
  std::string scratch = std::filesystem::path(home).parent_path().string();
  EXPECT_NE(scratch.find("/ys-unit-"), std::string::npos) << home;
  EXPECT_TRUE(Inside(xdg, scratch)) << xdg;
  EXPECT_TRUE(Inside(history::DefaultHistoryPath(), scratch)) << history::DefaultHistoryPath();
  EXPECT_TRUE(Inside(std::filesystem::current_path().string(), scratch))
      << std::filesystem::current_path();
  EXPECT_TRUE(Inside(::testing::TempDir(), scratch)) << ::testing::TempDir();
}

}  // namespace
}  // namespace ys::testing
