// The pieces of the HTML report (`yardstick report`): what every section gets (ReportInput), what
// it gives back (HtmlSection: escaped markup plus Chart.js configurations), and the helpers the
// sections share. Each section is one file, html_section_<name>.cc; html_report.cc calls them in
// order. A section never draws an empty chart: with no data it says so in one line.
//
// Every section about what any run may measure is always on the page (saying so in one line
// when the run measured none of it). The sections about what only some invocations produce, a
// burn-in (`yardstick burnin`), a cost (`--prices`) and serving phases (a serving suite's
// validation), return nullopt without it and are left off the page and its navigation.
#ifndef YARDSTICK_REPORT_HTML_HTML_SECTION_H_
#define YARDSTICK_REPORT_HTML_HTML_SECTION_H_

#include <functional>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/json_box.h"
#include "core/run_document.h"
#include "cost/price_model.h"
#include "report/html/validation_view.h"

namespace ys::report::html {

// `yardstick report --prices FILE [--tokens N] [--gpus N]`: what the Cost section prices the
// measured throughput with (cost/throughput.h does the arithmetic).
struct CostRequest {
  cost::PriceModel prices;
  std::string prices_path;
  double tokens = 1e12;
  std::string tokens_text = "1T";  // as the operator wrote it
  std::optional<int> gpus;         // unset: each workload's own GPUs, else cost::kDefaultGpus
};

// Everything a report is drawn from. Either document may be absent, not both.
struct ReportInput {
  std::string source;  // what the operator named (file, directory, archive)
  std::optional<RunDocument> run;
  std::optional<ValidationView> validation;
  // The run's diagnosis and a diagnosis.json beside it, merged and ranked by expected recovery.
  std::vector<Diagnosis> diagnosis;
  std::vector<std::string> notes;   // about the input itself (archive integrity)
  std::optional<CostRequest> cost;  // without it there is no Cost section
};

// One chart: the canvas it draws on and its Chart.js configuration (type, data, options), plain
// JSON so that the page needs no code per chart.
struct ChartSpec {
  std::string canvas_id;
  JsonBox<nlohmann::ordered_json> config;
};

struct HtmlSection {
  std::string id;  // anchor, "collectives"
  std::string title;
  std::string body;  // HTML, every piece of text already escaped
  std::vector<ChartSpec> charts;
};

// Allocates canvas ids ("chart-3") across sections so that every id on the page is unique.
class ChartIds {
 public:
  std::string Next() { return "chart-" + std::to_string(next_++); }

 private:
  int next_ = 0;
};

// Markup for a chart's canvas; `label` is its accessible name (escaped here).
std::string CanvasHtml(const std::string& canvas_id, std::string_view label, bool tall = false);
// "<p class=\"empty\">...</p>": what a section shows instead of an empty chart.
std::string EmptyNote(std::string_view text);

// One measurement and the node whose section it came from ("" for job-wide results).
struct PlacedMeasurement {
  std::string node;
  const Measurement* m = nullptr;
};
// Every measurement of a run: the document's, its job-wide benchmarks', then each node's.
std::vector<PlacedMeasurement> AllMeasurements(const RunDocument& doc);

// Chart.js options every chart shares (no animation, so a chart is complete once drawn; fixed
// aspect) with the axis titles; `log_x` for a logarithmic x axis.
nlohmann::ordered_json ChartOptions(std::string_view x_title, std::string_view y_title,
                                    bool log_x = false);
// A colour of the page's palette for series `i`.
std::string SeriesColour(size_t i);

// A measurement's param, or "" when absent.
std::string Param(const Measurement& m, const std::string& key);

// The sections, in page order.
HtmlSection VerdictSection(const ReportInput& in);
HtmlSection ScoresSection(const ReportInput& in, ChartIds& ids);
// Only for a validation document with serving phases.
std::optional<HtmlSection> ServingSection(const ReportInput& in, ChartIds& ids);
HtmlSection CollectivesSection(const ReportInput& in, ChartIds& ids);
HtmlSection PeakRatesSection(const ReportInput& in, ChartIds& ids);
HtmlSection StepTimesSection(const ReportInput& in, ChartIds& ids);
// Only for a run with a serving proxy unit (serving.<model>).
std::optional<HtmlSection> ServingProxySection(const ReportInput& in);
std::optional<HtmlSection> BurninSection(const ReportInput& in, ChartIds& ids);
std::optional<HtmlSection> CostSection(const ReportInput& in);
HtmlSection FleetSection(const ReportInput& in);
HtmlSection FindingsSection(const ReportInput& in);
HtmlSection VersionsSection(const ReportInput& in);

}  // namespace ys::report::html

#endif  // YARDSTICK_REPORT_HTML_HTML_SECTION_H_
