// Runs that replayed recorded state (a --root tree, --nvml-state): marked in the history, kept
// apart from the live runs' regressions, and the version-2 database migrated to carry the mark.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "history/history.h"
#include "history/regressions.h"
#include "history/run_rows.h"

namespace ys::history {
// A namespace of the file's own: its file-local names stay its own in a unity batch.
namespace history_recorded_test {
namespace {

std::string FreshPath(const std::string& name) {
  std::string dir = ::testing::TempDir() + "/ys-history-recorded-test/" + name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir + "/history.db";
}

RunRecord Replay(const std::string& recorded) {
  RunRecord r{0, "2026-12-01T10:00:00Z", "preflight", "node1", "pass", "", "{}", "node1"};
  r.recorded = recorded;
  return r;
}

MeasurementRow Row(double value) {
  return {"mem.stream.triad",           "{}",          "", value, "GB/s", Better::kHigher,
          ComputeStats({value, value}), {value, value}};
}

TEST(HistoryRecordedTest, SourceOfADocument) {
  RunDocument doc;
  doc.host.root = "/";
  EXPECT_EQ(RecordedSourceOf(doc), "");
  doc.host.gpu_source = "nvml";
  EXPECT_EQ(RecordedSourceOf(doc), "");
  doc.host.root = "/trees/h100-bad-07";
  EXPECT_EQ(RecordedSourceOf(doc), "root=/trees/h100-bad-07");
  doc.host.gpu_source = "recorded: /trees/gpus.json";
  EXPECT_EQ(RecordedSourceOf(doc), "root=/trees/h100-bad-07 nvml-state=/trees/gpus.json");
  doc.host.root = "/";
  EXPECT_EQ(RecordedSourceOf(doc), "nvml-state=/trees/gpus.json");
  EXPECT_EQ(RowsFromRunDocument(doc).run.recorded, "nvml-state=/trees/gpus.json");
}

TEST(HistoryRecordedTest, KeptAndListedWithTheMark) {
  std::string path = FreshPath("mark");
  ASSERT_TRUE(RecordAndCheck(path, {Replay("root=/trees/a"), {Row(1)}}, "").ok());
  auto db = HistoryDb::Open(path);
  ASSERT_TRUE(db.ok()) << db.status().message();
  auto run = db->GetRun(1);
  ASSERT_TRUE(run.ok());
  EXPECT_EQ(run->recorded, "root=/trees/a");
  auto listed = db->ListRuns({}, nullptr);
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ((*listed)[0].recorded, "root=/trees/a");
}

TEST(HistoryRecordedTest, ReplaysAndLiveRunsAreSeparateHistories) {
  std::string path = FreshPath("separate");
  // A fixture tree's slow figures, replayed often, do not make this machine's run a regression.
  for (int i = 0; i < 5; ++i)
    ASSERT_TRUE(RecordAndCheck(path, {Replay("root=/trees/fast"), {Row(100)}}, "").ok());
  auto live = RecordAndCheck(path, {Replay(""), {Row(50)}}, "");
  ASSERT_TRUE(live.ok()) << live.status().message();
  EXPECT_TRUE(live->regressions.empty());
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(RecordAndCheck(path, {Replay(""), {Row(50)}}, "").ok());
  // Nor does a replay get judged against the live runs; but against replays of its own state.
  auto other = RecordAndCheck(path, {Replay("root=/trees/slow"), {Row(10)}}, "");
  ASSERT_TRUE(other.ok());
  EXPECT_TRUE(other->regressions.empty());
  auto same = RecordAndCheck(path, {Replay("root=/trees/fast"), {Row(60)}}, "");
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(same->regressions.size(), 1u);
  auto slower_live = RecordAndCheck(path, {Replay(""), {Row(30)}}, "");
  ASSERT_TRUE(slower_live.ok());
  EXPECT_EQ(slower_live->regressions.size(), 1u);
}

TEST(HistoryRecordedTest, MigratesAVersion2Database) {
  std::string path = FreshPath("migrate2");
  {
    auto db = HistoryDb::Open(path);
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE(db->RecordRun(Replay(""), {Row(1)}).ok());
  }
  // Back to version 2 as the previous yardstick wrote it: no recorded column.
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &raw), SQLITE_OK);
  ASSERT_EQ(
      sqlite3_exec(raw,
                   "ALTER TABLE runs DROP COLUMN recorded; UPDATE schema_version SET version = 2;",
                   nullptr, nullptr, nullptr),
      SQLITE_OK)
      << sqlite3_errmsg(raw);
  sqlite3_close(raw);

  auto db = HistoryDb::Open(path);
  ASSERT_TRUE(db.ok()) << db.status().message();
  auto old = db->GetRun(1);
  ASSERT_TRUE(old.ok()) << old.status().message();
  EXPECT_EQ(old->recorded, "");  // a run recorded before is taken as a live run of its host
  auto rows = db->Measurements(1);
  ASSERT_TRUE(rows.ok());
  EXPECT_EQ(rows->size(), 1u);
  auto id = db->RecordRun(Replay("nvml-state=/x.json"), {Row(2)});
  ASSERT_TRUE(id.ok()) << id.status().message();
  EXPECT_EQ(db->GetRun(*id)->recorded, "nvml-state=/x.json");
}

}  // namespace
}  // namespace history_recorded_test
}  // namespace ys::history
