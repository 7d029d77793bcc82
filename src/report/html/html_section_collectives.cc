// Bus bandwidth against message size, one chart per collective (coll.<name>.busbw), one series
// per placement (in place, out of place), data type, backend and, for node-local collectives,
// node; the size axis is logarithmic as nccl-tests' sweeps are. A point of one rank on one device
// (ranks=1, from a document written before such sweeps were skipped) is never drawn: nothing
// crossed a link, so its "bandwidth" is 0 or a local copy's; the section says how many it left out.
#include <map>
#include <nlohmann/json.hpp>

#include "comm/collectives.h"
#include "core/text.h"
#include "report/html/html_section.h"
#include "report/html/html_text.h"

namespace ys::report::html {
namespace {

std::string SeriesLabel(const PlacedMeasurement& p) {
  const Measurement& m = *p.m;
  std::string placement = Param(m, "inplace");
  if (placement.empty()) placement = Param(m, "in_place");
  std::string label = placement == "1" || placement == "true" ? "in place" : "out of place";
  for (const char* k : {"dtype", "backend"}) {
    if (std::string v = Param(m, k); !v.empty()) label += ", " + v;
  }
  if (!p.node.empty()) label += " @" + p.node;
  return label;
}

}  // namespace

HtmlSection CollectivesSection(const ReportInput& in, ChartIds& ids) {
  HtmlSection s{.id = "collectives", .title = "Collective bus bandwidth"};
  // collective -> series label -> size -> GB/s (sorted by size through the map).
  std::map<std::string, std::map<std::string, std::map<double, double>>> sweeps;
  std::map<std::string, std::string> units;
  size_t one_rank = 0;
  if (in.run) {
    for (const PlacedMeasurement& p : AllMeasurements(*in.run)) {
      const Measurement& m = *p.m;
      if (!StartsWith(m.name, "coll.") || !EndsWith(m.name, ".busbw")) continue;
      auto size = ParseDouble(Param(m, "size"));
      if (!size || *size <= 0) continue;  // a point without a size has no place on the axis
      if (Param(m, "ranks") == "1") {
        ++one_rank;
        continue;
      }
      std::string coll = m.name.substr(5, m.name.size() - 5 - 6);
      sweeps[coll][SeriesLabel(p)][*size] = m.value;
      units[coll] = m.unit;
    }
  }
  const std::string left_out =
      one_rank == 0
          ? ""
          : EmptyNote(std::to_string(one_rank) +
                      " point(s) of one rank not drawn: " + comm::kNothingToExchange + ".");
  if (sweeps.empty()) {
    s.body = EmptyNote("No collective bus bandwidth measured (coll.*.busbw).") + left_out;
    return s;
  }
  s.body = left_out + "<div class=\"grid\">\n";
  for (const auto& [coll, series] : sweeps) {
    nlohmann::ordered_json datasets = nlohmann::ordered_json::array();
    size_t i = 0;
    for (const auto& [label, points] : series) {
      nlohmann::ordered_json data = nlohmann::ordered_json::array();
      for (auto [size, bw] : points) data.push_back({{"x", size}, {"y", bw}});
      datasets.push_back({{"label", label},
                          {"data", data},
                          {"showLine", true},
                          {"borderColor", SeriesColour(i)},
                          {"backgroundColor", SeriesColour(i)}});
      ++i;
    }
    ChartSpec c{.canvas_id = ids.Next()};
    nlohmann::ordered_json options = ChartOptions("message size (bytes, log scale)",
                                                  "bus bandwidth (" + units[coll] + ")", true);
    options["plugins"]["title"] = {{"display", true}, {"text", coll}};
    *c.config = {{"type", "scatter"}, {"data", {{"datasets", datasets}}}, {"options", options}};
    s.body += "<div>" + CanvasHtml(c.canvas_id, coll + " bus bandwidth against message size") +
              "</div>\n";
    s.charts.push_back(std::move(c));
  }
  s.body += "</div>\n";
  return s;
}

}  // namespace ys::report::html
