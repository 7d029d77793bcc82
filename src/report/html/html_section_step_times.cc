// Step-time histograms: each proxy workload's step times (proxy.<model>.step_time samples) and
// each validated workload's (validation step_times_s), with n, median and p99 in the caption.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "core/text.h"
#include "report/html/html_section.h"
#include "report/html/html_text.h"

namespace ys::report::html {
namespace {

// Nearest-rank percentile of sorted values: with fewer than 100 samples p99 is the maximum.
double NearestRank(const std::vector<double>& sorted, double pct) {
  size_t rank = static_cast<size_t>(std::ceil(pct / 100 * static_cast<double>(sorted.size())));
  return sorted[std::clamp<size_t>(rank, 1, sorted.size()) - 1];
}

// Bins: the square-root rule, capped at 30; equal width over [min, max].
ChartSpec Histogram(const std::string& canvas_id, const std::string& title,
                    std::vector<double> samples) {
  std::sort(samples.begin(), samples.end());
  double lo = samples.front(), hi = samples.back();
  size_t bins = std::clamp<size_t>(
      static_cast<size_t>(std::ceil(std::sqrt(static_cast<double>(samples.size())))), 1, 30);
  if (hi <= lo) bins = 1;
  double width = bins == 1 ? 0 : (hi - lo) / static_cast<double>(bins);
  std::vector<int> counts(bins, 0);
  for (double v : samples) {
    size_t b = width == 0 ? 0 : std::min(bins - 1, static_cast<size_t>((v - lo) / width));
    ++counts[b];
  }
  // Bin edges with enough decimals that neighbouring edges differ ("10.68-10.71", not "10.7-10.7").
  int decimals =
      width > 0 ? std::clamp(static_cast<int>(std::ceil(-std::log10(width))) + 1, 0, 6) : 3;
  auto edge = [&](double v) { return fmt::format("{:.{}f}", v, decimals); };
  nlohmann::ordered_json labels = nlohmann::ordered_json::array();
  for (size_t b = 0; b < bins; ++b) {
    double from = lo + width * static_cast<double>(b);
    labels.push_back(bins == 1 ? FormatValue(lo) : edge(from) + "-" + edge(from + width));
  }
  ChartSpec c{.canvas_id = canvas_id};
  nlohmann::ordered_json options = ChartOptions("step time (s)", "steps");
  options["plugins"]["title"] = {{"display", true}, {"text", title}};
  options["plugins"]["legend"] = {{"display", false}};
  *c.config = {{"type", "bar"},
               {"data",
                {{"labels", labels},
                 {"datasets",
                  {{{"label", "steps"},
                    {"data", counts},
                    {"backgroundColor", "#9467bd"},
                    {"barPercentage", 1.0},
                    {"categoryPercentage", 1.0}}}}}},
               {"options", options}};
  return c;
}

std::string Caption(const std::vector<double>& samples) {
  std::vector<double> sorted = samples;
  std::sort(sorted.begin(), sorted.end());
  return fmt::format("n {}, median {} s, p99 {} s (nearest rank), min {} s, max {} s",
                     sorted.size(), FormatValue(MedianOf(sorted)),
                     FormatValue(NearestRank(sorted, 99)), FormatValue(sorted.front()),
                     FormatValue(sorted.back()));
}

}  // namespace

HtmlSection StepTimesSection(const ReportInput& in, ChartIds& ids) {
  HtmlSection s{.id = "step-times", .title = "Step times"};
  std::vector<std::pair<std::string, const std::vector<double>*>> series;
  if (in.run) {
    for (const PlacedMeasurement& p : AllMeasurements(*in.run)) {
      const Measurement& m = *p.m;
      if (!StartsWith(m.name, "proxy.") || !EndsWith(m.name, ".step_time") || m.samples.empty()) {
        continue;
      }
      series.push_back({m.name + (p.node.empty() ? "" : " @" + p.node), &m.samples});
    }
  }
  if (in.validation) {
    for (const ValidationWorkload& w : in.validation->workloads) {
      if (!w.step_times_s.empty()) series.push_back({w.id, &w.step_times_s});
    }
  }
  if (series.empty()) {
    s.body = EmptyNote(
        "No step times: neither a proxy workload (proxy.*.step_time) nor a "
        "validated workload's log.");
    return s;
  }
  s.body = "<div class=\"grid\">\n";
  for (const auto& [title, samples] : series) {
    ChartSpec c = Histogram(ids.Next(), title, *samples);
    s.body += "<div>" + CanvasHtml(c.canvas_id, title + " step-time histogram") +
              "<p class=\"caption\">" + EscapeHtml(title + ": " + Caption(*samples)) +
              "</p></div>\n";
    s.charts.push_back(std::move(c));
  }
  s.body += "</div>\n";
  return s;
}

}  // namespace ys::report::html
