// The fleet heat map: one row per measurement compared across nodes, one column per node, each
// cell the node's value as % of the fleet median, coloured by how far it is from the median in
// the measurement's worse direction (red) or better direction (green). Node-local benchmarks of
// multi-node documents only; a measurement seen on fewer than two nodes has nothing to compare.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "fleet/key.h"
#include "report/html/html_section.h"
#include "report/html/html_text.h"

namespace ys::report::html {
namespace {

// Short row label: the name and the params that tell its rows apart (shape, size, dtype).
std::string RowLabel(const Measurement& m) {
  std::string label = m.name;
  for (const char* k : {"dtype", "m", "n", "k", "size", "threads"}) {
    if (std::string v = Param(m, k); !v.empty()) label += fmt::format(" {}={}", k, v);
  }
  return label;
}

// Background for a cell: white at the median, towards red (worse) or green (better), full at 20%.
std::string CellColour(double pct, Better better) {
  double d = (pct - 100) / 20;
  if (better == Better::kLower) d = -d;
  d = std::clamp(d, -1.0, 1.0);
  int fade = static_cast<int>(std::lround(255 * (1 - std::fabs(d))));
  return d < 0 ? fmt::format("rgb(255,{},{})", fade, fade)
               : fmt::format("rgb({},255,{})", fade, fade);
}

struct Row {
  std::string label, unit;
  Better better = Better::kHigher;
  std::map<std::string, std::vector<double>> values;  // node -> values (one per device)
};

}  // namespace

HtmlSection FleetSection(const ReportInput& in) {
  HtmlSection s{.id = "fleet", .title = "Fleet heat map"};
  if (!in.run || in.run->nodes.size() < 2) {
    s.body = EmptyNote("One node: the fleet heat map needs a multi-node run document.");
    return s;
  }
  std::vector<std::string> nodes;
  for (const NodeReport& n : in.run->nodes) nodes.push_back(n.hostname);
  std::map<std::string, Row> rows;
  for (const PlacedMeasurement& p : AllMeasurements(*in.run)) {
    if (p.node.empty() || !std::isfinite(p.m->value)) continue;
    // One row per comparison key: the grouping rule of fleet analysis (fleet/key.h), so
    // that params naming the device or computed from the value never split a row.
    Row& r = rows[fleet::ComparisonKey(*p.m)];
    r.label = RowLabel(*p.m);
    r.unit = p.m->unit;
    r.better = p.m->better;
    r.values[p.node].push_back(p.m->value);
  }
  std::string table =
      "<div class=\"scroll\"><table class=\"heat\"><tr><th>measurement</th>"
      "<th>fleet median</th>";
  for (const std::string& n : nodes) table += "<th>" + EscapeHtml(n) + "</th>";
  table += "</tr>\n";
  int drawn = 0;
  for (const auto& [key, r] : rows) {
    if (r.values.size() < 2) continue;
    std::map<std::string, double> per_node;
    std::vector<double> medians;
    for (const auto& [node, vs] : r.values) {
      per_node[node] = MedianOf(vs);
      medians.push_back(per_node[node]);
    }
    double fleet = MedianOf(medians);
    if (fleet == 0) continue;  // no meaningful % of a zero median (a count of mismatches)
    table += "<tr><td title=\"" + EscapeHtml(key) + "\">" + EscapeHtml(r.label) + "</td><td>" +
             EscapeHtml(FormatValue(fleet) + " " + r.unit) + "</td>";
    for (const std::string& n : nodes) {
      auto it = per_node.find(n);
      if (it == per_node.end()) {
        table += "<td class=\"missing\">-</td>";
        continue;
      }
      double pct = 100 * it->second / fleet;
      table += "<td style=\"background:" + CellColour(pct, r.better) + "\" title=\"" +
               EscapeHtml(FormatValue(it->second) + " " + r.unit) + "\">" + FormatPercent(pct) +
               "</td>";
    }
    table += "</tr>\n";
    ++drawn;
  }
  table += "</table></div>\n";
  if (drawn == 0) {
    s.body = EmptyNote("No node-local measurement was made on two or more nodes.");
    return s;
  }
  s.body = "<p>" +
           EscapeHtml(fmt::format("{} nodes; each cell is the node's value as % of the fleet "
                                  "median (red: worse, green: better, full colour at 20% off).",
                                  nodes.size())) +
           "</p>\n" + table;
  return s;
}

}  // namespace ys::report::html
