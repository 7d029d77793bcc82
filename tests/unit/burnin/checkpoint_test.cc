// The burn-in checkpoint and heartbeat files, and the duration parser of --duration.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "burnin/analyser.h"
#include "burnin/resume_checkpoint.h"
#include "core/text.h"

namespace ys::burnin {
namespace {

class BurninCheckpoint : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("ys-cp-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  void Write(const std::string& text) { std::ofstream(dir_ / kCheckpointFile) << text; }
  std::string dir() const { return dir_.string(); }
  std::filesystem::path dir_;
};

TEST_F(BurninCheckpoint, SavesAndLoadsAndLeavesNoTemporaryFile) {
  Checkpoint c{.saved_at = "2026-11-30T01:02:03Z",
               .boot_id = "abc",
               .clean_stop = "signal 15",
               .finished = false,
               .settings = nlohmann::json{{"profile", "compute"}},
               .analyser = nlohmann::json{{"elapsed_s", 47.5}}};
  ASSERT_TRUE(SaveCheckpoint(dir(), c).ok());
  EXPECT_FALSE(std::filesystem::exists(dir_ / (std::string(kCheckpointFile) + ".tmp")));
  auto back = LoadCheckpoint(dir());
  ASSERT_TRUE(back.ok()) << back.status().message();
  ASSERT_TRUE(back->has_value());
  EXPECT_EQ((*back)->saved_at, c.saved_at);
  EXPECT_EQ((*back)->clean_stop, "signal 15");
  EXPECT_EQ(*(*back)->settings, *c.settings);
  EXPECT_EQ(*(*back)->analyser, *c.analyser);
}

TEST_F(BurninCheckpoint, NoFileIsNoCheckpoint) {
  auto none = LoadCheckpoint(dir());
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
}

TEST_F(BurninCheckpoint, MalformedFilesAreNamedErrors) {
  for (const char* text :
       {"", "{", "[]", R"({"kind":"other"})",
        R"({"kind":"yardstick-burnin-checkpoint","version":2})",
        R"({"kind":"yardstick-burnin-checkpoint","version":1,"saved_at":3})",
        R"({"kind":"yardstick-burnin-checkpoint","version":1,"saved_at":"x","boot_id":"",
                               "clean_stop":"","finished":"no"})"}) {
    Write(text);
    auto r = LoadCheckpoint(dir());
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_NE(r.status().message().find(kCheckpointFile), std::string::npos)
        << r.status().message();
  }
}

TEST_F(BurninCheckpoint, HeartbeatRoundTripsAndGarbageIsIgnored) {
  WriteHeartbeat(dir(), Heartbeat{61.25, "2026-11-30T01:02:03Z"});
  auto hb = ReadHeartbeat(dir());
  ASSERT_TRUE(hb);
  EXPECT_DOUBLE_EQ(hb->elapsed_s, 61.25);
  EXPECT_EQ(hb->at, "2026-11-30T01:02:03Z");
  std::ofstream(dir_ / kHeartbeatFile) << "soon yesterday\n";
  EXPECT_FALSE(ReadHeartbeat(dir()));
}

TEST(BurninTime, SecondsBetweenUtcTimes) {
  EXPECT_EQ(SecondsBetween("2026-11-30T23:59:30Z", "2026-12-01T00:00:45Z"), 75);
  EXPECT_FALSE(SecondsBetween("yesterday", "2026-12-01T00:00:45Z"));
  EXPECT_FALSE(SecondsBetween("2026-11-30T23:59:30", "2026-12-01T00:00:45Z"));
}

TEST(BurninTime, DurationsAsOperatorsWriteThem) {
  EXPECT_EQ(ParseDurationSeconds("90"), 90);
  EXPECT_EQ(ParseDurationSeconds("90s"), 90);
  EXPECT_EQ(ParseDurationSeconds("2m"), 120);
  EXPECT_EQ(ParseDurationSeconds("72h"), 72 * 3600);
  EXPECT_EQ(ParseDurationSeconds("1d"), 86400);
  EXPECT_EQ(ParseDurationSeconds("1h30m"), 5400);
  EXPECT_EQ(ParseDurationSeconds("0.5h"), 1800);
  for (const char* bad : {"", "h", "2x", "-5", "2m30", "1e999", "nan", "m2", "1..5h"}) {
    EXPECT_FALSE(ParseDurationSeconds(bad)) << bad;
  }
}

// A checkpoint an earlier version wrote (tests/fixtures/burnin/README.md) resumes, and the
// analyser's state saves again to the same bytes: the key order, the pairs as arrays, the
// notes as a sorted array and null for an unset window temperature are the file format.
TEST_F(BurninCheckpoint, AnEarlierCheckpointResumesAndSavesByteForByte) {
  const std::string fixture = std::string(YS_FIXTURES_DIR) + "/burnin";
  auto c = LoadCheckpoint(fixture);
  ASSERT_TRUE(c.ok()) << c.status().message();
  ASSERT_TRUE(c->has_value());
  const nlohmann::json& saved = *(*c)->analyser;
  auto a = Analyser::LoadState(saved, "checkpoint");
  ASSERT_TRUE(a.ok()) << a.status().message();
  std::ifstream in(fixture + "/" + kCheckpointFile);
  const std::string file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string again = a->SaveState().dump();
  EXPECT_NE(file.find("{\"analyser\":" + again + ","), std::string::npos) << again;
  // The envelope too: the checkpoint read back and saved again is the file, byte for byte.
  ASSERT_TRUE(SaveCheckpoint(dir(), **c).ok());
  std::ifstream again_in(dir_ / kCheckpointFile);
  const std::string resaved((std::istreambuf_iterator<char>(again_in)),
                            std::istreambuf_iterator<char>());
  EXPECT_EQ(resaved, file);
}

}  // namespace
}  // namespace ys::burnin
