// `yardstick history`: the recorded runs (newest first), `--regressions RUN` (a recorded run
// against the last N runs of its hosts: exit 1 when it has regressions) and `--add FILE` (records
// a run.json or validation.json through the same path as `run`, then checks it). Exit 2 when the
// database or an input cannot be read, naming it.
#include <fmt/format.h>

#include <cstdint>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "cli/history_options.h"
#include "core/document_schemas.h"
#include "core/exit_codes.h"
#include "core/json_fields.h"
#include "core/json_schema.h"
#include "core/log.h"
#include "core/run_document_json.h"
#include "core/text_table.h"
#include "history/regressions.h"

namespace ys::cli::cmd_history {
namespace {

struct ListArgs {
  HistoryArgs db;
  std::string host, command, add;
  int limit = 20;
  int64_t regressions = 0;
  int runs = history::kDefaultHistoryRuns;
  bool json = false;
};

// `history --json`: one recorded run with its measurement count. Only written.
struct RunRow {
  const history::RunRecord& r;
  int64_t measurements;
};

template <typename V>
void Fields(V& v, RunRow& row) {
  const history::RunRecord& r = row.r;
  v("id", r.id);
  v("started_at", r.started_at);
  v("command", r.command);
  v("host", r.host);
  v("hosts", r.hosts);
  v("verdict", r.verdict);
  v("measurements", row.measurements);
  v("document_path", r.document_path);
  v("recorded", r.recorded);
}

YS_DOCUMENT_SCHEMA("history", std::vector<RunRow>, "yardstick history list --json",
                   "The recorded runs, newest first, each with its measurement count.");

Result<int> List(const history::HistoryDb& db, const ListArgs& a) {
  std::vector<int64_t> counts;
  auto runs = db.ListRuns({a.host, a.command, a.limit}, &counts);
  if (!runs.ok()) return runs.status();
  if (a.json) {
    std::vector<RunRow> rows;
    for (size_t i = 0; i < runs->size(); ++i) rows.push_back({(*runs)[i], counts[i]});
    std::cout << DumpJson(json_fields::Write(rows)) << "\n";
    return kExitPass;
  }
  const TextTable table({{"ID", Align::kRight, 5},
                         {"STARTED", Align::kLeft, 20},
                         {"COMMAND", Align::kLeft, 9},
                         {"HOSTS", Align::kLeft, 20},
                         {"VERDICT", Align::kLeft, 10},
                         {"MEAS", Align::kRight, 5},
                         {"DOCUMENT"}});
  std::cout << table.HeaderLine();
  for (size_t i = 0; i < runs->size(); ++i) {
    const history::RunRecord& r = (*runs)[i];
    // A replay of recorded state says so: its figures are not this machine's.
    std::cout << table.Line({std::to_string(r.id), r.started_at, r.command, r.hosts, r.verdict,
                             std::to_string(counts[i]),
                             (r.document_path.empty() ? "-" : r.document_path) +
                                 (r.recorded.empty() ? "" : "  (recorded: " + r.recorded + ")")});
  }
  if (runs->empty()) std::cout << "(no runs recorded in " << db.path() << ")\n";
  return kExitPass;
}

Result<int> Regressions(const history::HistoryDb& db, const ListArgs& a) {
  auto run = db.GetRun(a.regressions);
  if (!run.ok()) return Prefixed(fmt::format("--regressions {}", a.regressions), run.status());
  auto rows = db.Measurements(run->id);
  if (!rows.ok()) return rows.status();
  auto found = history::FindRegressions(db, *run, *rows, run->id, a.runs);
  if (!found.ok()) return found.status();
  std::cout << fmt::format("run {} ({} on {}, {}{}): {} measurements\n", run->id, run->command,
                           run->hosts, run->started_at,
                           run->recorded.empty() ? "" : ", recorded: " + run->recorded,
                           rows->size())
            << history::RegressionRuleText(a.runs) << "\n";
  for (const history::Regression& r : *found) std::cout << history::RegressionLine(r) << "\n";
  if (found->empty()) std::cout << "no regression\n";
  return found->empty() ? kExitPass : kExitFail;
}

Result<int> Add(const ListArgs& a) {
  auto rows = history::RowsFromFile(a.add);
  // The reader's message names the file: "--add PATH: ...".
  if (!rows.ok()) return Status(rows.status().code(), "--add " + rows.status().message());
  std::error_code ec;
  std::string doc_path = std::filesystem::absolute(a.add, ec).lexically_normal().string();
  auto rec = history::RecordAndCheck(a.db.Path(), std::move(*rows), ec ? a.add : doc_path, a.runs);
  if (!rec.ok()) return rec.status();
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
  return [a]() -> Result<int> {
    if (!a->add.empty()) return Add(*a);
    std::string path = a->db.Path();
    if (!std::filesystem::exists(path)) {
      return Status::NotFound(fmt::format(
          "no run history at {} (runs record themselves there; --db names another)", path));
    }
    auto db = history::HistoryDb::Open(path);
    if (!db.ok()) return db.status();
    return a->regressions != 0 ? Regressions(*db, *a) : List(*db, *a);
  };
}

}  // namespace

YS_REGISTER(CommandOf<Setup>,
            {.id = "history",
             .summary = "List recorded runs, check one for regressions, or record a run document"})

}  // namespace ys::cli::cmd_history
