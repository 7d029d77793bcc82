// `yardstick compare A B [--db PATH] [--json]`: A and B are recorded run ids or run.json /
// validation.json paths. Prints each measurement both made with its change from A to B and a
// noise-aware judgement (better, worse, within noise; the rule is printed), those only one made,
// and B's regressions against the last runs of its hosts in the database. Exit 0 when compared,
// 2 when an input cannot be read (an unknown id, a file that is not a run document), naming it.
#include <fmt/format.h>

#include <cstdint>
#include <filesystem>
#include <iostream>
#include <limits>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "cli/history_options.h"
#include "core/document_schemas.h"
#include "core/exit_codes.h"
#include "core/json_fields.h"
#include "core/json_schema.h"
#include "core/log.h"
#include "core/run_document_fields.h"
#include "core/run_document_json.h"
#include "core/text_table.h"
#include "history/compare.h"
#include "history/regressions.h"
#include "history/run_input.h"
#include "history/run_rows.h"

namespace ys::cli::cmd_compare {
namespace {

struct CompareArgs {
  HistoryArgs db;
  std::string a, b;
  int runs = history::kDefaultHistoryRuns;
  bool json = false;
};

struct Side {
  std::string label;
  history::DocumentRows rows;
  int64_t run_id = std::numeric_limits<int64_t>::max();  // not in the database
};

Result<Side> Resolve(const std::string& what, const std::string& db_path) {
  Side s;
  auto in = history::ReadRunInput(what, {.recorded_id = true});
  if (!in.ok()) return in.status();
  if (in->recorded_id) {
    if (!std::filesystem::exists(db_path)) {
      return Status::NotFound("run " + what + ": no run history at " + db_path +
                              " (--db names another)");
    }
    auto db = history::HistoryDb::Open(db_path);
    if (!db.ok()) return db.status();
    auto run = db->GetRun(*in->recorded_id);
    if (!run.ok()) return run.status();
    auto rows = db->Measurements(run->id);
    if (!rows.ok()) return rows.status();
    s.run_id = run->id;
    s.rows = {*run, std::move(*rows)};
    s.label =
        fmt::format("run {} ({} on {}, {})", run->id, run->command, run->hosts, run->started_at);
    return s;
  }
  auto rows = history::RowsFromInput(*in);
  if (!rows.ok()) return rows.status();
  s.rows = std::move(*rows);
  s.label = fmt::format("{} ({} on {}, {})", what, s.rows.run.command, s.rows.run.hosts,
                        s.rows.run.started_at);
  return s;
}

std::string Value(double v, const std::string& unit) { return fmt::format("{:.4g} {}", v, unit); }

// The field lists of the comparison document (core/json_fields.h); written only.
struct Row {
  const history::MeasurementRow& m;
};

// name, params and node: which measurement.
template <typename V>
void Identity(V& v, const history::MeasurementRow& m) {
  v("name", m.name);
  v.computed("params", [&] { return nlohmann::ordered_json::parse(m.params, nullptr, false); });
  v("node", m.node);
}

template <typename V>
void Fields(V& v, Row& r) {
  Identity(v, r.m);
  v("value", r.m.value);
  v("unit", r.m.unit);
  v("n", r.m.stats.n);
}

struct Change {
  const history::MeasurementChange& c;
};

template <typename V>
void Fields(V& v, Change& x) {
  const history::MeasurementChange& m = x.c;
  Identity(v, m.b);
  v("unit", m.b.unit);
  v("better", m.b.better);
  v("a", m.a.value);
  v("b", m.b.value);
  v("change_pct", m.verdict.change_pct);
  v.computed("judgement", [&] { return history::JudgementName(m.verdict.judgement); });
  v("rule", m.verdict.rule);
}

struct RegressionRow {
  const history::Regression& r;
};

template <typename V>
void Fields(V& v, RegressionRow& x) {
  Row row{x.r.measurement};
  Fields(v, row);
  v("median", x.r.verdict.median);
  v("change_pct", x.r.verdict.change_pct);
  v("noise", x.r.verdict.noise);
  v("runs", x.r.verdict.history);
}

struct ComparisonDocument {
  std::string a, b;
  std::vector<Change> measurements;
  std::vector<Row> only_in_a, only_in_b;
  bool judged_history = false;  // regressions against the history were looked for
  std::string regression_rule;
  std::vector<RegressionRow> regressions;
};

template <typename V>
void Fields(V& v, ComparisonDocument& d) {
  v("a", d.a);
  v("b", d.b);
  v.computed("rule", [] { return history::CompareRuleText(); });
  v("measurements", d.measurements);
  v("only_in_a", d.only_in_a);
  v("only_in_b", d.only_in_b);
  v.optional("regression_rule", d.regression_rule, d.judged_history);
  v.optional("regressions", d.regressions, d.judged_history);
}

YS_DOCUMENT_SCHEMA("compare", ComparisonDocument, "yardstick compare --json",
                   "Two runs' measurements side by side: each change judged against the "
                   "comparison rule, the measurements only one run has, and the regressions "
                   "against the history when it was consulted.");

void PrintText(const Side& a, const Side& b, const history::Comparison& c,
               const std::optional<std::vector<history::Regression>>& regs, int runs) {
  std::cout << "A: " << a.label << "\nB: " << b.label << "\n"
            << history::CompareRuleText() << "\n\n";
  const TextTable table({{"MEASUREMENT", Align::kLeft, 48},
                         {"A", Align::kRight, 14},
                         {"B", Align::kRight, 14},
                         {"CHANGE", Align::kRight, 8},
                         {"JUDGEMENT", Align::kLeft, 12},
                         {"RULE"}});
  std::cout << table.HeaderLine();
  for (const history::MeasurementChange& m : c.both) {
    std::string change =
        m.verdict.change_pct ? fmt::format("{:+.1f}%", *m.verdict.change_pct) : "n/a";
    std::cout << table.Line({history::MeasurementLabel(m.b), Value(m.a.value, m.a.unit),
                             Value(m.b.value, m.b.unit), change,
                             history::JudgementName(m.verdict.judgement), m.verdict.rule});
  }
  for (const auto& m : c.only_a)
    std::cout << "only in A: " << history::MeasurementLabel(m) << " " << Value(m.value, m.unit)
              << "\n";
  for (const auto& m : c.only_b)
    std::cout << "only in B: " << history::MeasurementLabel(m) << " " << Value(m.value, m.unit)
              << "\n";
  if (regs) {
    std::cout << "\n" << history::RegressionRuleText(runs) << "\n";
    for (const auto& r : *regs) std::cout << history::RegressionLine(r) << "\n";
    if (regs->empty()) std::cout << "no regression in B\n";
  }
}

void PrintJson(const Side& a, const Side& b, const history::Comparison& c,
               const std::optional<std::vector<history::Regression>>& regs, int runs) {
  ComparisonDocument d{.a = a.label, .b = b.label};
  for (const auto& m : c.both) d.measurements.push_back({m});
  for (const auto& m : c.only_a) d.only_in_a.push_back({m});
  for (const auto& m : c.only_b) d.only_in_b.push_back({m});
  if (regs) {
    d.judged_history = true;
    d.regression_rule = history::RegressionRuleText(runs);
    for (const auto& r : *regs) d.regressions.push_back({r});
  }
  std::cout << DumpJson(json_fields::Write(d)) << "\n";
}

Action Setup(CLI::App& sub) {
  auto a = std::make_shared<CompareArgs>();
  sub.add_option("A", a->a,
                 "The earlier run: a recorded run id or a run.json / validation.json path")
      ->required();
  sub.add_option("B", a->b, "The later run: a recorded run id or a run.json / validation.json path")
      ->required();
  AddHistoryOptions(sub, a->db, /*record=*/false);
  sub.add_option("--runs", a->runs, "How many earlier runs B's regression check looks at")
      ->check(CLI::PositiveNumber);
  sub.add_flag("--json", a->json, "Print the comparison as JSON");
  return [a]() -> Result<int> {
    std::string db_path = a->db.Path();
    auto sa = Resolve(a->a, db_path);
    if (!sa.ok()) return Prefixed("compare", sa.status());
    auto sb = Resolve(a->b, db_path);
    if (!sb.ok()) return Prefixed("compare", sb.status());
    history::Comparison c = history::CompareRows(sa->rows.measurements, sb->rows.measurements);
    // B against its own history, when there is one to look at.
    std::optional<std::vector<history::Regression>> regs;
    if (std::filesystem::exists(db_path)) {
      auto db = history::HistoryDb::Open(db_path);
      auto found = db.ok() ? history::FindRegressions(*db, sb->rows.run, sb->rows.measurements,
                                                      sb->run_id, a->runs)
                           : Result<std::vector<history::Regression>>(db.status());
      if (found.ok()) {
        regs = std::move(*found);
      } else {
        Log(LogLevel::kWarn, "regressions not checked: {}", found.status().message());
      }
    }
    if (a->json) {
      PrintJson(*sa, *sb, c, regs, a->runs);
    } else {
      PrintText(*sa, *sb, c, regs, a->runs);
    }
    return kExitPass;
  };
}

}  // namespace

YS_REGISTER(
    CommandOf<Setup>,
    {.id = "compare",
     .summary = "Compare two runs measurement by measurement, with a noise-aware judgement"})

}  // namespace ys::cli::cmd_compare
