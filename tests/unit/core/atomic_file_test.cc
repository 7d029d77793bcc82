// WriteFileAtomic: the target is the old file or the new one, never half of one; a failure leaves
// no temporary file and names the path.
#include "core/atomic_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace ys {
namespace {

namespace fs = std::filesystem;

std::string Scratch(const std::string& name) {
  std::string dir = ::testing::TempDir() + "/ys-atomic-file-test/" + name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(AtomicFileTest, ReplacesTheFileAndLeavesNothingBeside) {
  std::string dir = Scratch("replace");
  std::string path = dir + "/run.json";
  ASSERT_TRUE(WriteFileAtomic(path, "first\n").ok());
  EXPECT_EQ(Slurp(path), "first\n");
  ASSERT_TRUE(WriteFileAtomic(path, std::string("se\0cond", 7), {.durable = true}).ok());
  EXPECT_EQ(Slurp(path), std::string("se\0cond", 7));
  int files = 0;
  for (const auto& e : fs::directory_iterator(dir)) files += e.is_regular_file() ? 1 : 0;
  EXPECT_EQ(files, 1);
  fs::remove_all(dir);
}

TEST(AtomicFileTest, ModeIsApplied) {
  std::string dir = Scratch("mode");
  std::string path = dir + "/token";
  ASSERT_TRUE(WriteFileAtomic(path, "id\n", {.durable = true, .mode = 0600}).ok());
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0077, 0u);
  fs::remove_all(dir);
}

TEST(AtomicFileTest, AFailureNamesThePathAndKeepsTheOldContent) {
  std::string dir = Scratch("fail");
  Status missing = WriteFileAtomic(dir + "/no/such/dir/x.json", "x");
  EXPECT_EQ(missing.code(), StatusCode::kIoError);
  EXPECT_EQ(missing.message().rfind(dir + "/no/such/dir/x.json: cannot write (", 0), 0u)
      << missing.message();
  // The target is a directory: the rename fails, the temporary file goes.
  fs::create_directories(dir + "/target");
  std::ofstream(dir + "/target/keep") << "kept";
  Status over_dir = WriteFileAtomic(dir + "/target", "x");
  EXPECT_FALSE(over_dir.ok());
  EXPECT_NE(over_dir.message().find("rename into place"), std::string::npos) << over_dir.message();
  EXPECT_EQ(Slurp(dir + "/target/keep"), "kept");
  int entries = 0;
  for (const auto& e : fs::directory_iterator(dir)) entries += e.exists() ? 1 : 0;
  EXPECT_EQ(entries, 1);  // only "target"
  fs::remove_all(dir);
}

}  // namespace
}  // namespace ys
