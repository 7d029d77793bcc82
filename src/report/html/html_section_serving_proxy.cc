// The serving proxy: each serving proxy unit's comparison of what it measured with the serving
// model's prediction (workloads/serving/serving_unit.h), its table as the console prints it. A
// unit is a serving proxy when its declaration measures predicted_ttft (core/figure_spec.h); no
// section without one.
#include "core/figure_spec.h"
#include "report/html/html_section.h"
#include "report/html/html_text.h"

namespace ys::report::html {
namespace {

bool IsServingProxy(const BenchmarkResult& b) {
  auto d = FindFigure(b.unit_id + ".predicted_ttft");
  return d && d->figure != nullptr;
}

std::string ServingProxyTableHtml(const ResultTable& t) {
  std::string h = "<p><b>" + EscapeHtml(t.title) + "</b></p>\n<table>\n<tr>";
  for (const std::string& c : t.columns) h += "<th>" + EscapeHtml(c) + "</th>";
  h += "</tr>\n";
  for (const auto& row : t.rows) {
    h += "<tr>";
    for (const std::string& cell : row) h += "<td>" + EscapeHtml(cell) + "</td>";
    h += "</tr>\n";
  }
  h += "</table>\n";
  for (const std::string& f : t.footer) h += "<p class=\"caption\">" + EscapeHtml(f) + "</p>\n";
  return h;
}

}  // namespace

std::optional<HtmlSection> ServingProxySection(const ReportInput& in) {
  if (!in.run) return std::nullopt;
  std::vector<std::pair<std::string, const BenchmarkResult*>> found;
  for (const BenchmarkResult& b : in.run->benchmarks)
    if (IsServingProxy(b)) found.push_back({"", &b});
  for (const NodeReport& n : in.run->nodes)
    for (const BenchmarkResult& b : n.benchmarks)
      if (IsServingProxy(b)) found.push_back({n.hostname, &b});
  if (found.empty()) return std::nullopt;
  HtmlSection s{.id = "serving-proxy", .title = "Serving proxy"};
  for (const auto& [node, b] : found) {
    s.body += "<h3>" + EscapeHtml(b->unit_id + (node.empty() ? "" : " @" + node)) + "</h3>\n";
    s.body += "<p><b>" + EscapeHtml(OutcomeName(b->outcome)) + "</b>: " + EscapeHtml(b->summary) +
              "</p>\n";
    for (const ResultTable& t : b->tables) s.body += ServingProxyTableHtml(t);
  }
  return s;
}

}  // namespace ys::report::html
