// The burn-in (`yardstick burnin`, RunDocument::burnin): the headline (verdict, profile, load time
// done and asked, cycles, MTBF, availability, telemetry source), a warning box when faults were
// planted by a recorded timeline, the interruptions, the faults with their times, the nodes and
// each entity's stability; then two charts over the windows: each entity's rate as % of its own
// baseline, with the drift limit, and each entity's window maximum temperature, with its limit
// (steady + threshold). Left off the page when the document is not a burn-in.
#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

#include "burnin_report/burnin_report.h"
#include "burnin_report/burnin_section.h"
#include "report/burnin_text.h"
#include "report/html/html_section.h"
#include "report/html/html_text.h"

namespace ys::report::html {
namespace {

using oj = nlohmann::ordered_json;

std::string Td(std::string_view text) { return "<td>" + EscapeHtml(text) + "</td>"; }
std::string Num(std::string_view text) { return "<td class=\"num\">" + EscapeHtml(text) + "</td>"; }
std::string Opt(const std::optional<double>& v, std::string_view suffix = "") {
  return v ? FormatValue(*v) + std::string(suffix) : "-";
}
std::string Header(std::initializer_list<const char*> names) {
  std::string h = "<tr>";
  for (const char* n : names) h += "<th>" + EscapeHtml(n) + "</th>";
  return h + "</tr>\n";
}

std::string Headline(const BurninReport& r) {
  BurninVerdict v = VerdictOf(r);
  std::string b;
  if (!r.planted.empty()) {
    b += "<div class=\"alert\" id=\"burnin-planted\">" + EscapeHtml(kPlantedWarning) + "<ul>";
    for (const std::string& p : r.planted) b += "<li>" + EscapeHtml(p) + "</li>";
    b += "</ul></div>\n";
  }
  const char* cls = VerdictStateName(v.state);
  b += "<table class=\"burnin-headline\">\n";
  auto row = [&](std::string_view k, std::string_view val, const char* tr_class = nullptr) {
    b += std::string("<tr") + (tr_class ? std::string(" class=\"") + tr_class + "\"" : "") +
         "><th>" + EscapeHtml(k) + "</th>" + Td(val) + "</tr>\n";
  };
  row("verdict", v.text, cls);
  row("profile", r.profile);
  row("load time (h:mm:ss)", LoadTimeText(r));
  row("cycles", fmt::format("{} cycles of {} s; windows of {}; checkpoint every {}", r.cycles,
                            FormatValue(r.cycle_s), FormatLoadTime(r.window_s),
                            FormatLoadTime(r.checkpoint_interval_s)));
  row("steady state", fmt::format("after {} of warm-up; rate baseline over {}",
                                  FormatLoadTime(r.warmup_s), FormatLoadTime(r.baseline_s)));
  row("fault thresholds",
      fmt::format("temperature more than {} °C from steady; a window's rate more than {:.1f}% "
                  "below its baseline",
                  FormatValue(r.temp_threshold_c), r.drift_threshold * 100));
  row("reliability", MtbfText(r));
  row("availability", FormatAvailability(r.availability) + " (load-time weighted, all entities)");
  row("nodes, entities", fmt::format("{}, {}", r.nodes.size(), r.entities.size()));
  row("telemetry", r.telemetry_source.empty() ? "-" : r.telemetry_source);
  row("started", r.started_at.empty() ? "-" : r.started_at);
  b += "</table>\n";
  return b;
}

std::string Interruptions(const BurninReport& r) {
  std::string b = "<h3>Interruptions</h3>\n";
  if (r.interruptions.empty()) return b + EmptyNote("No interruption: the burn-in ran in one go.");
  b += "<table>\n" +
       Header({"load time", "stopped (UTC)", "resumed (UTC)", "gap", "how", "load redone"});
  for (const BurninInterruption& i : r.interruptions) {
    b += "<tr>" + Num(FormatLoadTime(i.at_s)) + Td(i.stopped_at) + Td(i.resumed_at) +
         Num(FormatLoadTime(i.gap_s)) + Td(i.how) + Num(FormatLoadTime(i.redone_s)) + "</tr>\n";
  }
  return b + "</table>\n";
}

std::string Faults(const BurninReport& r) {
  std::string b = "<h3>Faults</h3>\n";
  if (r.faults.empty()) {
    return b + EmptyNote(fmt::format("No fault in {} of load.", FormatLoadTime(r.elapsed_s)));
  }
  b += "<div class=\"scroll\"><table id=\"burnin-faults\">\n" +
       Header({"load time", "UTC", "node", "entity", "kind", "severity", "message", "evidence",
               "cleared"});
  for (const BurninFault& f : r.faults) {
    std::string evidence;
    for (const auto& [k, v] : f.evidence)
      evidence += (evidence.empty() ? "" : "; ") + k + " = " + v;
    b += std::string(f.severity == Severity::kFail ? "<tr class=\"fail\">" : "<tr>") +
         Num(FormatLoadTime(f.at_s)) + Td(f.at) + Td(f.node) + Td(f.entity) + Td(f.kind) +
         Td(SeverityName(f.severity)) + Td(f.message) + Td(evidence) +
         Td(f.cleared_at_s ? "at " + FormatLoadTime(*f.cleared_at_s) : "still present") + "</tr>\n";
  }
  return b + "</table></div>\n";
}

std::string Nodes(const BurninReport& r) {
  std::string b = "<h3>Nodes</h3>\n";
  if (r.nodes.empty()) return b + EmptyNote("No node recorded.");
  b += "<table>\n" + Header({"node", "entities", "faults", "availability"});
  for (const BurninNode& n : r.nodes) {
    b += "<tr>" + Td(n.node) + Num(std::to_string(n.entities)) + Num(std::to_string(n.faults)) +
         Num(FormatAvailability(n.availability)) + "</tr>\n";
  }
  return b + "</table>\n";
}

std::string Entities(const BurninReport& r) {
  std::string b = "<h3>Stability per entity</h3>\n";
  if (r.entities.empty()) return b + EmptyNote("No entity was loaded or watched.");
  // Sixteen columns: laid out to the page's width (class fit: fixed layout, cells wrap), never
  // wider than the page.
  b += "<div class=\"scroll\"><table id=\"burnin-entities\" class=\"fit\">\n" +
       Header({"node", "entity", "metric", "baseline", "median", "lowest window", "last window",
               "iterations", "miscompares", "steady temp", "max deviation", "throttle events",
               "faults", "availability", "stable", "note"});
  for (const BurninEntity& e : r.entities) {
    std::string unit = e.unit.empty() ? "" : " " + e.unit;
    std::string last = Opt(e.perf_last_window, unit);
    if (auto pct = PercentOfBaseline(e, e.perf_last_window)) {
      last += fmt::format(" ({:.1f}% of baseline)", *pct);
    }
    b += std::string(e.stable ? "<tr>" : "<tr class=\"unstable\">") + Td(e.node) + Td(e.entity) +
         Td(e.metric.empty() ? "watched, no load" : e.metric + unit) +
         Num(Opt(e.perf_baseline, unit)) + Num(Opt(e.perf_median, unit)) +
         Num(Opt(e.perf_min_window, unit)) + Num(last) +
         Num(e.metric.empty() ? "-" : std::to_string(e.iterations)) +
         Num(e.metric.empty() ? "-" : std::to_string(e.miscompares)) +
         Num(Opt(e.temp_steady_c, " °C")) + Num(Opt(e.temp_max_dev_c, " °C")) +
         Num(std::to_string(e.throttle_events)) + Num(std::to_string(e.faults)) +
         Num(FormatAvailability(e.availability)) + Td(e.stable ? "yes" : "no") + Td(e.note) +
         "</tr>\n";
  }
  return b + "</table></div>\n";
}

// A series' legend entry: "cpu0@node", with the metric when another entity of the report has the
// same name on the same node (a mixed profile loads one CPU with GEMM and with STREAM in turn).
std::string SeriesLabel(const BurninReport& r, const BurninEntity& e) {
  std::string label = e.entity + "@" + e.node;
  int same = 0;
  for (const BurninEntity& o : r.entities) same += o.entity == e.entity && o.node == e.node;
  return same > 1 && !e.metric.empty() ? label + " " + e.metric : label;
}

// Windows with a rate or a temperature: what a chart has to draw.
size_t MostWindows(const BurninReport& r) {
  size_t most = 0;
  for (const BurninEntity& e : r.entities) most = std::max(most, e.windows.size());
  return most;
}

// A run too short for its charts to mean anything says so above them: shorter than the warm-up
// and the rate baseline together (no steady baseline to drift from), or fewer than two windows
// (no line to read a trend from).
std::string TooShortNote(const BurninReport& r) {
  size_t windows = MostWindows(r);
  double needed = r.warmup_s + r.baseline_s;
  bool short_of_baseline = needed > 0 && r.elapsed_s < needed;
  if (!short_of_baseline && windows >= 2) return "";
  std::string why =
      short_of_baseline
          ? fmt::format(
                "{} of load is shorter than the warm-up ({}) and the rate baseline ({}) "
                "together",
                FormatLoadTime(r.elapsed_s), FormatLoadTime(r.warmup_s),
                FormatLoadTime(r.baseline_s))
          : fmt::format("{} of load gave {} window{} of {}", FormatLoadTime(r.elapsed_s), windows,
                        windows == 1 ? "" : "s", FormatLoadTime(r.window_s));
  return "<p class=\"warning\" id=\"burnin-too-short\">" +
         EscapeHtml("Too short to judge stability: " + why +
                    ". The charts show what was measured, not a trend or a drift; run the "
                    "burn-in for at least " +
                    FormatLoadTime(std::max(needed, 2 * r.window_s)) + ".") +
         "</p>\n";
}

// The load-time axis in the unit that suits the run's length.
struct TimeAxis {
  double seconds_per_unit;
  const char* name;
};
TimeAxis AxisFor(double span_s) {
  if (span_s > 3 * 3600) return {3600, "h"};
  if (span_s >= 600) return {60, "min"};
  return {1, "s"};
}

oj Series(const std::string& label, oj data, const std::string& colour, bool dashed = false) {
  oj d = {{"label", label},        {"data", std::move(data)},   {"showLine", true},
          {"borderColor", colour}, {"backgroundColor", colour}, {"pointRadius", dashed ? 0 : 2}};
  if (dashed) d["borderDash"] = {6, 4};
  return d;
}

ChartSpec LineChart(const std::string& id, const std::string& title, const TimeAxis& axis,
                    const std::string& y_title, oj datasets) {
  oj options = ChartOptions(fmt::format("load time ({}, window start)", axis.name), y_title);
  options["scales"]["y"]["beginAtZero"] = false;
  options["plugins"]["title"] = {{"display", true}, {"text", title}};
  return {.canvas_id = id,
          .config = oj{{"type", "scatter"},
                       {"data", {{"datasets", std::move(datasets)}}},
                       {"options", std::move(options)}}};
}

std::string Charts(const BurninReport& r, ChartIds& ids, std::vector<ChartSpec>& charts) {
  std::string b = "<h3>Over load time</h3>\n" + TooShortNote(r);
  double last_s = r.elapsed_s;
  for (const BurninEntity& e : r.entities) {
    for (const BurninWindow& w : e.windows) last_s = std::max(last_s, w.start_s);
  }
  TimeAxis axis = AxisFor(last_s);
  auto x = [&](double s) { return s / axis.seconds_per_unit; };
  // A level line across the whole run (a limit).
  auto level = [&](double y) {
    return oj::array({{{"x", 0}, {"y", y}}, {{"x", x(last_s)}, {"y", y}}});
  };
  // A chart's canvas and caption, the chart kept for the page.
  auto add = [&](const std::string& title, std::string_view label, const std::string& y_title,
                 oj series, const std::string& caption) {
    ChartSpec c = LineChart(ids.Next(), title, axis, y_title, std::move(series));
    std::string html = CanvasHtml(c.canvas_id, label, true) + "<p class=\"caption\">" +
                       EscapeHtml(caption) + "</p>\n";
    charts.push_back(std::move(c));
    return html;
  };

  oj rate = oj::array(), temp = oj::array();
  std::set<std::string> temp_drawn;  // one temperature series per entity, whatever its loads
  for (size_t i = 0; i < r.entities.size(); ++i) {
    const BurninEntity& e = r.entities[i];
    const std::string where = e.entity + "@" + e.node;
    std::string label = SeriesLabel(r, e);
    oj rate_points = oj::array(), temp_points = oj::array();
    bool any_rate = false, any_temp = false;
    for (const BurninWindow& w : e.windows) {
      auto pct = PercentOfBaseline(e, w.perf);
      rate_points.push_back({{"x", x(w.start_s)}, {"y", pct ? oj(*pct) : oj(nullptr)}});
      any_rate |= pct.has_value();
      temp_points.push_back(
          {{"x", x(w.start_s)}, {"y", w.temp_max_c ? oj(*w.temp_max_c) : oj(nullptr)}});
      any_temp |= w.temp_max_c.has_value();
    }
    if (any_rate) rate.push_back(Series(label, std::move(rate_points), SeriesColour(i)));
    if (any_temp && temp_drawn.insert(where).second) {
      temp.push_back(Series(where, std::move(temp_points), SeriesColour(i)));
      if (e.temp_steady_c) {
        double limit = *e.temp_steady_c + r.temp_threshold_c;
        temp.push_back(Series(fmt::format("{} limit {} °C", where, FormatValue(limit)),
                              level(limit), SeriesColour(i), /*dashed=*/true));
      }
    }
  }
  if (rate.empty()) {
    b += EmptyNote("No rate chart: no window carries a rate against a baseline.");
  } else {
    double limit = 100 * (1 - r.drift_threshold);
    rate.push_back(Series(fmt::format("drift limit {:.1f}%", limit), level(limit), "#d62728",
                          /*dashed=*/true));
    b += add(
        "Rate as % of each entity's baseline", "burn-in rate as percent of baseline over load time",
        "% of baseline", std::move(rate),
        fmt::format("Each point is a window's median rate ÷ the entity's baseline (its first {} of "
                    "steady load); a fault when a window falls below the dashed line.",
                    FormatLoadTime(r.baseline_s)));
  }
  if (temp.empty()) {
    b += EmptyNote("No temperature chart: no window carries a temperature reading.");
  } else {
    b += add(
        "Temperature, window maximum", "burn-in window maximum temperature over load time", "°C",
        std::move(temp),
        fmt::format("Each point is a window's highest reading; the dashed line of the same colour "
                    "is the entity's limit, its steady temperature + {} °C.",
                    FormatValue(r.temp_threshold_c)));
  }
  return b;
}

}  // namespace

std::optional<HtmlSection> BurninSection(const ReportInput& in, ChartIds& ids) {
  const BurninReport* burnin = in.run ? BurninOf(*in.run) : nullptr;
  if (!burnin) return std::nullopt;
  const BurninReport& r = *burnin;
  HtmlSection s{.id = "burnin", .title = "Burn-in"};
  s.body = Headline(r) + Interruptions(r) + Faults(r) + Nodes(r) + Entities(r) +
           Charts(r, ids, s.charts);
  return s;
}

}  // namespace ys::report::html
