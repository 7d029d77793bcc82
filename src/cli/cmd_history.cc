// `yardstick history`: the recorded runs (newest first), `--regressions RUN` (a recorded run
// against the last N runs of its hosts: exit 1 when it has regressions) and `--add FILE` (records
// a run.json or validation.json through the same path as `run`, then checks it). Exit 2 when the
// database or an input cannot be read, naming it.
#include <fmt/format.h>

#include <cstdint>
#include <filesystem>
#include <iostream>

#include "cli/command.h"
#include "cli/history_options.h"
#include "core/exit_codes.h"
#include "core/log.h"
#include "core/report_json.h"
#include "history/regressions.h"

namespace ys::cli {
namespace {

struct ListArgs {
  HistoryArgs db;
  std::string host, command, add;
  int limit = 20;
  int64_t regressions = 0;
  int runs = history::kDefaultHistoryRuns;
  bool json = false;
};

int List(const history::HistoryDb& db, const ListArgs& a) {
  std::vector<int64_t> counts;
  auto runs = db.ListRuns({a.host, a.command, a.limit}, &counts);
  if (!runs.ok()) {
    Log(LogLevel::kError, "{}", runs.status().message());
    return kExitCannotRun;
  }
  if (a.json) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (size_t i = 0; i < runs->size(); ++i) {
      const history::RunRecord& r = (*runs)[i];
      out.push_back({{"id", r.id},
                     {"started_at", r.started_at},
                     {"command", r.command},
                     {"host", r.host},
                     {"hosts", r.hosts},
                     {"verdict", r.verdict},
                     {"measurements", counts[i]},
                     {"document_path", r.document_path},
                     {"recorded", r.recorded}});
    }
    std::cout << DumpJson(out) << "\n";
    return kExitPass;
  }
  std::cout << fmt::format("{:>5}  {:<20}  {:<9}  {:<20}  {:<10}  {:>5}  {}\n", "ID", "STARTED",
                           "COMMAND", "HOSTS", "VERDICT", "MEAS", "DOCUMENT");
  for (size_t i = 0; i < runs->size(); ++i) {
    const history::RunRecord& r = (*runs)[i];
    // A replay of recorded state says so: its figures are not this machine's.
    std::cout << fmt::format("{:>5}  {:<20}  {:<9}  {:<20}  {:<10}  {:>5}  {}{}\n", r.id,
                             r.started_at, r.command, r.hosts, r.verdict, counts[i],
                             r.document_path.empty() ? "-" : r.document_path,
                             r.recorded.empty() ? "" : "  (recorded: " + r.recorded + ")");
  }
  if (runs->empty()) std::cout << "(no runs recorded in " << db.path() << ")\n";
  return kExitPass;
}

int Regressions(const history::HistoryDb& db, const ListArgs& a) {
  auto run = db.GetRun(a.regressions);
  if (!run.ok()) {
    Log(LogLevel::kError, "--regressions {}: {}", a.regressions, run.status().message());
    return kExitCannotRun;
  }
  auto rows = db.Measurements(run->id);
  if (!rows.ok()) {
    Log(LogLevel::kError, "{}", rows.status().message());
    return kExitCannotRun;
  }
  auto found = history::FindRegressions(db, *run, *rows, run->id, a.runs);
  if (!found.ok()) {
    Log(LogLevel::kError, "{}", found.status().message());
    return kExitCannotRun;
  }
  std::cout << fmt::format("run {} ({} on {}, {}{}): {} measurements\n", run->id, run->command,
                           run->hosts, run->started_at,
                           run->recorded.empty() ? "" : ", recorded: " + run->recorded,
                           rows->size())
            << history::RegressionRuleText(a.runs) << "\n";
  for (const history::Regression& r : *found) std::cout << history::RegressionLine(r) << "\n";
  if (found->empty()) std::cout << "no regression\n";
  return found->empty() ? kExitPass : kExitFail;
}

int Add(const ListArgs& a) {
  auto rows = history::RowsFromFile(a.add);
  if (!rows.ok()) {
    Log(LogLevel::kError, "--add {}", rows.status().message());
    return kExitCannotRun;
  }
  std::error_code ec;
  std::string doc_path = std::filesystem::absolute(a.add, ec).lexically_normal().string();
  auto rec = history::RecordAndCheck(a.db.Path(), std::move(*rows), ec ? a.add : doc_path, a.runs);
  if (!rec.ok()) {
    Log(LogLevel::kError, "{}", rec.status().message());
    return kExitCannotRun;
  }
  std::cout << "recorded run " << rec->run_id << " from " << a.add << "\n";
  for (const history::Regression& r : rec->regressions)
    std::cout << history::RegressionLine(r) << "\n";
  return kExitPass;
}

Action Setup(CLI::App& sub) {
  auto a = std::make_shared<ListArgs>();
  AddHistoryOptions(sub, a->db, /*record=*/false);
  sub.add_option("--host", a->host,
                 "Only runs on this host (alone or among a cluster run's hosts)");
  sub.add_option("--command", a->command,
                 "Only runs of this command (run, bench, preflight, validate)");
  sub.add_option("--limit", a->limit, "At most this many runs, newest first (0: all)")
      ->check(CLI::NonNegativeNumber);
  sub.add_flag("--json", a->json, "Print the runs as JSON");
  sub.add_option(
      "--regressions", a->regressions,
      "Check this recorded run against the last --runs runs of its hosts (exit 1 on a regression)");
  sub.add_option("--add", a->add,
                 "Record a run.json or validation.json file, then check it for regressions");
  sub.add_option("--runs", a->runs, "How many earlier runs a regression check looks at")
      ->check(CLI::PositiveNumber);
  return [a] {
    if (!a->add.empty()) return Add(*a);
    std::string path = a->db.Path();
    if (!std::filesystem::exists(path)) {
      Log(LogLevel::kError,
          "no run history at {} (runs record themselves there; --db names another)", path);
      return kExitCannotRun;
    }
    auto db = history::HistoryDb::Open(path);
    if (!db.ok()) {
      Log(LogLevel::kError, "{}", db.status().message());
      return kExitCannotRun;
    }
    return a->regressions != 0 ? Regressions(*db, *a) : List(*db, *a);
  };
}

}  // namespace

YS_REGISTER(CommandOf<Setup>,
            {.id = "history",
             .summary = "List recorded runs, check one for regressions, or record a run document"})

}  // namespace ys::cli
