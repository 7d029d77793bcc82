#include "history/history.h"

#include <sqlite3.h>

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>

namespace ys::history {

namespace {

constexpr const char* kSchema = R"SQL(
CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  started_at TEXT NOT NULL,
  command TEXT NOT NULL,
  host TEXT NOT NULL,
  verdict TEXT NOT NULL DEFAULT '',
  document_path TEXT NOT NULL DEFAULT '',
  document_json TEXT NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS slurm_jobs (
  run_id INTEGER NOT NULL REFERENCES runs(id),
  job_id TEXT NOT NULL,
  workload TEXT NOT NULL,
  state TEXT NOT NULL,
  submit_time TEXT NOT NULL DEFAULT '',
  start_time TEXT NOT NULL DEFAULT '',
  end_time TEXT NOT NULL DEFAULT '',
  latency_s REAL,
  exit_code TEXT NOT NULL DEFAULT '',
  node_list TEXT NOT NULL DEFAULT '',
  script_path TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (run_id, job_id)
);
)SQL";

// Version 1 -> 2: the hosts of a run (regressions compare runs of the same hosts) and one row per
// measurement. Old runs keep their host as their hosts.
constexpr const char* kMigrateTo2 = R"SQL(
ALTER TABLE runs ADD COLUMN hosts TEXT NOT NULL DEFAULT '';
UPDATE runs SET hosts = host;
CREATE INDEX IF NOT EXISTS runs_hosts ON runs (hosts, id);
CREATE TABLE IF NOT EXISTS measurements (
  run_id INTEGER NOT NULL REFERENCES runs(id),
  name TEXT NOT NULL,
  params TEXT NOT NULL,
  node TEXT NOT NULL,
  value REAL NOT NULL,
  unit TEXT NOT NULL,
  better TEXT NOT NULL,
  n INTEGER NOT NULL,
  mean REAL NOT NULL,
  median REAL NOT NULL,
  stdev REAL NOT NULL,
  min REAL NOT NULL,
  max REAL NOT NULL,
  samples TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS measurements_run ON measurements (run_id);
CREATE INDEX IF NOT EXISTS measurements_key ON measurements (name, params, node, run_id);
UPDATE schema_version SET version = 2;
)SQL";

// Version 2 -> 3: what a replayed run read instead of this machine (RunRecord::recorded); every
// run recorded before was taken as a run of its host.
constexpr const char* kMigrateTo3 = R"SQL(
ALTER TABLE runs ADD COLUMN recorded TEXT NOT NULL DEFAULT '';
UPDATE schema_version SET version = 3;
)SQL";

// A prepared statement, finalized on every path.
class Statement {
 public:
  Statement(sqlite3* db, const char* sql) : db_(db) {
    rc_ = sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr);
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  Status status(const std::string& what) const {
    return rc_ == SQLITE_OK ? Status::Ok() : Status::Io(what + ": " + sqlite3_errmsg(db_));
  }
  void Bind(int i, const std::string& v) {
    sqlite3_bind_text(stmt_, i, v.c_str(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
  }
  void Bind(int i, int64_t v) { sqlite3_bind_int64(stmt_, i, v); }
  void Bind(int i, double v) { sqlite3_bind_double(stmt_, i, v); }
  void Bind(int i, std::optional<double> v) {
    if (v) {
      sqlite3_bind_double(stmt_, i, *v);
    } else {
      sqlite3_bind_null(stmt_, i);
    }
  }
  int Step() { return sqlite3_step(stmt_); }
  sqlite3_stmt* raw() { return stmt_; }
  std::string Text(int col) const {
    const unsigned char* t = sqlite3_column_text(stmt_, col);
    return t ? reinterpret_cast<const char*>(t) : "";
  }
  int64_t Int(int col) const { return sqlite3_column_int64(stmt_, col); }
  std::optional<double> Double(int col) const {
    if (sqlite3_column_type(stmt_, col) == SQLITE_NULL) return std::nullopt;
    return sqlite3_column_double(stmt_, col);
  }
  double Real(int col) const { return sqlite3_column_double(stmt_, col); }

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
  int rc_;
};

}  // namespace

std::string DefaultHistoryPath() {
  if (const char* x = std::getenv("XDG_DATA_HOME"); x != nullptr && *x == '/') {
    return std::string(x) + "/yardstick/history.db";
  }
  const char* home = std::getenv("HOME");
  return std::string(home != nullptr && *home != '\0' ? home : ".") +
         "/.local/share/yardstick/history.db";
}

void HistoryDb::Closer::operator()(sqlite3* db) const { sqlite3_close_v2(db); }

HistoryDb::HistoryDb(std::unique_ptr<sqlite3, Closer> db, std::string path)
    : db_(std::move(db)), path_(std::move(path)) {}
HistoryDb::HistoryDb(HistoryDb&&) noexcept = default;
HistoryDb& HistoryDb::operator=(HistoryDb&&) noexcept = default;
HistoryDb::~HistoryDb() = default;

Status HistoryDb::Exec(const char* sql) const {
  char* err = nullptr;
  if (sqlite3_exec(db_.get(), sql, nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = "history " + path_ + ": " + (err ? err : sqlite3_errmsg(db_.get()));
    sqlite3_free(err);
    return Status::Io(msg);
  }
  return Status::Ok();
}

Result<HistoryDb> HistoryDb::Open(const std::string& path) {
  std::error_code ec;
  std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  sqlite3* raw = nullptr;
  int rc =
      sqlite3_open_v2(path.c_str(), &raw,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX, nullptr);
  std::unique_ptr<sqlite3, Closer> db(raw);
  if (rc != SQLITE_OK) {
    return Status::Io("history " + path + ": " + (raw ? sqlite3_errmsg(raw) : sqlite3_errstr(rc)));
  }
  sqlite3_busy_timeout(db.get(), 5000);
  HistoryDb h(std::move(db), path);
  YS_RETURN_IF_ERROR(h.Exec("PRAGMA journal_mode=WAL; PRAGMA foreign_keys=ON;"));
  YS_RETURN_IF_ERROR(h.Exec("BEGIN IMMEDIATE;"));
  Status s = h.Exec(kSchema);
  if (s.ok()) {
    Statement q(h.db_.get(), "SELECT MAX(version), COUNT(*) FROM schema_version");
    s = q.status("history " + path);
    if (s.ok() && q.Step() == SQLITE_ROW) {
      int64_t version = q.Int(0);
      if (q.Int(1) == 0) {
        // A new file gets the version-1 tables and takes the same migrations as an old one.
        s = h.Exec("INSERT INTO schema_version (version) VALUES (1);");
        version = 1;
      }
      if (s.ok() && version > kSchemaVersion) {
        s = Status::Unsupported("history " + path + ": schema version " + std::to_string(q.Int(0)) +
                                " is newer than this yardstick's (" +
                                std::to_string(kSchemaVersion) +
                                "); use a newer yardstick or another --db");
      } else if (s.ok() && version < kSchemaVersion) {
        s = h.Migrate(version);
      }
    }
  }
  if (!s.ok()) {
    (void)h.Exec("ROLLBACK;");
    return s;
  }
  YS_RETURN_IF_ERROR(h.Exec("COMMIT;"));
  return h;
}

Status HistoryDb::Migrate(int64_t from_version) {
  if (from_version < 1) {
    return Status::Invalid("history " + path_ + ": schema version " + std::to_string(from_version) +
                           " is not one yardstick wrote (expected 1 to " +
                           std::to_string(kSchemaVersion) + ")");
  }
  if (from_version < 2) YS_RETURN_IF_ERROR(Exec(kMigrateTo2));
  if (from_version < 3) YS_RETURN_IF_ERROR(Exec(kMigrateTo3));
  return Status::Ok();
}

Result<int64_t> HistoryDb::AddRun(const RunRecord& r) {
  Statement st(db_.get(),
               "INSERT INTO runs (started_at, command, host, verdict, document_path, "
               "document_json, hosts, recorded) "
               "VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
  YS_RETURN_IF_ERROR(st.status("history " + path_));
  st.Bind(1, r.started_at);
  st.Bind(2, r.command);
  st.Bind(3, r.host);
  st.Bind(4, r.verdict);
  st.Bind(5, r.document_path);
  st.Bind(6, r.document_json);
  st.Bind(7, r.hosts.empty() ? r.host : r.hosts);
  st.Bind(8, r.recorded);
  if (st.Step() != SQLITE_DONE)
    return Status::Io("history " + path_ + ": add run: " + sqlite3_errmsg(db_.get()));
  return static_cast<int64_t>(sqlite3_last_insert_rowid(db_.get()));
}

Result<int64_t> HistoryDb::RecordRun(const RunRecord& run,
                                     const std::vector<MeasurementRow>& rows) {
  YS_RETURN_IF_ERROR(Exec("BEGIN IMMEDIATE;"));
  auto body = [&]() -> Result<int64_t> {
    auto id = AddRun(run);
    if (!id.ok()) return id.status();
    Statement st(db_.get(),
                 "INSERT INTO measurements (run_id, name, params, node, value, unit, better, n, "
                 "mean, median, "
                 "stdev, min, max, samples) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    YS_RETURN_IF_ERROR(st.status("history " + path_));
    for (const MeasurementRow& m : rows) {
      sqlite3_reset(st.raw());
      st.Bind(1, *id);
      st.Bind(2, m.name);
      st.Bind(3, m.params.empty() ? std::string("{}") : m.params);
      st.Bind(4, m.node);
      st.Bind(5, m.value);
      st.Bind(6, m.unit);
      st.Bind(7, std::string(m.better == Better::kLower ? "lower" : "higher"));
      st.Bind(8, static_cast<int64_t>(m.stats.n));
      st.Bind(9, m.stats.mean);
      st.Bind(10, m.stats.median);
      st.Bind(11, m.stats.stdev);
      st.Bind(12, m.stats.min);
      st.Bind(13, m.stats.max);
      st.Bind(14, nlohmann::json(m.samples).dump());
      if (st.Step() != SQLITE_DONE) {
        return Status::Io("history " + path_ + ": record " + m.name + ": " +
                          sqlite3_errmsg(db_.get()));
      }
    }
    return *id;
  };
  auto id = body();
  if (!id.ok()) {
    (void)Exec("ROLLBACK;");
    return id;
  }
  YS_RETURN_IF_ERROR(Exec("COMMIT;"));
  return id;
}

Status HistoryDb::SetRunVerdict(int64_t run_id, const std::string& verdict,
                                const std::string& document_path,
                                const std::string& document_json) {
  Statement st(db_.get(),
               "UPDATE runs SET verdict = ?, document_path = ?, document_json = ? WHERE id = ?");
  YS_RETURN_IF_ERROR(st.status("history " + path_));
  st.Bind(1, verdict);
  st.Bind(2, document_path);
  st.Bind(3, document_json);
  st.Bind(4, run_id);
  if (st.Step() != SQLITE_DONE)
    return Status::Io("history " + path_ + ": update run: " + sqlite3_errmsg(db_.get()));
  if (sqlite3_changes(db_.get()) != 1)
    return Status::NotFound("history " + path_ + ": no run " + std::to_string(run_id));
  return Status::Ok();
}

Status HistoryDb::UpsertSlurmJob(const SlurmJobRecord& j) {
  Statement st(db_.get(),
               "INSERT OR REPLACE INTO slurm_jobs (run_id, job_id, workload, state, submit_time, "
               "start_time, "
               "end_time, latency_s, exit_code, node_list, script_path) VALUES (?, ?, ?, ?, ?, ?, "
               "?, ?, ?, ?, ?)");
  YS_RETURN_IF_ERROR(st.status("history " + path_));
  st.Bind(1, j.run_id);
  st.Bind(2, j.job_id);
  st.Bind(3, j.workload);
  st.Bind(4, j.state);
  st.Bind(5, j.submit_time);
  st.Bind(6, j.start_time);
  st.Bind(7, j.end_time);
  st.Bind(8, j.latency_s);
  st.Bind(9, j.exit_code);
  st.Bind(10, j.node_list);
  st.Bind(11, j.script_path);
  if (st.Step() != SQLITE_DONE)
    return Status::Io("history " + path_ + ": record job " + j.job_id + ": " +
                      sqlite3_errmsg(db_.get()));
  return Status::Ok();
}

Result<std::vector<RunRecord>> HistoryDb::Runs() const {
  Statement st(db_.get(),
               "SELECT id, started_at, command, host, verdict, document_path, document_json, "
               "hosts, recorded FROM runs "
               "ORDER BY id");
  YS_RETURN_IF_ERROR(st.status("history " + path_));
  std::vector<RunRecord> out;
  int rc;
  while ((rc = st.Step()) == SQLITE_ROW) {
    out.push_back({st.Int(0), st.Text(1), st.Text(2), st.Text(3), st.Text(4), st.Text(5),
                   st.Text(6), st.Text(7), st.Text(8)});
  }
  if (rc != SQLITE_DONE) return Status::Io("history " + path_ + ": " + sqlite3_errmsg(db_.get()));
  return out;
}

Result<std::vector<SlurmJobRecord>> HistoryDb::SlurmJobs(int64_t run_id) const {
  Statement st(db_.get(),
               "SELECT run_id, job_id, workload, state, submit_time, start_time, end_time, "
               "latency_s, exit_code, "
               "node_list, script_path FROM slurm_jobs WHERE run_id = ? ORDER BY CAST(job_id AS "
               "INTEGER), job_id");
  YS_RETURN_IF_ERROR(st.status("history " + path_));
  st.Bind(1, run_id);
  std::vector<SlurmJobRecord> out;
  int rc;
  while ((rc = st.Step()) == SQLITE_ROW) {
    out.push_back({st.Int(0), st.Text(1), st.Text(2), st.Text(3), st.Text(4), st.Text(5),
                   st.Text(6), st.Double(7), st.Text(8), st.Text(9), st.Text(10)});
  }
  if (rc != SQLITE_DONE) return Status::Io("history " + path_ + ": " + sqlite3_errmsg(db_.get()));
  return out;
}

namespace {

std::vector<double> ParseSamples(const std::string& text) {
  // Written by RecordRun; a hand-edited cell that is not a number list reads as no samples.
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  std::vector<double> out;
  if (!j.is_array()) return out;
  for (const auto& v : j) {
    if (v.is_number()) out.push_back(v.get<double>());
  }
  return out;
}

}  // namespace

Result<std::vector<RunRecord>> HistoryDb::ListRuns(const RunFilter& f,
                                                   std::vector<int64_t>* counts) const {
  Statement st(
      db_.get(),
      "SELECT r.id, r.started_at, r.command, r.host, r.verdict, r.document_path, r.hosts, "
      "(SELECT COUNT(*) FROM measurements m WHERE m.run_id = r.id), r.recorded FROM runs r "
      "WHERE (?1 = '' OR r.host = ?1 OR instr(',' || r.hosts || ',', ',' || ?1 || ',') > 0) "
      "AND (?2 = '' OR r.command = ?2) ORDER BY r.id DESC LIMIT ?3");
  YS_RETURN_IF_ERROR(st.status("history " + path_));
  st.Bind(1, f.host);
  st.Bind(2, f.command);
  st.Bind(3, static_cast<int64_t>(f.limit > 0 ? f.limit : -1));
  std::vector<RunRecord> out;
  int rc;
  while ((rc = st.Step()) == SQLITE_ROW) {
    RunRecord r{st.Int(0),  st.Text(1), st.Text(2), st.Text(3), st.Text(4),
                st.Text(5), "",         st.Text(6), st.Text(8)};
    out.push_back(std::move(r));
    if (counts != nullptr) counts->push_back(st.Int(7));
  }
  if (rc != SQLITE_DONE) return Status::Io("history " + path_ + ": " + sqlite3_errmsg(db_.get()));
  return out;
}

Result<RunRecord> HistoryDb::GetRun(int64_t id) const {
  Statement st(db_.get(),
               "SELECT id, started_at, command, host, verdict, document_path, document_json, "
               "hosts, recorded "
               "FROM runs WHERE id = ?");
  YS_RETURN_IF_ERROR(st.status("history " + path_));
  st.Bind(1, id);
  int rc = st.Step();
  if (rc == SQLITE_ROW) {
    return RunRecord{st.Int(0),  st.Text(1), st.Text(2), st.Text(3), st.Text(4),
                     st.Text(5), st.Text(6), st.Text(7), st.Text(8)};
  }
  if (rc != SQLITE_DONE) return Status::Io("history " + path_ + ": " + sqlite3_errmsg(db_.get()));
  return Status::NotFound("history " + path_ + ": no run " + std::to_string(id) +
                          " (yardstick history --db " + path_ + " lists the runs)");
}

Result<std::vector<MeasurementRow>> HistoryDb::Measurements(int64_t run_id) const {
  Statement st(
      db_.get(),
      "SELECT name, params, node, value, unit, better, n, mean, median, stdev, min, max, samples "
      "FROM measurements WHERE run_id = ? ORDER BY rowid");
  YS_RETURN_IF_ERROR(st.status("history " + path_));
  st.Bind(1, run_id);
  std::vector<MeasurementRow> out;
  int rc;
  while ((rc = st.Step()) == SQLITE_ROW) {
    MeasurementRow m;
    m.name = st.Text(0);
    m.params = st.Text(1);
    m.node = st.Text(2);
    m.value = st.Real(3);
    m.unit = st.Text(4);
    m.better = st.Text(5) == "lower" ? Better::kLower : Better::kHigher;
    m.stats = {st.Int(6), st.Real(10), st.Real(8), st.Real(11), st.Real(7), st.Real(9)};
    m.samples = ParseSamples(st.Text(12));
    out.push_back(std::move(m));
  }
  if (rc != SQLITE_DONE) return Status::Io("history " + path_ + ": " + sqlite3_errmsg(db_.get()));
  return out;
}

Result<std::vector<PriorValue>> HistoryDb::PriorValues(const std::string& hosts,
                                                       const std::string& recorded,
                                                       int64_t before_run_id, int n) const {
  // One window per measurement identity, so a measurement only some runs made still gets its
  // own last n values.
  Statement st(db_.get(),
               "SELECT run_id, name, params, node, value FROM ("
               "  SELECT m.run_id, m.name, m.params, m.node, m.value, ROW_NUMBER() OVER ("
               "    PARTITION BY m.name, m.params, m.node ORDER BY m.run_id DESC) AS k"
               "  FROM measurements m JOIN runs r ON r.id = m.run_id WHERE r.hosts = ? AND "
               "r.recorded = ? AND r.id < ?)"
               " WHERE k <= ? ORDER BY name, params, node, run_id DESC");
  YS_RETURN_IF_ERROR(st.status("history " + path_));
  st.Bind(1, hosts);
  st.Bind(2, recorded);
  st.Bind(3, before_run_id);
  st.Bind(4, static_cast<int64_t>(n));
  std::vector<PriorValue> out;
  int rc;
  while ((rc = st.Step()) == SQLITE_ROW) {
    out.push_back({st.Int(0), st.Text(1), st.Text(2), st.Text(3), st.Real(4)});
  }
  if (rc != SQLITE_DONE) return Status::Io("history " + path_ + ": " + sqlite3_errmsg(db_.get()));
  return out;
}

}  // namespace ys::history
