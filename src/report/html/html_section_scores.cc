// Per-workload score bars (measured / reference, in %) with the suite's threshold as a line.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "report/html/html_section.h"
#include "report/html/html_text.h"

namespace ys::report::html {

HtmlSection ScoresSection(const ReportInput& in, ChartIds& ids) {
  HtmlSection s{.id = "scores", .title = "Workload scores"};
  if (!in.validation) {
    s.body = EmptyNote("No validation document: workload scores come from `yardstick validate`.");
    return s;
  }
  const ValidationView& v = *in.validation;
  // ValidationViewFromJson requires the threshold; a view built in code may leave it out.
  const double limit = v.threshold.value_or(kDefaultScoreThreshold);
  nlohmann::ordered_json labels = nlohmann::ordered_json::array();
  nlohmann::ordered_json scores = nlohmann::ordered_json::array();
  nlohmann::ordered_json colours = nlohmann::ordered_json::array();
  std::string table =
      "<table><tr><th>workload</th><th>outcome</th><th>score</th><th>MFU</th><th>reason</th></"
      "tr>\n";
  for (const ValidationWorkload& w : v.workloads) {
    table += "<tr class=\"" + std::string(w.outcome == "pass" ? "pass" : "fail") + "\"><td>" +
             EscapeHtml(w.id) + "</td><td>" + EscapeHtml(w.outcome) + "</td><td>" +
             (w.score ? FormatPercent(*w.score * 100) : "no score") + "</td><td>" +
             (w.mfu ? FormatPercent(*w.mfu * 100) : "") + "</td><td>" + EscapeHtml(w.reason) +
             "</td></tr>\n";
    // A workload without a score gets no bar: its row in the table says why.
    if (!w.score) continue;
    labels.push_back(w.id);
    scores.push_back(*w.score * 100);
    colours.push_back(*w.score >= limit ? "#2ca02c" : "#d62728");
  }
  table += "</table>\n";
  if (scores.empty()) {
    s.body = EmptyNote("No workload has a score (no reference or no measured run).") + table;
    return s;
  }
  nlohmann::ordered_json threshold = nlohmann::ordered_json::array();
  for (size_t i = 0; i < scores.size(); ++i) threshold.push_back(limit * 100);
  std::string threshold_label = fmt::format("threshold {:.0f}%", limit * 100);
  ChartSpec c{.canvas_id = ids.Next()};
  *c.config = {{"type", "bar"},
               {"data",
                {{"labels", labels},
                 {"datasets",
                  {{{"type", "bar"},
                    {"label", "score (% of reference)"},
                    {"data", scores},
                    {"backgroundColor", colours}},
                   {{"type", "line"},
                    {"label", threshold_label},
                    {"data", threshold},
                    {"borderColor", "#000000"},
                    {"borderDash", {6, 4}},
                    // One workload: a point, as a line needs two.
                    {"pointRadius", scores.size() == 1 ? 4 : 0},
                    {"fill", false}}}}}},
               {"options", ChartOptions("workload", "% of reference")}};
  s.body = CanvasHtml(c.canvas_id, "workload scores against the " + threshold_label) + table;
  s.charts.push_back(std::move(c));
  return s;
}

}  // namespace ys::report::html
