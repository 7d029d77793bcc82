#include "cli/history_options.h"

#include <filesystem>

#include "core/log.h"
#include "history/regressions.h"

namespace ys::cli {

std::string HistoryArgs::Path() const { return db.empty() ? history::DefaultHistoryPath() : db; }

void AddHistoryOptions(CLI::App& sub, HistoryArgs& args, bool record) {
  sub.add_option(
      "--db", args.db,
      "Run history database (default $XDG_DATA_HOME/yardstick/history.db, else "
      "~/.local/share/yardstick/history.db). A run over a recorded tree (--root) or GPU "
      "state (--nvml-state) is recorded only here, marked as recorded, never by default");
  if (record)
    sub.add_flag("--no-history", args.no_history, "Do not record this run in the history database");
}

void RecordInHistory(const HistoryArgs& args,
                     const std::function<Result<history::DocumentRows>()>& rows,
                     const std::string& document_path, std::ostream& out) {
  if (args.no_history) return;
  std::string path = document_path;
  if (!path.empty()) {
    std::error_code ec;
    auto abs = std::filesystem::absolute(path, ec);
    if (!ec) path = abs.lexically_normal().string();
  }
  auto doc = rows();
  if (!doc.ok()) {
    Log(LogLevel::kWarn, "not recorded in the run history: {}", doc.status().message());
    return;
  }
  // A replay of a recorded tree or GPU state is not a run of this machine: in the default history
  // it would stand beside this machine's runs and judge them. Only a database asked for by name
  // gets it, marked as recorded (its regressions compare it with replays of the same state).
  if (!doc->run.recorded.empty() && args.db.empty()) {
    Log(LogLevel::kInfo,
        "not recorded in the run history: a replay of recorded state ({}); give --db to record it",
        doc->run.recorded);
    return;
  }
  auto rec = history::RecordAndCheck(args.Path(), std::move(*doc), path);
  if (!rec.ok()) {
    Log(LogLevel::kWarn, "not recorded in the run history: {}", rec.status().message());
    return;
  }
  for (const history::Regression& r : rec->regressions) out << history::RegressionLine(r) << "\n";
}

}  // namespace ys::cli
