// One command at a time in an output directory: a second holder is refused naming the first, the
// lock goes with its holder, and a directory that cannot hold the lock file says so.
#include "core/dir_lock.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "core/scratch_dir.h"

namespace ys {
namespace {

TEST(DirLockTest, ASecondHolderIsRefusedNamingTheFirst) {
  auto dir = ScratchDir::Make("dir-lock-test");
  ASSERT_TRUE(dir.ok()) << dir.status().message();
  auto first = DirLock::Acquire(dir->path(), "run");
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_TRUE(first->held());
  // flock(2) locks belong to the open file: a second open in this process conflicts as another
  // process's would.
  auto second = DirLock::Acquire(dir->path(), "burnin");
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), StatusCode::kInvalidInput);
  const std::string& m = second.status().message();
  EXPECT_NE(m.find("--out " + dir->path() + " is in use by another yardstick (pid " +
                   std::to_string(getpid()) + ", `yardstick run`, since "),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("give another --out"), std::string::npos) << m;
}

TEST(DirLockTest, TheLockGoesWithItsHolder) {
  auto dir = ScratchDir::Make("dir-lock-test");
  ASSERT_TRUE(dir.ok()) << dir.status().message();
  {
    auto first = DirLock::Acquire(dir->path(), "run");
    ASSERT_TRUE(first.ok()) << first.status().message();
    DirLock moved = std::move(*first);
    EXPECT_TRUE(moved.held());
    EXPECT_FALSE(first->held());
    EXPECT_FALSE(DirLock::Acquire(dir->path(), "run").ok());
  }
  // Released with its holder; the file left behind does not block the next run.
  EXPECT_TRUE(std::filesystem::exists(dir->path() + "/" + kDirLockFile));
  EXPECT_TRUE(DirLock::Acquire(dir->path(), "run").ok());
}

TEST(DirLockTest, ADirectoryThatCannotHoldTheLockFileSaysSo) {
  auto r = DirLock::Acquire("/nonexistent-yardstick-dir/run", "run");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("cannot make the lock file .yardstick.lock"),
            std::string::npos)
      << r.status().message();
}

}  // namespace
}  // namespace ys
