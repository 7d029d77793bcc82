#include "report/html/html_section.h"

#include <nlohmann/json.hpp>

#include "report/html/html_text.h"

namespace ys::report::html {

std::string CanvasHtml(const std::string& canvas_id, std::string_view label, bool tall) {
  return "<div class=\"chart" + std::string(tall ? " tall" : "") + "\"><canvas id=\"" + canvas_id +
         "\" role=\"img\" aria-label=\"" + EscapeHtml(label) + "\"></canvas></div>\n";
}

std::string EmptyNote(std::string_view text) {
  return "<p class=\"empty\">" + EscapeHtml(text) + "</p>\n";
}

std::vector<PlacedMeasurement> AllMeasurements(const RunDocument& doc) {
  std::vector<PlacedMeasurement> out;
  for (const Measurement& m : doc.measurements) out.push_back({"", &m});
  for (const BenchmarkResult& b : doc.benchmarks) {
    for (const Measurement& m : b.measurements) out.push_back({"", &m});
  }
  for (const NodeReport& n : doc.nodes) {
    for (const BenchmarkResult& b : n.benchmarks) {
      for (const Measurement& m : b.measurements) out.push_back({n.hostname, &m});
    }
  }
  return out;
}

std::string Param(const Measurement& m, const std::string& key) {
  auto it = m.params.find(key);
  return it == m.params.end() ? std::string() : it->second;
}

nlohmann::ordered_json ChartOptions(std::string_view x_title, std::string_view y_title,
                                    bool log_x) {
  using oj = nlohmann::ordered_json;
  oj x = {{"title", {{"display", true}, {"text", x_title}}}};
  if (log_x) x["type"] = "logarithmic";
  oj y = {{"title", {{"display", true}, {"text", y_title}}}, {"beginAtZero", true}};
  return {{"animation", false},
          {"responsive", true},
          {"maintainAspectRatio", false},
          {"scales", {{"x", x}, {"y", y}}},
          {"plugins", {{"legend", {{"position", "bottom"}}}}}};
}

std::string SeriesColour(size_t i) {
  static const char* kPalette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                   "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
  return kPalette[i % (sizeof kPalette / sizeof *kPalette)];
}

}  // namespace ys::report::html
