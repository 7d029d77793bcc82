// Recording runs with their measurements: the version-1 migration, regressions over recorded
// runs, and a writer SIGKILLed mid-transaction (the database stays whole).
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <climits>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "history/history.h"
#include "history/regressions.h"

namespace ys::history {
namespace {

std::string FreshPath(const std::string& name) {
  std::string dir = ::testing::TempDir() + "/ys-history-record-test/" + name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir + "/history.db";
}

std::string Scalar(const std::string& path, const char* sql) {
  sqlite3* raw = nullptr;
  std::string out = "<error>";
  if (sqlite3_open(path.c_str(), &raw) == SQLITE_OK) {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(raw, sql, -1, &st, nullptr) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW) {
      const unsigned char* t = sqlite3_column_text(st, 0);
      out = t ? reinterpret_cast<const char*>(t) : "";
    }
    sqlite3_finalize(st);
  }
  sqlite3_close(raw);
  return out;
}

RunRecord RunOn(const std::string& hosts, const std::string& doc = "{}") {
  return {0, "2026-12-01T10:00:00Z", "bench", hosts, "pass", "", doc, hosts};
}

MeasurementRow Row(double value, std::string name = "mem.stream.triad",
                   Better better = Better::kHigher) {
  return {std::move(name),
          R"({"kernel":"triad"})",
          "",
          value,
          "GB/s",
          better,
          ComputeStats({value, value}),
          {value, value}};
}

TEST(HistoryRecordTest, MigratesAVersion1Database) {
  std::string path = FreshPath("migrate");
  // The version-1 schema exactly as the first history.cc wrote it, with a submitted run.
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &raw), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(raw, R"SQL(
    CREATE TABLE schema_version (version INTEGER NOT NULL);
    INSERT INTO schema_version VALUES (1);
    CREATE TABLE runs (id INTEGER PRIMARY KEY AUTOINCREMENT, started_at TEXT NOT NULL, command TEXT NOT NULL,
      host TEXT NOT NULL, verdict TEXT NOT NULL DEFAULT '', document_path TEXT NOT NULL DEFAULT '',
      document_json TEXT NOT NULL DEFAULT '');
    CREATE TABLE slurm_jobs (run_id INTEGER NOT NULL REFERENCES runs(id), job_id TEXT NOT NULL,
      workload TEXT NOT NULL, state TEXT NOT NULL, submit_time TEXT NOT NULL DEFAULT '',
      start_time TEXT NOT NULL DEFAULT '', end_time TEXT NOT NULL DEFAULT '', latency_s REAL,
      exit_code TEXT NOT NULL DEFAULT '', node_list TEXT NOT NULL DEFAULT '', script_path TEXT NOT NULL DEFAULT '',
      PRIMARY KEY (run_id, job_id));
    INSERT INTO runs (started_at, command, host, verdict, document_path) VALUES
      ('2026-11-29T19:11:04Z', 'submit --suite h100', 'login1', 'pass', '/runs/validation.json');
    INSERT INTO slurm_jobs (run_id, job_id, workload, state) VALUES (1, '42', 'llama', 'COMPLETED');
  )SQL",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(raw);

  auto db = HistoryDb::Open(path);
  ASSERT_TRUE(db.ok()) << db.status().message();
  EXPECT_EQ(Scalar(path, "SELECT version FROM schema_version"), std::to_string(kSchemaVersion));
  auto old = db->GetRun(1);
  ASSERT_TRUE(old.ok()) << old.status().message();
  EXPECT_EQ(old->command, "submit --suite h100");
  EXPECT_EQ(old->hosts, "login1");  // an old run's host becomes its hosts
  auto jobs = db->SlurmJobs(1);
  ASSERT_TRUE(jobs.ok());
  EXPECT_EQ(jobs->size(), 1u);
  auto id = db->RecordRun(RunOn("login1"), {Row(50)});
  ASSERT_TRUE(id.ok()) << id.status().message();
  EXPECT_EQ(*id, 2);
  auto rows = db->Measurements(*id);
  ASSERT_TRUE(rows.ok());
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_EQ((*rows)[0].stats.n, 2);
  EXPECT_EQ((*rows)[0].samples, (std::vector<double>{50, 50}));
  // Reopening a migrated database migrates nothing again.
  ASSERT_TRUE(HistoryDb::Open(path).ok());
  EXPECT_EQ(Scalar(path, "SELECT COUNT(*) FROM schema_version"), "1");
}

TEST(HistoryRecordTest, ListsAndFindsRuns) {
  auto db = HistoryDb::Open(FreshPath("list"));
  ASSERT_TRUE(db.ok());
  ASSERT_TRUE(db->RecordRun(RunOn("a"), {Row(1), Row(2, "x")}).ok());
  RunRecord cluster = RunOn("a,b");
  cluster.command = "run";
  ASSERT_TRUE(db->RecordRun(cluster, {}).ok());
  ASSERT_TRUE(db->RecordRun(RunOn("c"), {}).ok());
  std::vector<int64_t> counts;
  auto all = db->ListRuns({}, &counts);
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 3u);
  EXPECT_EQ((*all)[0].id, 3);  // newest first
  EXPECT_EQ(counts, (std::vector<int64_t>{0, 0, 2}));
  auto on_b = db->ListRuns({.host = "b"}, nullptr);
  ASSERT_TRUE(on_b.ok());
  ASSERT_EQ(on_b->size(), 1u);
  EXPECT_EQ((*on_b)[0].hosts, "a,b");
  EXPECT_EQ(db->ListRuns({.host = "a"}, nullptr)->size(), 2u);
  EXPECT_EQ(db->ListRuns({.command = "run"}, nullptr)->size(), 1u);
  EXPECT_EQ(db->ListRuns({.limit = 1}, nullptr)->size(), 1u);
  auto unknown = db->GetRun(99);
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().code(), StatusCode::kNotFound);
  EXPECT_NE(unknown.status().message().find("no run 99"), std::string::npos);
}

TEST(HistoryRecordTest, RegressionAgainstTheLastRunsOfTheSameHosts) {
  std::string path = FreshPath("regress");
  for (double v : {100.0, 101.0, 99.0, 100.5, 99.5, 100.0}) {
    DocumentRows rows{RunOn("node1"), {Row(v), Row(1.0, "proxy.step_time", Better::kLower)}};
    auto rec = RecordAndCheck(path, rows, "");
    ASSERT_TRUE(rec.ok()) << rec.status().message();
    EXPECT_TRUE(rec->regressions.empty());
  }
  // Another host's history is not this host's: a slow node2 is not judged against node1.
  auto other = RecordAndCheck(path, {RunOn("node2"), {Row(50)}}, "");
  ASSERT_TRUE(other.ok());
  EXPECT_TRUE(other->regressions.empty());
  // 30% worse bandwidth, 3% longer step (inside the 5% floor).
  auto rec = RecordAndCheck(
      path, {RunOn("node1"), {Row(70), Row(1.03, "proxy.step_time", Better::kLower)}},
      "/x/run.json");
  ASSERT_TRUE(rec.ok());
  ASSERT_EQ(rec->regressions.size(), 1u);
  const Regression& r = rec->regressions[0];
  EXPECT_EQ(r.verdict.history, kDefaultHistoryRuns);
  EXPECT_NEAR(r.verdict.change_pct, -30, 0.5);
  EXPECT_EQ(
      RegressionLine(r).rfind("regression: mem.stream.triad (kernel=triad): 70 GB/s, -30.", 0), 0u)
      << RegressionLine(r);
  EXPECT_NE(RegressionLine(r).find("of 5 runs"), std::string::npos);
  // The same check later, from the database (history --regressions).
  auto db = HistoryDb::Open(path);
  ASSERT_TRUE(db.ok());
  auto rows = db->Measurements(rec->run_id);
  ASSERT_TRUE(rows.ok());
  auto again = FindRegressions(*db, RunOn("node1"), *rows, rec->run_id);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->size(), 1u);
  // The first runs had too little history to judge.
  auto first = FindRegressions(*db, RunOn("node1"), {Row(10)}, 3);
  ASSERT_TRUE(first.ok());
  EXPECT_TRUE(first->empty());
}

// A child writes runs of kRows measurements in a loop until killed; each run's document is its
// row count, so a torn run would show.
constexpr int kRows = 200;

[[noreturn]] void WriteForever(const std::string& path) {
  auto db = HistoryDb::Open(path);
  if (!db.ok()) _exit(3);
  std::vector<MeasurementRow> rows;
  for (int i = 0; i < kRows; ++i) rows.push_back(Row(i, "m" + std::to_string(i)));
  for (;;) {
    if (!db->RecordRun(RunOn("writer", std::to_string(kRows)), rows).ok()) _exit(4);
  }
}

TEST(HistoryRecordTest, KilledWriterLeavesTheDatabaseWhole) {
  std::string path = FreshPath("kill");
  ASSERT_TRUE(HistoryDb::Open(path).ok());
  int64_t before = 0;
  for (int delay_ms : {15, 40, 90, 160}) {
    pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) WriteForever(path);
    timespec ts{0, delay_ms * 1000000L};
    nanosleep(&ts, nullptr);
    ASSERT_EQ(kill(child, SIGKILL), 0);
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFSIGNALED(status)) << "the writer exited on its own: " << status;

    EXPECT_EQ(Scalar(path, "PRAGMA integrity_check"), "ok") << "after " << delay_ms << " ms";
    auto db = HistoryDb::Open(path);
    ASSERT_TRUE(db.ok()) << db.status().message();
    std::vector<int64_t> counts;
    auto runs = db->ListRuns({}, &counts);
    ASSERT_TRUE(runs.ok());
    for (size_t i = 0; i < runs->size(); ++i) {
      if ((*runs)[i].hosts != "writer") continue;
      EXPECT_EQ(counts[i], kRows) << "run " << (*runs)[i].id << " is torn";
      auto whole = db->GetRun((*runs)[i].id);
      ASSERT_TRUE(whole.ok());
      EXPECT_EQ(whole->document_json, std::to_string(kRows));
    }
    // No measurement belongs to a run that is not there.
    EXPECT_EQ(
        Scalar(path, "SELECT COUNT(*) FROM measurements WHERE run_id NOT IN (SELECT id FROM runs)"),
        "0");
    // A new write succeeds after the crash.
    auto id = db->RecordRun(RunOn("after-kill"), {Row(1)});
    ASSERT_TRUE(id.ok()) << id.status().message();
    EXPECT_GT(*id, before);
    before = *id;
  }
  EXPECT_GT(before, 4) << "the writer never committed a run: the kills did not land mid-stream";
}

}  // namespace
}  // namespace ys::history
