// Regressions: a run's measurements against the last N runs of the same hosts (noise.h states
// the rule), and recording a document with the check that follows it.
#ifndef YARDSTICK_HISTORY_REGRESSIONS_H_
#define YARDSTICK_HISTORY_REGRESSIONS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "history/history.h"
#include "history/noise.h"
#include "history/run_rows.h"

namespace ys::history {

struct Regression {
  MeasurementRow measurement;  // the new value
  RegressionVerdict verdict;
};

// `rows` of `run` against the last `n` runs of its hosts (run.hosts, else run.host) and its
// recorded source (a live run against live runs) with an id below `before_run_id` (pass INT64_MAX
// for a document that is not in the database) that measured the same thing.
Result<std::vector<Regression>> FindRegressions(const HistoryDb& db, const RunRecord& run,
                                                const std::vector<MeasurementRow>& rows,
                                                int64_t before_run_id, int n = kDefaultHistoryRuns);

// "regression: mem.stream.triad (kernel=triad) 41.2 GB/s, -30.0% vs median 58.9 of 5 runs
// (noise +-2.9)"
std::string RegressionLine(const Regression& r);
// "name (params) on node" as the history output shows a measurement.
std::string MeasurementLabel(const MeasurementRow& m);

struct Recorded {
  int64_t run_id = 0;
  std::vector<Regression> regressions;
};

// Opens (creating) the database at `db_path`, records the document in one transaction and
// checks it against its history.
Result<Recorded> RecordAndCheck(const std::string& db_path, DocumentRows rows,
                                const std::string& document_path, int n = kDefaultHistoryRuns);

}  // namespace ys::history

#endif  // YARDSTICK_HISTORY_REGRESSIONS_H_
