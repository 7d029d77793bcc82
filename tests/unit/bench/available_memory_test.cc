// AvailableMemoryBytes: /proc/meminfo's MemAvailable in bytes; a meminfo without it is an error
// naming the file, never a guess.
#include "bench/available_memory.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "host/host.h"

namespace ys::bench {
namespace {

namespace fs = std::filesystem;

TEST(AvailableMemoryTest, ReadsMemAvailableInBytes) {
  auto host = host::Host::AtRoot(std::string(YS_FIXTURES_DIR) + "/hosts/this-machine");
  ASSERT_TRUE(host.ok()) << host.status().ToString();
  auto bytes = AvailableMemoryBytes(*host);
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  EXPECT_EQ(*bytes, 24238704ull * 1024);  // the fixture's "MemAvailable:   24238704 kB"
}

TEST(AvailableMemoryTest, NoMemAvailableIsAnError) {
  fs::path root = fs::path(testing::TempDir()) / "available_memory_no_field";
  fs::create_directories(root / "proc");
  std::ofstream(root / "proc/meminfo") << "MemTotal:       32000000 kB\nMemFree: 1000 kB\n";
  auto host = host::Host::AtRoot(root.string());
  ASSERT_TRUE(host.ok()) << host.status().ToString();
  auto bytes = AvailableMemoryBytes(*host);
  ASSERT_FALSE(bytes.ok());
  EXPECT_NE(bytes.status().ToString().find("MemAvailable"), std::string::npos);
  fs::remove_all(root);
}

}  // namespace
}  // namespace ys::bench
