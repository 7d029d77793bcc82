#include "report/html/html_report.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "core/atomic_file.h"
#include "core/document_file.h"
#include "core/json_document.h"
#include "core/run_document_json.h"
#include "report/html/html_text.h"
#include "report/html/report_input.h"

namespace ys::report::html {
namespace {

constexpr char kCss[] = R"css(
body{font:14px/1.4 system-ui,sans-serif;margin:0 auto;max-width:1200px;padding:0 16px 40px;color:#222}
h1{font-size:22px;margin:16px 0 8px}h2{font-size:18px;border-bottom:1px solid #ccc;padding-top:12px}
h3{font-size:15px;margin:12px 0 6px}nav a{margin-right:12px}
.banner{padding:12px 16px;border-radius:6px;border:2px solid}.banner .big{font-size:20px;font-weight:bold}
.banner.pass{background:#e6f4ea;border-color:#2ca02c}.banner.warn{background:#fff4e0;border-color:#ff9f0e}
.banner.fail{background:#fde8e8;border-color:#d62728}.banner.inconclusive{background:#eef0f4;border-color:#6b7280}.incomplete,.warning{color:#b00;font-weight:bold}
.source,.note{color:#555;font-size:12px}.empty{color:#666;font-style:italic}
.chart{position:relative;height:300px}.chart.tall{height:520px}
.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(520px,1fr));gap:16px}
table{border-collapse:collapse;margin:8px 0;font-size:13px}th,td{border:1px solid #ddd;padding:3px 6px;text-align:left;vertical-align:top}
th{background:#f4f4f4}tr.fail td:first-child{color:#b00}tr.pass td:first-child{color:#060}
.heat td{text-align:right}.heat td:first-child{text-align:left}.scroll{overflow-x:auto}
code{font-size:12px;white-space:pre-wrap}.caption{font-size:12px;color:#444;margin:2px 0 8px}
.alert{padding:8px 12px;margin:8px 0;border:2px solid #d62728;border-radius:6px;background:#fde8e8;color:#b00;font-weight:bold}
tr.unstable td{background:#fff0f0}td.num{text-align:right}
table.fit{table-layout:fixed;width:100%}table.fit th,table.fit td{overflow-wrap:anywhere;font-size:12px;padding:2px 3px}
table{max-width:100%}td{overflow-wrap:anywhere}
)css";

// Runs first in <body>, before Chart.js: records every error where a test can read it.
constexpr char kErrorScript[] = R"js(
(function () {
  var errors = document.getElementById('ys-errors');
  window.ysRecordError = function (text) { errors.textContent += text + '\n'; };
  window.onerror = function (msg, src, line, col) { ysRecordError('error: ' + msg + ' at ' + line + ':' + col); };
  window.addEventListener('unhandledrejection', function (e) { ysRecordError('unhandled rejection: ' + e.reason); });
  var consoleError = console.error;
  console.error = function () {
    ysRecordError('console.error: ' + Array.prototype.join.call(arguments, ' '));
    consoleError.apply(console, arguments);
  };
})();
)js";

// Runs last: draws every chart of the embedded data and marks each canvas once rendered.
constexpr char kDrawScript[] = R"js(
(function () {
  // Each drawn canvas is marked, with the legend's entries as drawn (data-legend, a JSON array),
  // and the page records its width against the window's (data-layout="scrollWidth clientWidth")
  // so that a test can tell a chart was drawn, legible, and that nothing runs off the page.
  var layout = function () {
    var d = document.documentElement;
    document.body.dataset.layout = d.scrollWidth + ' ' + d.clientWidth;
  };
  var marker = { id: 'ysDrawn', afterRender: function (chart) {
    chart.canvas.dataset.drawn = '1';
    var items = chart.legend && chart.legend.legendItems ? chart.legend.legendItems : [];
    chart.canvas.dataset.legend = JSON.stringify(items.map(function (i) { return i.text; }));
    layout();
  } };
  layout();
  try {
    if (typeof Chart === 'undefined') throw new Error('Chart.js did not load');
    var data = JSON.parse(document.getElementById('ys-data').textContent);
    data.charts.forEach(function (c) {
      try {
        var config = c.config;
        config.plugins = [marker];
        new Chart(document.getElementById(c.canvas), config);
      } catch (e) { ysRecordError('chart ' + c.canvas + ': ' + e); }
    });
  } catch (e) { ysRecordError('report: ' + e); }
})();
)js";

}  // namespace

Result<std::string> ReadChartJs(const std::string& path) {
  auto read = ReadDocumentFile(path, kMaxStateDocumentBytes, "the Chart.js script");
  if (!read.ok()) {
    if (read.status().code() != StatusCode::kNotFound) return read.status();
    return Status::NotFound(path +
                            ": Chart.js not found; install the Debian package libjs-chart.js "
                            "(apt-get install libjs-chart.js) or name a copy with --chartjs FILE");
  }
  std::string js = std::move(*read);
  if (js.find("Chart") == std::string::npos) {
    return Status::Invalid(path + ": does not look like Chart.js (no \"Chart\" in it)");
  }
  return js;
}

std::string BuildHtmlReport(const ReportInput& in, const std::string& chartjs) {
  ChartIds ids;
  std::vector<HtmlSection> sections;
  sections.push_back(VerdictSection(in));
  sections.push_back(ScoresSection(in, ids));
  if (auto serving = ServingSection(in, ids)) sections.push_back(std::move(*serving));
  sections.push_back(CollectivesSection(in, ids));
  sections.push_back(PeakRatesSection(in, ids));
  sections.push_back(StepTimesSection(in, ids));
  if (auto proxy = ServingProxySection(in)) sections.push_back(std::move(*proxy));
  if (auto burnin = BurninSection(in, ids)) sections.push_back(std::move(*burnin));
  if (auto cost = CostSection(in)) sections.push_back(std::move(*cost));
  sections.push_back(FleetSection(in));
  sections.push_back(FindingsSection(in));
  sections.push_back(VersionsSection(in));

  nlohmann::ordered_json data = {{"charts", nlohmann::ordered_json::array()}};
  std::string nav, body;
  for (HtmlSection& s : sections) {
    for (ChartSpec& c : s.charts) {
      data["charts"].push_back(
          {{"section", s.id}, {"canvas", c.canvas_id}, {"config", std::move(*c.config)}});
    }
    if (s.id != "verdict") nav += "<a href=\"#" + s.id + "\">" + EscapeHtml(s.title) + "</a>";
    body += "<section id=\"" + s.id + "\">\n" +
            (s.id == "verdict" ? std::string() : "<h2>" + EscapeHtml(s.title) + "</h2>\n") +
            s.body + "</section>\n";
  }
  std::string title = "yardstick report";
  if (in.run)
    title += ": " + in.run->host.hostname + " " + in.run->started_at;
  else if (in.validation)
    title += ": " + in.validation->chip + " validation";

  std::string page;
  page += "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n";
  // No network: the page may use only what it carries (inline scripts and styles, data: URLs).
  page +=
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
      "script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:\">\n";
  page += "<title>" + EscapeHtml(title) + "</title>\n<style>" + std::string(kCss) + "</style>\n";
  page += "</head>\n<body data-charts=\"" + std::to_string(data["charts"].size()) + "\">\n";
  page +=
      "<pre id=\"ys-errors\" hidden></pre>\n<script>" + std::string(kErrorScript) + "</script>\n";
  page += "<h1>" + EscapeHtml(title) + "</h1>\n<nav>" + nav + "</nav>\n" + body;
  page +=
      "<script type=\"application/json\" id=\"ys-data\">" + ScriptSafeJson(data) + "</script>\n";
  page += "<script id=\"ys-chartjs\">\n" + ScriptSafeSource(chartjs) + "\n</script>\n";
  page += "<script>" + std::string(kDrawScript) + "</script>\n";
  page += "</body></html>\n";
  return page;
}

Result<ReportInput> ReportInputOf(const RunDocument& run, const std::string& dir) {
  ReportInput in;
  in.source = dir + "/run.json";
  auto j = ParseJsonDocument(DumpJson(ToJson(run)) + "\n", in.source);
  if (!j.ok()) return j.status();
  YS_RETURN_IF_ERROR(AddDocument(*j, in.source, in));
  RankDiagnosis(in);
  return in;
}

Status WriteReportOf(const RunDocument& run, const std::string& dir) {
  auto chartjs = ReadChartJs(kDefaultChartJs);
  if (!chartjs.ok()) return chartjs.status();
  auto input = ReportInputOf(run, dir);
  if (!input.ok()) return input.status();
  return WriteFileAtomic(dir + "/report.html", BuildHtmlReport(*input, *chartjs));
}

Status WriteReportBeside(const std::string& dir) {
  auto chartjs = ReadChartJs(kDefaultChartJs);
  if (!chartjs.ok()) return chartjs.status();
  auto input = LoadReportInput(dir + "/run.json");
  if (!input.ok()) return input.status();
  return WriteFileAtomic(dir + "/report.html", BuildHtmlReport(*input, *chartjs));
}

}  // namespace ys::report::html
