// Serving phases (validation.json "phases"): per phase its verdict and reason, a table of its
// metrics (measured, reference, score, result, note) and a plot of output tokens/s per GPU
// against output tokens/s per user: the measured point compared, the reference point, and the
// pass frontier (the threshold times the reference's throughput, up to the reference's
// interactivity: a measured point above that line at that interactivity or less passes on
// throughput).
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "report/html/html_section.h"
#include "report/html/html_text.h"

namespace ys::report::html {
namespace {

// A point of the plot: output tokens/s per user (x) and output tokens/s per GPU (y).
struct HtmlServingXY {
  double x = 0, y = 0;
};

std::string HtmlPhaseTitle(const ValidationPhase& p) {
  std::string t = p.id;
  if (!p.phase.empty()) t += ": " + p.phase;
  if (!p.model.empty()) t += " " + p.model;
  if (!p.precision.empty()) t += " " + p.precision;
  if (p.isl > 0 && p.osl > 0) t += fmt::format(", ISL/OSL {}/{}", p.isl, p.osl);
  if (p.gpus > 0) t += fmt::format(", {} GPUs", p.gpus);
  if (!p.stack.empty())
    t += ", " + p.stack + (p.stack_version.empty() ? "" : " " + p.stack_version);
  return t;
}

std::string HtmlPhaseOutcomeClass(const std::string& outcome) {
  return outcome == "pass" ? "pass" : outcome == "fail" ? "fail" : "inconclusive";
}

std::string HtmlPhaseMetricTable(const ValidationPhase& p) {
  std::string t = "<div class=\"scroll\"><table class=\"serving-metrics\" data-phase=\"" +
                  EscapeHtml(p.id) +
                  "\">\n<tr><th>metric</th><th>measured</th><th>reference</th><th>score</th>"
                  "<th>result</th><th>note</th></tr>\n";
  auto value = [](const std::optional<double>& x) { return x ? FormatValue(*x) : "-"; };
  for (const ValidationPhaseMetric& m : p.metrics) {
    std::string name = m.name + (m.unit.empty() ? "" : " (" + m.unit + ")");
    t += "<tr class=\"" + HtmlPhaseOutcomeClass(m.outcome) + "\"><td>" + EscapeHtml(name) +
         "</td><td class=\"num\">" + EscapeHtml(value(m.measured)) + "</td><td class=\"num\">" +
         EscapeHtml(value(m.reference)) + "</td><td class=\"num\">" +
         (m.score ? FormatPercent(*m.score * 100) : "no score") + "</td><td>" +
         EscapeHtml(m.outcome) + "</td><td>" + EscapeHtml(m.note) + "</td></tr>\n";
  }
  return t + "</table></div>\n";
}

// The reference's interactivity: as it states it, else 1000 / its TPOT.
std::optional<double> HtmlReferenceX(const ValidationPhaseReference& r) {
  if (r.tokens_per_s_per_user && *r.tokens_per_s_per_user > 0) return r.tokens_per_s_per_user;
  if (r.tpot_ms && *r.tpot_ms > 0) return 1000 / *r.tpot_ms;
  return std::nullopt;
}

// The measured point compared: its tokens/s per GPU, at 1000 / its TPOT (the document carries
// the compared point's figures only through the metrics).
std::optional<HtmlServingXY> HtmlMeasuredXY(const ValidationPhase& p) {
  const ValidationPhaseMetric* tput = p.Metric("output_tokens_per_s_per_gpu");
  const ValidationPhaseMetric* tpot = p.Metric("tpot_ms");
  if (!tput || !tput->measured || !tpot || !tpot->measured || *tpot->measured <= 0)
    return std::nullopt;
  return HtmlServingXY{1000 / *tpot->measured, *tput->measured};
}

nlohmann::ordered_json HtmlPointSet(const std::string& label, const HtmlServingXY& at,
                                    const std::string& colour, const std::string& style) {
  return {{"label", label},
          {"data", {{{"x", at.x}, {"y", at.y}}}},
          {"backgroundColor", colour},
          {"borderColor", colour},
          {"pointStyle", style},
          {"pointRadius", 6}};
}

// The plot, or why there is none (the caption's text).
std::optional<ChartSpec> HtmlServingPlot(const ValidationPhase& p, double threshold, ChartIds& ids,
                                         std::string& caption) {
  if (!p.reference || !p.reference->output_tokens_per_s_per_gpu) {
    caption = "No plot: no reference throughput to draw against.";
    return std::nullopt;
  }
  const ValidationPhaseReference& r = *p.reference;
  std::optional<double> ref_x = HtmlReferenceX(r);
  if (!ref_x) {
    caption = "No plot: the reference states neither its tokens/s per user nor its TPOT.";
    return std::nullopt;
  }
  const double ref_y = *r.output_tokens_per_s_per_gpu;
  const std::string frontier = fmt::format("{:.0f}% frontier", threshold * 100);
  nlohmann::ordered_json sets = nlohmann::ordered_json::array();
  std::optional<HtmlServingXY> measured = HtmlMeasuredXY(p);
  if (measured) {
    sets.push_back(HtmlPointSet("measured" + (p.point.empty() ? "" : " (" + p.point + ")"),
                                *measured, p.outcome == "pass" ? "#2ca02c" : "#d62728", "circle"));
  }
  sets.push_back(HtmlPointSet("reference", {*ref_x, ref_y}, "#1f77b4", "rectRot"));
  sets.push_back(
      {{"label", frontier},
       {"data", {{{"x", 0}, {"y", threshold * ref_y}}, {{"x", *ref_x}, {"y", threshold * ref_y}}}},
       {"showLine", true},
       {"borderColor", "#000000"},
       {"borderDash", {6, 4}},
       {"pointRadius", 0},
       {"fill", false}});
  ChartSpec c{.canvas_id = ids.Next()};
  nlohmann::ordered_json options =
      ChartOptions("output tokens/s per user", "output tokens/s per GPU");
  // Room past the furthest point, so that a point at the edge is drawn whole.
  options["scales"]["x"]["beginAtZero"] = true;
  options["scales"]["x"]["grace"] = "10%";
  options["scales"]["y"]["grace"] = "10%";
  *c.config = {{"type", "scatter"}, {"data", {{"datasets", sets}}}, {"options", options}};
  caption = fmt::format("{}: {:g}% of the reference's {} tok/s/GPU, up to its {} tok/s/user{}. ",
                        frontier, threshold * 100, FormatValue(ref_y), FormatValue(*ref_x),
                        r.tokens_per_s_per_user ? "" : " (1000 / its TPOT)");
  caption += measured ? "The measured point's tokens/s per user is 1000 / its TPOT " +
                            p.Metric("tpot_ms")->stat + "."
                      : "The measured point is not drawn: the phase has no measured "
                        "tokens/s per GPU and TPOT.";
  return c;
}

std::string HtmlReferenceLine(const ValidationPhase& p) {
  if (!p.reference) return "no reference compared";
  const ValidationPhaseReference& r = *p.reference;
  std::string at = r.concurrency > 0 ? fmt::format("concurrency {}", r.concurrency)
                                     : std::string("its offline point");
  return fmt::format("reference: {} {} ({}), {} at {}, per GPU over {}", r.kind, r.release,
                     r.source, r.mode, at, r.gpu_denominator);
}

std::string HtmlPhaseBody(const ValidationPhase& p, double threshold, ChartIds& ids,
                          HtmlSection& s) {
  std::string b = "<div class=\"serving-phase\" data-phase=\"" + EscapeHtml(p.id) +
                  "\" data-outcome=\"" + EscapeHtml(p.outcome) + "\">\n<h3>" +
                  EscapeHtml(HtmlPhaseTitle(p)) + "</h3>\n";
  b += "<p><b class=\"" + HtmlPhaseOutcomeClass(p.outcome) + "\">" + EscapeHtml(p.outcome) +
       "</b>: " + EscapeHtml(p.reason) + "</p>\n";
  std::string facts = HtmlReferenceLine(p);
  if (!p.point.empty()) facts += "; point compared: " + p.point;
  for (size_t i = 0; i < p.files.size(); ++i) facts += (i == 0 ? "; files: " : ", ") + p.files[i];
  if (!p.format.empty()) facts += " (" + p.format + ")";
  b += "<p class=\"note\">" + EscapeHtml(facts) + "</p>\n";
  b += p.metrics.empty() ? EmptyNote("No metric compared.") : HtmlPhaseMetricTable(p);
  if (!p.refused.empty()) {
    b += "<p>Points not used:</p><ul>\n";
    for (const std::string& r : p.refused) b += "<li>" + EscapeHtml(r) + "</li>\n";
    b += "</ul>\n";
  }
  std::string caption;
  if (auto c = HtmlServingPlot(p, threshold, ids, caption)) {
    b += CanvasHtml(c->canvas_id, p.id + ": output tokens/s per GPU against tokens/s per user") +
         "<p class=\"caption\">" + EscapeHtml(caption) + "</p>\n";
    s.charts.push_back(std::move(*c));
  } else {
    b += EmptyNote(caption);
  }
  return b + "</div>\n";
}

}  // namespace

std::optional<HtmlSection> ServingSection(const ReportInput& in, ChartIds& ids) {
  if (!in.validation || in.validation->phases.empty()) return std::nullopt;
  const ValidationView& v = *in.validation;
  HtmlSection s{.id = "serving", .title = "Serving phases"};
  const double threshold = v.threshold.value_or(kDefaultScoreThreshold);
  s.body = "<p class=\"caption\">" +
           EscapeHtml(fmt::format("Rule: output tokens/s per GPU above {0:.0f}% of the "
                                  "reference; TTFT and TPOT below the reference / {1:g}.",
                                  threshold * 100, threshold)) +
           "</p>\n";
  for (const ValidationPhase& p : v.phases) s.body += HtmlPhaseBody(p, threshold, ids, s);
  return s;
}

}  // namespace ys::report::html
