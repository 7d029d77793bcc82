#include "history/history.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>

namespace ys::history {
// A namespace of the file's own: its file-local names stay its own in a unity batch.
namespace history_test {
namespace {

std::string FreshPath(const std::string& name) {
  std::string dir = ::testing::TempDir() + "/ys-history-test/" + name;
  std::filesystem::remove_all(dir);
  return dir + "/sub/history.db";  // the directory is created
}

TEST(HistoryTest, RecordsRunsAndJobs) {
  std::string path = FreshPath("records");
  {
    auto db = HistoryDb::Open(path);
    ASSERT_TRUE(db.ok()) << db.status().message();
    auto id = db->AddRun(
        {0, "2026-11-29T19:11:04Z", "submit --suite h100", "vm", "submitted", "/runs", ""});
    ASSERT_TRUE(id.ok()) << id.status().message();
    EXPECT_GT(*id, 0);
    SlurmJobRecord j{
        *id, "42", "llama3.1_70b_fp8", "PENDING", "2026-11-29T19:11:04", "", "", std::nullopt,
        "",  "",   "/runs/x.sbatch"};
    ASSERT_TRUE(db->UpsertSlurmJob(j).ok());
    j.state = "COMPLETED";
    j.start_time = "2026-11-29T19:11:07";
    j.latency_s = 3.0;
    j.exit_code = "0:0";
    ASSERT_TRUE(db->UpsertSlurmJob(j).ok());  // the same job again: updated, not duplicated
    ASSERT_TRUE(db->SetRunVerdict(*id, "pass", "/runs/validation.json", "{}").ok());
    EXPECT_EQ(db->SetRunVerdict(*id + 100, "pass", "", "").code(), StatusCode::kNotFound);
  }
  auto db = HistoryDb::Open(path);  // reopened: the data is on disk
  ASSERT_TRUE(db.ok());
  auto runs = db->Runs();
  ASSERT_TRUE(runs.ok());
  ASSERT_EQ(runs->size(), 1u);
  EXPECT_EQ((*runs)[0].verdict, "pass");
  EXPECT_EQ((*runs)[0].document_path, "/runs/validation.json");
  auto jobs = db->SlurmJobs((*runs)[0].id);
  ASSERT_TRUE(jobs.ok());
  ASSERT_EQ(jobs->size(), 1u);
  EXPECT_EQ((*jobs)[0].state, "COMPLETED");
  ASSERT_TRUE((*jobs)[0].latency_s.has_value());
  EXPECT_DOUBLE_EQ(*(*jobs)[0].latency_s, 3.0);
}

TEST(HistoryTest, WalModeAndSchemaVersion) {
  std::string path = FreshPath("wal");
  ASSERT_TRUE(HistoryDb::Open(path).ok());
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &raw), SQLITE_OK);
  auto scalar = [&](const char* sql) {
    sqlite3_stmt* st = nullptr;
    std::string out;
    if (sqlite3_prepare_v2(raw, sql, -1, &st, nullptr) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW) {
      out = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
    }
    sqlite3_finalize(st);
    return out;
  };
  EXPECT_EQ(scalar("PRAGMA journal_mode"), "wal");
  EXPECT_EQ(scalar("SELECT version FROM schema_version"), std::to_string(kSchemaVersion));
  // A database from a newer yardstick is refused, not misread.
  ASSERT_EQ(sqlite3_exec(raw, "UPDATE schema_version SET version = 99", nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(raw);
  auto newer = HistoryDb::Open(path);
  ASSERT_FALSE(newer.ok());
  EXPECT_NE(newer.status().message().find("schema version 99 is newer"), std::string::npos);
}

TEST(HistoryTest, ErrorsCarrySqliteText) {
  std::string path = FreshPath("garbage");
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  {
    std::FILE* f = std::fopen(path.c_str(), "w");
    std::fputs(std::string(4096, 'x').c_str(), f);
    std::fclose(f);
  }
  auto db = HistoryDb::Open(path);
  ASSERT_FALSE(db.ok());
  EXPECT_NE(db.status().message().find("file is not a database"), std::string::npos)
      << db.status().message();
  EXPECT_NE(db.status().message().find(path), std::string::npos);
  auto dir = HistoryDb::Open("/proc/ys-no-such-dir/history.db");
  EXPECT_FALSE(dir.ok());
}

TEST(HistoryTest, DefaultPath) {
  std::string p = DefaultHistoryPath();
  EXPECT_NE(p.find("yardstick/history.db"), std::string::npos);
}

}  // namespace
}  // namespace history_test
}  // namespace ys::history
