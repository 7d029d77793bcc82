#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>

#include "testing/bench_test_util.h"

namespace ys::bench {
namespace {

BenchmarkResult RunCheckpoint(const std::string& path, const std::string& size = "64K",
                              bool direct = false) {
  BenchOptions o;
  o.storage_path = path;
  o.direct_io = direct;
  o.sizes = *SizeSweep::Parse(size);
  o.iters = 2;
  return testing::RunLiveBenchmark("storage.checkpoint", o);
}

bool Contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

TEST(StorageCheckpointTest, SkipsWithoutPath) {
  BenchmarkResult r = testing::RunLiveBenchmark("storage.checkpoint", BenchOptions{});
  EXPECT_EQ(r.outcome, Outcome::kSkip);
  EXPECT_TRUE(Contains(r.summary, "no --path")) << r.summary;
}

TEST(StorageCheckpointTest, NotADirectoryIsAnErrorNamingThePath) {
  testing::TempDir dir;
  std::string file = dir.path() + "/plain-file";
  std::ofstream(file) << "x";
  BenchmarkResult r = RunCheckpoint(file);
  EXPECT_EQ(r.outcome, Outcome::kError);
  EXPECT_TRUE(Contains(r.summary, file + ": not a directory")) << r.summary;

  BenchmarkResult missing = RunCheckpoint(dir.path() + "/absent");
  EXPECT_EQ(missing.outcome, Outcome::kError);
  EXPECT_TRUE(Contains(missing.summary, dir.path() + "/absent")) << missing.summary;
  EXPECT_TRUE(Contains(missing.summary, "expected a writable directory")) << missing.summary;
}

TEST(StorageCheckpointTest, NotWritableIsAnErrorNamingThePath) {
  // /proc takes no new files, even from root.
  BenchmarkResult r = RunCheckpoint("/proc");
  EXPECT_EQ(r.outcome, Outcome::kError);
  EXPECT_TRUE(Contains(r.summary, "--path /proc: not writable")) << r.summary;
  if (::geteuid() == 0) GTEST_SKIP() << "root writes into a 0555 directory";
  testing::TempDir dir;
  ASSERT_EQ(::chmod(dir.path().c_str(), 0555), 0);
  BenchmarkResult ro = RunCheckpoint(dir.path());
  ::chmod(dir.path().c_str(), 0755);
  EXPECT_EQ(ro.outcome, Outcome::kError);
  EXPECT_TRUE(Contains(ro.summary, "not writable")) << ro.summary;
}

TEST(StorageCheckpointTest, NotEnoughSpaceIsCheckedBeforeWriting) {
  testing::TempDir dir;
  // 1T is the largest size a sweep takes; a file system with that much free is not this test's.
  struct statvfs fs {};
  ASSERT_EQ(::statvfs(dir.path().c_str(), &fs), 0);
  if (static_cast<double>(fs.f_bavail) * fs.f_frsize >= 1e12) GTEST_SKIP() << "1T free here";
  BenchmarkResult r = RunCheckpoint(dir.path(), "1T");
  EXPECT_EQ(r.outcome, Outcome::kError);
  EXPECT_TRUE(Contains(r.summary, "--path " + dir.path() + ": needs ")) << r.summary;
  EXPECT_TRUE(Contains(r.summary, "available")) << r.summary;
  EXPECT_TRUE(dir.List().empty());
}

TEST(StorageCheckpointTest, LiveRunMeasuresWriteAndReadAndRemovesItsFiles) {
  testing::TempDir dir;
  BenchmarkResult r = RunCheckpoint(dir.path(), "256K");
  ASSERT_EQ(r.outcome, Outcome::kPass) << r.summary;
  for (const char* name : {"storage.checkpoint.write", "storage.checkpoint.read"}) {
    const Measurement* m = testing::FindMeasurement(r, name);
    ASSERT_NE(m, nullptr) << name;
    EXPECT_EQ(m->unit, "GB/s");
    EXPECT_EQ(m->samples.size(), 2u);
    EXPECT_EQ(m->params.at("file_bytes"), "262144");
    EXPECT_EQ(m->params.at("block_bytes"), "262144");
    EXPECT_EQ(m->params.at("files"), "2");
    EXPECT_EQ(m->params.at("direct"), "false");
    EXPECT_TRUE(Contains(m->params.at("cache"), "posix_fadvise"));
  }
  EXPECT_TRUE(r.findings.empty());
  EXPECT_TRUE(dir.List().empty()) << "checkpoint files left behind";
}

// A shared --path (a parallel file system) written by the ranks of many nodes at once: another
// node's process with the same process id (as in containers) keeps its files, and this one runs.
TEST(StorageCheckpointTest, AnotherNodesProcessWithTheSameIdDoesNotCollide) {
  testing::TempDir dir;
  const std::string pid = std::to_string(::getpid());
  std::vector<std::string> theirs = {
      "yardstick-checkpoint-" + pid + "-0-0.bin", "yardstick-checkpoint-" + pid + "-0-1.bin",
      "yardstick-checkpoint-other-node-" + pid + "-0-0.bin", ".yardstick-probe-" + pid};
  for (const auto& name : theirs) std::ofstream(dir.path() + "/" + name) << "theirs";
  BenchmarkResult r = RunCheckpoint(dir.path());
  EXPECT_EQ(r.outcome, Outcome::kPass) << r.summary;
  std::vector<std::string> sorted = theirs;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(dir.List(), sorted);
}

TEST(StorageCheckpointTest, DirectIoRunsOrSaysTheFileSystemRefusesIt) {
  testing::TempDir dir;
  BenchmarkResult r = RunCheckpoint(dir.path(), "100K", /*direct=*/true);
  if (r.outcome == Outcome::kError) {
    EXPECT_TRUE(Contains(r.summary, "refuses O_DIRECT")) << r.summary;
  } else {
    ASSERT_EQ(r.outcome, Outcome::kPass) << r.summary;
    const Measurement* m = testing::FindMeasurement(r, "storage.checkpoint.read");
    ASSERT_NE(m, nullptr);
    EXPECT_EQ(m->params.at("direct"), "true");
    EXPECT_EQ(m->params.at("file_bytes"), "102400");  // 100K is a multiple of 4 KiB
  }
  EXPECT_TRUE(dir.List().empty());
}

}  // namespace
}  // namespace ys::bench
