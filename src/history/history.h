// The run history: one SQLite database (default ~/.local/share/yardstick/history.db, --db PATH)
// recording each run, one row per measurement it made (so that compare and regressions are SQL
// queries, not document re-parses) and the Slurm jobs it submitted. WAL mode, so that readers (a
// report, an exporter) do not block a writer; a schema_version table so that later versions migrate
// it and an older yardstick refuses a newer database instead of misreading it. Version 1 (runs and
// slurm_jobs only) is migrated in place to version 2 (runs.hosts, measurements), and version 2 to
// version 3 (runs.recorded), on open.
//
// Thread safety: one HistoryDb per thread. Errors carry SQLite's own text.
#ifndef YARDSTICK_HISTORY_HISTORY_H_
#define YARDSTICK_HISTORY_HISTORY_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/run_document.h"
#include "core/status.h"

struct sqlite3;

namespace ys::history {

inline constexpr int kSchemaVersion = 3;

struct RunRecord {
  int64_t id = 0;          // assigned by AddRun
  std::string started_at;  // UTC, "2026-11-29T19:11:04Z"
  std::string command;     // "submit --suite h100 ..."
  std::string host;
  std::string verdict;  // "pass", "fail", "error", "submitted", "" while running
  std::string document_path;
  std::string document_json;
  // Every node of the run, sorted and comma-separated ("node1,node2"); a single-node run's host.
  // Runs with the same hosts are one history for regressions. Empty: taken from `host`.
  std::string hosts;
  // "" for a run of this machine; for a replay of recorded state, what it read instead
  // ("root=/trees/h100-bad-07 nvml-state=/trees/gpus.json"). A replay is its own history:
  // regressions compare live runs with live runs and a replay with replays of the same state.
  std::string recorded;
};

// One measurement of a run as stored: identity (name, params, node), value and spread.
struct MeasurementRow {
  std::string name;
  std::string params;  // canonical JSON object of the identity params, keys sorted ("{}" for none)
  std::string node;    // "" for a single-node or job-wide measurement, else the node's hostname
  double value = 0;
  std::string unit;
  Better better = Better::kHigher;
  SampleStats stats;
  std::vector<double> samples;
};

// A value of one measurement in an earlier run (regressions).
struct PriorValue {
  int64_t run_id = 0;
  std::string name, params, node;
  double value = 0;
};

struct RunFilter {
  std::string host;     // runs on this host (alone or among a cluster run's hosts); "" any
  std::string command;  // "run", "bench", ...; "" any
  int limit = 0;        // newest first; <= 0: all
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
  // The run and its measurements in one transaction: after a crash either all of it is there
  // or none of it.
  Result<int64_t> RecordRun(const RunRecord& run, const std::vector<MeasurementRow>& rows);
  Status SetRunVerdict(int64_t run_id, const std::string& verdict, const std::string& document_path,
                       const std::string& document_json);
  // Inserts or replaces the row of (run_id, job_id).
  Status UpsertSlurmJob(const SlurmJobRecord& job);
  Result<std::vector<RunRecord>> Runs() const;
  Result<std::vector<SlurmJobRecord>> SlurmJobs(int64_t run_id) const;
  // Newest first, without document_json (it can be large); measurement_counts[i] is runs[i]'s.
  Result<std::vector<RunRecord>> ListRuns(const RunFilter& filter,
                                          std::vector<int64_t>* measurement_counts) const;
  // NotFound naming the id when there is no such run.
  Result<RunRecord> GetRun(int64_t id) const;
  Result<std::vector<MeasurementRow>> Measurements(int64_t run_id) const;
  // For each measurement identity, its values in the last `n` runs with these `hosts`, the same
  // `recorded` source and an id below `before_run_id` that measured it, newest first.
  Result<std::vector<PriorValue>> PriorValues(const std::string& hosts, const std::string& recorded,
                                              int64_t before_run_id, int n) const;
  int schema_version() const { return kSchemaVersion; }
  const std::string& path() const { return path_; }

 private:
  struct Closer {
    void operator()(sqlite3* db) const;
  };
  HistoryDb(std::unique_ptr<sqlite3, Closer> db, std::string path);
  Status Exec(const char* sql) const;
  Status Migrate(int64_t from_version);
  std::unique_ptr<sqlite3, Closer> db_;
  std::string path_;
};

}  // namespace ys::history

#endif  // YARDSTICK_HISTORY_HISTORY_H_
