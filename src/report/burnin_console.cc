#include "report/burnin_console.h"

#include <fmt/format.h>

#include <algorithm>

#include "burnin_report/burnin_report.h"
#include "burnin_report/burnin_section.h"
#include "report/burnin_text.h"
#include "report/console_reporter.h"
#include "report/html/html_text.h"

namespace ys::report {
namespace {

using html::FormatValue;

std::string OneLine(std::string s) {
  std::replace(s.begin(), s.end(), '\n', ' ');
  return s;
}

std::string Opt(const std::optional<double>& v, const char* suffix = "") {
  return v ? FormatValue(*v) + suffix : "-";
}

std::string Upper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), ::toupper);
  return s;
}

void WriteFaults(const BurninReport& r, std::ostream& out) {
  if (r.faults.empty()) {
    out << "faults: none\n";
    return;
  }
  out << fmt::format("faults: {}\n", r.faults.size());
  size_t where_width = 0, kind_width = 0;
  for (const BurninFault& f : r.faults) {
    where_width = std::max(where_width, f.node.size() + 1 + f.entity.size());
    kind_width = std::max(kind_width, f.kind.size());
  }
  for (const BurninFault& f : r.faults) {
    std::string cleared = f.cleared_at_s ? "cleared at " + FormatLoadTime(*f.cleared_at_s)
                                         : std::string("still present");
    out << fmt::format("  {:>9}  {:<{}}  {:<{}}  {:<4}  {} ({})\n", FormatLoadTime(f.at_s),
                       f.node + " " + f.entity, where_width, f.kind, kind_width,
                       Upper(SeverityName(f.severity)), OneLine(f.message), cleared);
  }
}

void WriteInterruptions(const BurninReport& r, std::ostream& out) {
  if (r.interruptions.empty()) return;
  out << fmt::format("interruptions: {}\n", r.interruptions.size());
  for (const BurninInterruption& i : r.interruptions) {
    out << fmt::format("  {:>9}  {}: stopped {}, resumed {}, gap {}, redone {}\n",
                       FormatLoadTime(i.at_s), OneLine(i.how), i.stopped_at, i.resumed_at,
                       FormatLoadTime(i.gap_s), FormatLoadTime(i.redone_s));
  }
}

void WriteEntities(const BurninReport& r, std::ostream& out) {
  if (r.entities.empty()) {
    out << "entities: none observed\n";
    return;
  }
  ResultTable t;
  t.title = "entities";
  t.columns = {"node",   "entity",   "metric",  "unit",  "baseline", "median",
               "lowest", "last",     "vs base", "iters", "miscmp",   "T steady",
               "T dev",  "throttle", "faults",  "avail", "stable"};
  for (const BurninEntity& e : r.entities) {
    auto last_pct = PercentOfBaseline(e, e.perf_last_window);
    t.rows.push_back(
        {e.node, e.entity, e.metric.empty() ? "watched" : e.metric, e.unit.empty() ? "-" : e.unit,
         Opt(e.perf_baseline), Opt(e.perf_median), Opt(e.perf_min_window), Opt(e.perf_last_window),
         last_pct ? fmt::format("{:.1f}%", *last_pct) : "-", std::to_string(e.iterations),
         std::to_string(e.miscompares), Opt(e.temp_steady_c), Opt(e.temp_max_dev_c),
         std::to_string(e.throttle_events), std::to_string(e.faults),
         FormatAvailability(e.availability), e.stable ? "yes" : "NO"});
  }
  for (const BurninEntity& e : r.entities) {
    std::string line = "# " + e.entity + "@" + e.node + ": " + OneLine(e.note);
    if (!e.note.empty() && std::find(t.footer.begin(), t.footer.end(), line) == t.footer.end()) {
      t.footer.push_back(line);
    }
  }
  WriteTable(t, out);
}

}  // namespace

void PrintBurnin(const RunDocument& doc, std::ostream& out) {
  const BurninReport* burnin = BurninOf(doc);
  if (!burnin) return;
  const BurninReport& r = *burnin;
  out << fmt::format("burn-in: {} profile, load time {}, {} cycles of {} s, started {}\n",
                     r.profile, LoadTimeText(r), r.cycles, FormatValue(r.cycle_s),
                     r.started_at.empty() ? "-" : r.started_at);
  out << fmt::format(
      "thresholds: temperature {} °C from steady, rate {:.1f}% below baseline; baseline {} of "
      "load after {} warm-up; windows of {}\n",
      FormatValue(r.temp_threshold_c), r.drift_threshold * 100, FormatLoadTime(r.baseline_s),
      FormatLoadTime(r.warmup_s), FormatLoadTime(r.window_s));
  out << "telemetry: " << (r.telemetry_source.empty() ? "-" : OneLine(r.telemetry_source)) << "\n";
  if (!r.planted.empty()) {
    out << "WARNING: " << kPlantedWarning << "\n";
    for (const std::string& p : r.planted) out << "  planted: " << OneLine(p) << "\n";
  }
  WriteInterruptions(r, out);
  WriteFaults(r, out);
  WriteEntities(r, out);
  for (const BurninNode& n : r.nodes) {
    out << fmt::format("node {}: {} entities, {} fault{}, availability {}\n", n.node, n.entities,
                       n.faults, n.faults == 1 ? "" : "s", FormatAvailability(n.availability));
  }
  out << fmt::format("{}; availability {}\n", MtbfText(r), FormatAvailability(r.availability));
  out << "burn-in verdict: " << VerdictOf(r).text << "\n";
}

}  // namespace ys::report
