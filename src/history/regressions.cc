#include "history/regressions.h"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <tuple>

namespace ys::history {

std::string MeasurementLabel(const MeasurementRow& m) {
  std::string label = m.name;
  std::string p = DisplayParams(m.params);
  if (!p.empty()) label += " (" + p + ")";
  if (!m.node.empty()) label += " on " + m.node;
  return label;
}

Result<std::vector<Regression>> FindRegressions(const HistoryDb& db, const RunRecord& run,
                                                const std::vector<MeasurementRow>& rows,
                                                int64_t before_run_id, int n) {
  auto prior =
      db.PriorValues(run.hosts.empty() ? run.host : run.hosts, run.recorded, before_run_id, n);
  if (!prior.ok()) return prior.status();
  using Key = std::tuple<std::string, std::string, std::string>;
  std::map<Key, std::vector<double>> history;
  for (const PriorValue& p : *prior) history[{p.name, p.params, p.node}].push_back(p.value);
  std::vector<Regression> out;
  for (const MeasurementRow& m : rows) {
    auto it = history.find({m.name, m.params, m.node});
    if (it == history.end()) continue;
    RegressionVerdict v = JudgeAgainstHistory(m.value, it->second, m.better);
    if (v.regression) out.push_back({m, v});
  }
  return out;
}

std::string RegressionLine(const Regression& r) {
  const MeasurementRow& m = r.measurement;
  return fmt::format(
      "regression: {}: {:.4g} {}, {:+.1f}% vs median {:.4g} of {} runs (noise +-{:.3g})",
      MeasurementLabel(m), m.value, m.unit, r.verdict.change_pct, r.verdict.median,
      r.verdict.history, r.verdict.noise);
}

Result<Recorded> RecordAndCheck(const std::string& db_path, DocumentRows rows,
                                const std::string& document_path, int n) {
  auto db = HistoryDb::Open(db_path);
  if (!db.ok()) return db.status();
  rows.run.document_path = document_path;
  auto id = db->RecordRun(rows.run, rows.measurements);
  if (!id.ok()) return id.status();
  Recorded r{*id, {}};
  auto reg = FindRegressions(*db, rows.run, rows.measurements, *id, n);
  if (!reg.ok()) return reg.status();
  r.regressions = std::move(*reg);
  return r;
}

}  // namespace ys::history
