#include "slurm/drain_token.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace ys::slurm {
namespace {

namespace fs = std::filesystem;

class DrainTokenTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string templ = (fs::temp_directory_path() / "ys-drain-XXXXXX").string();
    ASSERT_NE(::mkdtemp(templ.data()), nullptr);
    tmp_ = templ;
  }
  void TearDown() override { fs::remove_all(tmp_); }
  std::string tmp_;
};

TEST_F(DrainTokenTest, RecordsLoadsAndForgetsAnIdPerNode) {
  auto store = DrainTokenStore::Open(tmp_ + "/state/healthcheck");
  ASSERT_TRUE(store.ok()) << store.status().message();
  struct stat st {};
  ASSERT_EQ(::stat((tmp_ + "/state/healthcheck").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  EXPECT_EQ(*store->Load("node01"), "");
  auto id = store->Create("node01");
  ASSERT_TRUE(id.ok()) << id.status().message();
  EXPECT_EQ(id->size(), 16u);
  EXPECT_EQ(*store->Load("node01"), *id);
  EXPECT_EQ(*store->Load("node02"), "");
  auto again = store->Create("node01");
  EXPECT_NE(*again, *id);  // a new drain, a new id
  EXPECT_TRUE(store->Remove("node01").ok());
  EXPECT_EQ(*store->Load("node01"), "");
  EXPECT_TRUE(store->Remove("node01").ok());
}

TEST_F(DrainTokenTest, RefusesADirectoryOthersCouldWriteAndNamesThatAreNotPlain) {
  fs::create_directory(tmp_ + "/open");
  fs::permissions(tmp_ + "/open", fs::perms::all);
  auto open = DrainTokenStore::Open(tmp_ + "/open");
  ASSERT_FALSE(open.ok());
  EXPECT_NE(open.status().message().find("writable by others"), std::string::npos)
      << open.status().message();
  fs::create_directory_symlink(tmp_ + "/open", tmp_ + "/link");
  auto link = DrainTokenStore::Open(tmp_ + "/link");
  ASSERT_FALSE(link.ok());
  EXPECT_NE(link.status().message().find("symbolic link"), std::string::npos);

  auto store = DrainTokenStore::Open(tmp_ + "/ok");
  ASSERT_TRUE(store.ok());
  for (const char* bad : {"..", "../x", "a/b", ""}) {
    EXPECT_FALSE(store->Create(bad).ok()) << bad;
    EXPECT_FALSE(store->Load(bad).ok()) << bad;
  }
  EXPECT_FALSE(fs::exists(tmp_ + "/x.drain-id"));
  // A planted link or a file that is not an id is not an id.
  fs::create_symlink(tmp_ + "/elsewhere", tmp_ + "/ok/n1.drain-id");
  EXPECT_FALSE(store->Load("n1").ok());
  std::ofstream(tmp_ + "/ok/n2.drain-id") << "yardstick: anything\n";
  EXPECT_FALSE(store->Load("n2").ok());
}

}  // namespace
}  // namespace ys::slurm
