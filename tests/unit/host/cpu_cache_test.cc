#include "host/cpu_cache.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "testing/bench_test_util.h"

namespace ys::host {
namespace {

void Write(const std::string& path, const std::string& text) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path) << text << "\n";
}

// cpu<cpu>/cache/index<index>/{level,type,size,shared_cpu_list}
void AddCache(const std::string& root, int cpu, int index, int level, const std::string& type,
              const std::string& size, const std::string& shared) {
  std::string dir = root + "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/cache/index" +
                    std::to_string(index);
  Write(dir + "/level", std::to_string(level));
  Write(dir + "/type", type);
  Write(dir + "/size", size);
  Write(dir + "/shared_cpu_list", shared);
}

TEST(CpuCacheTest, ParsesSysfsSizes) {
  EXPECT_EQ(*ParseCacheSize("32768K"), 32ULL << 20);
  EXPECT_EQ(*ParseCacheSize("1M\n"), 1ULL << 20);
  EXPECT_EQ(*ParseCacheSize("512"), 512u);
  for (const char* bad : {"", "K", "abc", "0K", "-1K", "12Q"}) {
    auto r = ParseCacheSize(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.status().message().find("expected a positive size"), std::string::npos);
  }
}

TEST(CpuCacheTest, LastLevelCacheIsSharedL3CountedOnce) {
  testing::TempDir root;
  for (int cpu : {0, 1}) {
    AddCache(root.path(), cpu, 0, 1, "Data", "48K", std::to_string(cpu));
    AddCache(root.path(), cpu, 1, 1, "Instruction", "32K", std::to_string(cpu));
    AddCache(root.path(), cpu, 2, 2, "Unified", "1024K", std::to_string(cpu));
    AddCache(root.path(), cpu, 3, 3, "Unified", "32768K", "0-1");
  }
  auto host = Host::AtRoot(root.path());
  ASSERT_TRUE(host.ok());
  auto caches = LoadCpuCaches(*host);
  ASSERT_TRUE(caches.ok()) << caches.status().message();
  EXPECT_EQ(caches->size(), 7u);  // 2 x (L1d, L1i, L2) + one shared L3
  EXPECT_EQ(LastLevelCacheBytes(*caches, *CpuSet::ParseList("0-1")), 32ULL << 20);
  EXPECT_EQ(LastLevelCacheBytes(*caches, *CpuSet::ParseList("1")), 32ULL << 20);
  EXPECT_EQ(LastLevelCacheBytes(*caches, *CpuSet::ParseList("7")), 0u);
}

TEST(CpuCacheTest, TwoSocketsSumTheirLastLevelCaches) {
  testing::TempDir root;
  AddCache(root.path(), 0, 0, 2, "Unified", "2048K", "0");
  AddCache(root.path(), 0, 1, 3, "Unified", "16M", "0");
  AddCache(root.path(), 1, 0, 2, "Unified", "2048K", "1");
  AddCache(root.path(), 1, 1, 3, "Unified", "16M", "1");
  auto host = Host::AtRoot(root.path());
  ASSERT_TRUE(host.ok());
  auto caches = LoadCpuCaches(*host);
  ASSERT_TRUE(caches.ok());
  EXPECT_EQ(LastLevelCacheBytes(*caches, *CpuSet::ParseList("0-1")), 32ULL << 20);
  EXPECT_EQ(LastLevelCacheBytes(*caches, *CpuSet::ParseList("0")), 16ULL << 20);
}

TEST(CpuCacheTest, MissingAndMalformedCacheInformation) {
  testing::TempDir root;
  std::filesystem::create_directories(root.path() + "/sys/devices/system/cpu/cpu0");
  auto host = Host::AtRoot(root.path());
  ASSERT_TRUE(host.ok());
  auto none = LoadCpuCaches(*host);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), StatusCode::kNotFound);

  AddCache(root.path(), 0, 0, 3, "Unified", "lots", "0");
  auto bad = LoadCpuCaches(*host);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("cpu0/cache/index0/size"), std::string::npos);
}

}  // namespace
}  // namespace ys::host
