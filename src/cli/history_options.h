// The history options of the commands that record themselves (run, bench, preflight, validate):
// --db PATH and --no-history, and the recording at the end of such a command. A failure to record
// is a warning on stderr, never a failed run.
#ifndef YARDSTICK_CLI_HISTORY_OPTIONS_H_
#define YARDSTICK_CLI_HISTORY_OPTIONS_H_

#include <CLI/CLI.hpp>
#include <functional>
#include <ostream>
#include <string>

#include "history/run_rows.h"

namespace ys::cli {

struct HistoryArgs {
  std::string db;  // "": history::DefaultHistoryPath()
  bool no_history = false;
  std::string Path() const;
};

// `record`: also --no-history (the commands that record by default).
void AddHistoryOptions(CLI::App& sub, HistoryArgs& args, bool record);

// Records the document and prints a line per regression against the last runs of its hosts to
// `out`. `rows` is only built when recording is on; its error is the warning. A replay of
// recorded state (rows' run.recorded set) is recorded only in a database given with --db.
void RecordInHistory(const HistoryArgs& args,
                     const std::function<Result<history::DocumentRows>()>& rows,
                     const std::string& document_path, std::ostream& out);

}  // namespace ys::cli

#endif  // YARDSTICK_CLI_HISTORY_OPTIONS_H_
