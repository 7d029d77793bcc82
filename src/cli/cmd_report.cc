// `yardstick report RUN -o report.html [--chartjs FILE]`: one self-contained HTML page from a run
// document, a validation document, a run directory or an archive (report/html/report_input.h).
// Exit 0 when the page is written, 2 when an input cannot be read or the page cannot be written.
#include <iostream>

#include "cli/command.h"
#include "core/exit_codes.h"
#include "core/log.h"
#include "report/html/html_report.h"
#include "report/html/report_input.h"
#include "report/output.h"

namespace ys::cli {
namespace {

struct ReportArgs {
  std::string input, output, chartjs = report::html::kDefaultChartJs;
};

Action Setup(CLI::App& sub) {
  auto a = std::make_shared<ReportArgs>();
  sub.add_option("RUN", a->input,
                 "A run document (run.json), a validation document (validation.json), a run "
                 "directory (run.json, validation.json, diagnosis.json) or an archive (.tar.zst)")
      ->required();
  sub.add_option("-o,--output", a->output, "The HTML file to write")->required();
  sub.add_option("--chartjs", a->chartjs,
                 "Chart.js (UMD build) to inline; default: Debian's libjs-chart.js")
      ->capture_default_str();
  return [a] {
    auto chartjs = report::html::ReadChartJs(a->chartjs);
    if (!chartjs.ok()) {
      Log(LogLevel::kError, "{}", chartjs.status().message());
      return kExitCannotRun;
    }
    auto in = report::html::LoadReportInput(a->input);
    if (!in.ok()) {
      Log(LogLevel::kError, "{}", in.status().message());
      return kExitCannotRun;
    }
    std::string page = report::html::BuildHtmlReport(*in, *chartjs);
    if (Status s = report::WriteFileAtomic(a->output, page); !s.ok()) {
      Log(LogLevel::kError, "{}", s.message());
      return kExitCannotRun;
    }
    std::cout << "report: " << a->output << "\n";
    return kExitPass;
  };
}

}  // namespace

YS_REGISTER_COMMAND("report",
                    "Write one self-contained HTML page (charts, findings, diagnosis) from a run, "
                    "a validation, a run directory or an archive",
                    Setup)

}  // namespace ys::cli
