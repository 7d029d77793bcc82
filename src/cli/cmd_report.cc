// `yardstick report RUN -o report.html [--chartjs FILE] [--prices FILE [--tokens 15T] [--gpus N]]`:
// one self-contained HTML page from a run document, a validation document, a run directory or
// an archive (report/html/report_input.h); with --prices, a Cost section prices the measured
// throughput (cost/throughput.h). Exit 0 when the page is written, 2 when an input cannot be
// read (the prices, the token budget) or the page cannot be written.
#include <iostream>
#include <optional>

#include "cli/command.h"
#include "core/atomic_file.h"
#include "core/exit_codes.h"
#include "core/log.h"
#include "cost/cost_model.h"
#include "cost/price_model.h"
#include "report/html/html_report.h"
#include "report/html/report_input.h"
#include "report/output.h"

namespace ys::cli::cmd_report {
namespace {

struct ReportArgs {
  std::string input, output, chartjs = report::html::kDefaultChartJs;
  std::string prices;
  std::optional<std::string> tokens;  // default 1T
  std::optional<int> gpus;
};

// The Cost section's request from --prices, --tokens and --gpus; errors name the file or option.
Result<report::html::CostRequest> CostRequestOf(const ReportArgs& a) {
  report::html::CostRequest c;
  auto prices = cost::LoadPriceModel(a.prices);
  if (!prices.ok()) return prices.status();
  c.prices = std::move(*prices);
  c.prices_path = a.prices;
  c.tokens_text = a.tokens.value_or("1T");
  auto tokens = cost::ParseTokenCount(c.tokens_text);
  if (!tokens.ok()) return Status::Invalid("--tokens: " + tokens.status().message());
  c.tokens = *tokens;
  if (a.gpus && *a.gpus <= 0) return Status::Invalid("--gpus: expected a whole number > 0");
  c.gpus = a.gpus;
  return c;
}

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
  sub.add_option("--prices", a->prices,
                 "A price model (TOML; see examples/prices.toml): adds a Cost section pricing the "
                 "measured tokens/s/GPU");
  sub.add_option("--tokens", a->tokens,
                 "Token budget for the Cost section: 15T, 300B, 2.5e12 (default 1T)");
  sub.add_option("--gpus", a->gpus,
                 "GPUs training, for the Cost section (default: each workload's own, else 8)");
  return [a]() -> Result<int> {
    if (a->prices.empty() && (a->gpus || a->tokens)) {
      Log(LogLevel::kError, "report: --tokens and --gpus price the run: they need --prices");
      return kExitUsage;
    }
    std::optional<report::html::CostRequest> cost;
    if (!a->prices.empty()) {
      auto c = CostRequestOf(*a);
      if (!c.ok()) return c.status();
      cost = std::move(*c);
    }
    auto chartjs = report::html::ReadChartJs(a->chartjs);
    if (!chartjs.ok()) return chartjs.status();
    auto in = report::html::LoadReportInput(a->input);
    if (!in.ok()) return in.status();
    in->cost = std::move(cost);
    std::string page = report::html::BuildHtmlReport(*in, *chartjs);
    YS_RETURN_IF_ERROR(WriteFileAtomic(a->output, page));
    std::cout << "report: " << a->output << "\n";
    return kExitPass;
  };
}

}  // namespace

YS_REGISTER(
    CommandOf<Setup>,
    {.id = "report",
     .summary = "Write one self-contained HTML page (charts, findings, diagnosis) from a run, "
                "a validation, a run directory or an archive"})

}  // namespace ys::cli::cmd_report
