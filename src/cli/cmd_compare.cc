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
#include "core/exit_codes.h"
#include "core/log.h"
#include "core/report_json.h"
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

nlohmann::ordered_json RowJson(const history::MeasurementRow& m) {
  return {{"name", m.name}, {"params", nlohmann::ordered_json::parse(m.params, nullptr, false)},
          {"node", m.node}, {"value", m.value},
          {"unit", m.unit}, {"n", m.stats.n}};
}

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
  nlohmann::ordered_json j = {{"a", a.label},
                              {"b", b.label},
                              {"rule", history::CompareRuleText()},
                              {"measurements", nlohmann::ordered_json::array()},
                              {"only_in_a", nlohmann::ordered_json::array()},
                              {"only_in_b", nlohmann::ordered_json::array()}};
  for (const history::MeasurementChange& m : c.both) {
    nlohmann::ordered_json r = RowJson(m.b);
    r.erase("value");
    r.erase("n");
    r["better"] = m.b.better == Better::kLower ? "lower" : "higher";
    r["a"] = m.a.value;
    r["b"] = m.b.value;
    r["change_pct"] =
        m.verdict.change_pct ? nlohmann::ordered_json(*m.verdict.change_pct) : nullptr;
    r["judgement"] = history::JudgementName(m.verdict.judgement);
    r["rule"] = m.verdict.rule;
    j["measurements"].push_back(std::move(r));
  }
  for (const auto& m : c.only_a) j["only_in_a"].push_back(RowJson(m));
  for (const auto& m : c.only_b) j["only_in_b"].push_back(RowJson(m));
  if (regs) {
    j["regression_rule"] = history::RegressionRuleText(runs);
    j["regressions"] = nlohmann::ordered_json::array();
    for (const auto& r : *regs) {
      nlohmann::ordered_json x = RowJson(r.measurement);
      x["median"] = r.verdict.median;
      x["change_pct"] = r.verdict.change_pct;
      x["noise"] = r.verdict.noise;
      x["runs"] = r.verdict.history;
      j["regressions"].push_back(std::move(x));
    }
  }
  std::cout << DumpJson(j) << "\n";
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
