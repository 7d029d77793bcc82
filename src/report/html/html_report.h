// `yardstick report`: one self-contained HTML page from a ReportInput. Chart.js is inlined from
// the file given (Debian's libjs-chart.js by default), CSS inlined, the chart data embedded as
// JSON in <script type="application/json" id="ys-data">; the page loads nothing from anywhere.
//
// Contract with tests (tests/integration/report_test.sh): every chart's canvas gets
// data-drawn="1" once Chart.js has rendered it; anything the page logs through console.error or
// an uncaught error is appended to the hidden <pre id="ys-errors">; <body data-charts="N"> says
// how many charts the page holds.
#ifndef YARDSTICK_REPORT_HTML_HTML_REPORT_H_
#define YARDSTICK_REPORT_HTML_HTML_REPORT_H_

#include <string>

#include "core/status.h"
#include "report/html/html_section.h"

namespace ys::report::html {

inline constexpr char kDefaultChartJs[] = "/usr/share/javascript/chart.js/chart.min.js";

// Chart.js's source; a missing file names the path and the Debian package that provides it.
Result<std::string> ReadChartJs(const std::string& path);

// The page. `chartjs` is Chart.js's source (ReadChartJs).
std::string BuildHtmlReport(const ReportInput& in, const std::string& chartjs);

// DIR/report.html drawn from DIR/run.json (and what LoadReportInput finds beside it), with
// Chart.js from kDefaultChartJs: what `run` and `burnin` leave beside their document.
Status WriteReportBeside(const std::string& dir);

// What `yardstick report DIR/run.json` reads, from the run document in memory (the page `run`
// leaves beside the document it has just written, without reading it back): the document as its
// JSON text reads back, the text DIR/run.json holds (evidence keyed and ordered as JSON objects
// are), so that the page is the one `report` draws from the file.
Result<ReportInput> ReportInputOf(const RunDocument& run, const std::string& dir);
// DIR/report.html drawn from ReportInputOf(run, dir), with Chart.js from kDefaultChartJs.
Status WriteReportOf(const RunDocument& run, const std::string& dir);

}  // namespace ys::report::html

#endif  // YARDSTICK_REPORT_HTML_HTML_REPORT_H_
