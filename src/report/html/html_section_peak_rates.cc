// GEMM, memory and copy rates as % of the peak of the hardware that ran them: the figures their
// benchmarks declare a share of a hardware peak (core/figure_spec.h); bars for the
// measurements whose benchmark knew the peak (params pct_of_peak, peak, peak_source), and a
// table of every rate with its peak and where the peak comes from. A rate without a known peak
// gets no bar: a percentage of a guessed peak would be an invented number.
// On a multi-node run the first node's rates are drawn; the fleet map compares the nodes.
#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "core/figure_spec.h"
#include "core/text.h"
#include "report/html/html_section.h"
#include "report/html/html_text.h"

namespace ys::report::html {
namespace {

// The hardware-rate kinds this section draws; a figure of one of them that its benchmark
// declares a share of a peak (core/figure_spec.h) is a rate.
bool IsHardwareRateKind(FigureKind k) {
  return k == FigureKind::kGemm || k == FigureKind::kCpuGemm || k == FigureKind::kMemory ||
         k == FigureKind::kStream || k == FigureKind::kNvlink || k == FigureKind::kPcie;
}

std::optional<FigureDecl> RateDecl(const Measurement& m) {
  auto d = FindFigure(m.name);
  if (!d || d->figure == nullptr || d->figure->peak == PeakKind::kNone ||
      !IsHardwareRateKind(d->measures->kind)) {
    return std::nullopt;
  }
  return d;
}

// "gemm.cpu.sgemm fp32 512x512x512", "copy.h2d 64 MiB", "mem.stream.triad": the dtype of a
// GEMM or copy, a GEMM's shape, a copy's or GPU memory copy's size, a GPU device.
std::string RateLabel(const Measurement& m, FigureKind kind) {
  const bool memory = kind == FigureKind::kMemory || kind == FigureKind::kStream;
  const bool gemm = kind == FigureKind::kGemm || kind == FigureKind::kCpuGemm;
  std::string label = m.name;
  std::string dtype = Param(m, "dtype");
  if (!dtype.empty() && !memory) label += " " + dtype;
  std::string mm = Param(m, "m"), n = Param(m, "n"), k = Param(m, "k");
  if (!mm.empty() && !n.empty() && !k.empty()) label += " " + mm + "x" + n + "x" + k;
  if (auto size = ParseDouble(Param(m, "size")); size && !gemm) {
    label += " " + FormatBytes(*size);
  }
  if (std::string d = Param(m, "device"); !d.empty() && d != "cpu") label += " " + d;
  return label;
}

struct PeakRate {
  const Measurement* m;
  FigureKind kind;
};

// The rates of the run's first node (a one-node run's rates), and the other nodes' names.
struct RateSelection {
  std::vector<PeakRate> rates;
  std::string node;
  bool picked_node = false;
  std::set<std::string> other_nodes;
};

RateSelection SelectRates(const ReportInput& in) {
  RateSelection r;
  if (!in.run) return r;
  for (const PlacedMeasurement& p : AllMeasurements(*in.run)) {
    auto decl = RateDecl(*p.m);
    if (!decl) continue;
    if (!p.node.empty()) {
      if (!r.picked_node) {
        r.node = p.node;
        r.picked_node = true;
      }
      if (p.node != r.node) {
        r.other_nodes.insert(p.node);
        continue;
      }
    }
    r.rates.push_back({p.m, decl->measures->kind});
  }
  return r;
}

}  // namespace

HtmlSection PeakRatesSection(const ReportInput& in, ChartIds& ids) {
  HtmlSection s{.id = "rates", .title = "GEMM, memory and copy rates against peak"};
  const auto [rates, node, picked_node, other_nodes] = SelectRates(in);
  if (rates.empty()) {
    s.body = EmptyNote("No GEMM, memory or copy rate measured (gemm.*, mem.*, copy.*).");
    return s;
  }
  nlohmann::ordered_json labels = nlohmann::ordered_json::array();
  nlohmann::ordered_json pcts = nlohmann::ordered_json::array();
  std::set<std::string> used;
  std::string table =
      "<table><tr><th>measurement</th><th>value</th><th>% of peak</th><th>peak</th>"
      "<th>peak source</th></tr>\n";
  for (const auto& [m, kind] : rates) {
    std::string label = RateLabel(*m, kind);
    for (int i = 2; used.count(label); ++i) label = RateLabel(*m, kind) + " #" + std::to_string(i);
    used.insert(label);
    auto pct = ParseDouble(Param(*m, "pct_of_peak"));
    std::string source = Param(*m, "peak_formula");
    if (std::string ps = Param(*m, "peak_source"); !ps.empty()) {
      source = source.empty() ? ps : ps + ": " + source;
    }
    table += "<tr><td>" + EscapeHtml(label) + "</td><td>" +
             EscapeHtml(FormatValue(m->value) + " " + m->unit) + "</td><td>" +
             (pct ? FormatPercent(*pct) : "peak unknown") + "</td><td>" +
             EscapeHtml(Param(*m, "peak").empty() ? "" : Param(*m, "peak") + " " + m->unit) +
             "</td><td>" + EscapeHtml(source) + "</td></tr>\n";
    if (!pct) continue;
    labels.push_back(label);
    pcts.push_back(*pct);
  }
  table += "</table>\n";
  std::string where;
  if (picked_node) {
    where = "<p>Rates measured on " + EscapeHtml(node) +
            (other_nodes.empty()
                 ? std::string()
                 : EscapeHtml(fmt::format("; {} other node(s) are compared in the fleet map",
                                          other_nodes.size()))) +
            ".</p>\n";
  }
  if (pcts.empty()) {
    s.body =
        where + EmptyNote("No rate has a known peak: the table lists the measured values.") + table;
    return s;
  }
  ChartSpec c{.canvas_id = ids.Next()};
  nlohmann::ordered_json options = ChartOptions("% of peak", "measurement");
  options["indexAxis"] = "y";
  options["scales"]["x"]["beginAtZero"] = true;
  options["scales"]["x"]["suggestedMax"] = 100;
  options["scales"]["y"].erase("beginAtZero");
  options["plugins"]["legend"] = {{"display", false}};
  *c.config = {
      {"type", "bar"},
      {"data",
       {{"labels", labels},
        {"datasets", {{{"label", "% of peak"}, {"data", pcts}, {"backgroundColor", "#1f77b4"}}}}}},
      {"options", options}};
  s.body = where + CanvasHtml(c.canvas_id, "rates as percent of peak", pcts.size() > 8) + table;
  s.charts.push_back(std::move(c));
  return s;
}

}  // namespace ys::report::html
