// The run history: one SQLite database (default ~/.local/share/yardstick/history.db, --db PATH)
// recording each run and the Slurm jobs it submitted. WAL mode, so that readers (a report, an
// exporter) do not block a writer; a schema_version table so that later versions migrate it and
// an older yardstick refuses a newer database instead of misreading it.
//
// Thread safety: one HistoryDb per thread. Errors carry SQLite's own text.
#ifndef YARDSTICK_HISTORY_HISTORY_H_
#define YARDSTICK_HISTORY_HISTORY_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"

struct sqlite3;

namespace ys::history {

inline constexpr int kSchemaVersion = 1;

struct RunRecord {
  int64_t id = 0;           // assigned by AddRun
  std::string started_at;   // UTC, "2026-11-29T19:11:04Z"
  std::string command;      // "submit --suite h100 ..."
  std::string host;
  std::string verdict;      // "pass", "fail", "error", "submitted", "" while running
  std::string document_path;
  std::string document_json;
};

struct SlurmJobRecord {
  int64_t run_id = 0;
  std::string job_id;
  std::string workload;
  std::string state;
  std::string submit_time, start_time, end_time;  // as Slurm prints them
  std::optional<double> latency_s;                // submit-to-start
  std::string exit_code;
  std::string node_list;
  std::string script_path;
};

// ~/.local/share/yardstick/history.db ($XDG_DATA_HOME/yardstick/history.db when set).
std::string DefaultHistoryPath();

class HistoryDb {
 public:
  // Creates the file and its directory when absent; applies the schema; sets WAL mode.
  static Result<HistoryDb> Open(const std::string& path);

  HistoryDb(HistoryDb&&) noexcept;
  HistoryDb& operator=(HistoryDb&&) noexcept;
  ~HistoryDb();

  Result<int64_t> AddRun(const RunRecord& run);
  Status SetRunVerdict(int64_t run_id, const std::string& verdict, const std::string& document_path,
                       const std::string& document_json);
  // Inserts or replaces the row of (run_id, job_id).
  Status UpsertSlurmJob(const SlurmJobRecord& job);
  Result<std::vector<RunRecord>> Runs() const;
  Result<std::vector<SlurmJobRecord>> SlurmJobs(int64_t run_id) const;
  int schema_version() const { return kSchemaVersion; }
  const std::string& path() const { return path_; }

 private:
  struct Closer {
    void operator()(sqlite3* db) const;
  };
  HistoryDb(std::unique_ptr<sqlite3, Closer> db, std::string path);
  Status Exec(const char* sql) const;
  std::unique_ptr<sqlite3, Closer> db_;
  std::string path_;
};

}  // namespace ys::history

#endif  // YARDSTICK_HISTORY_HISTORY_H_
