// Fuzz target: the run document (run.json) from outside: core/run_document_json.cc
// RunDocumentFromJson (checks, findings, benchmarks, measurements, diagnosis), the history rows
// drawn from it (history/run_rows.cc), the fleet merge over it as a file (fleet/merge.cc), the
// diagnosis input and rules, and the HTML report page (report_page.h).
#include <nlohmann/json.hpp>

#include "core/run_document_json.h"
#include "fleet/merge.h"
#include "fuzz_target.h"
#include "fuzz_util.h"
#include "history/run_rows.h"
#include "report_page.h"

YS_FUZZ_TARGET(run_document) {
  std::string_view text = ys::fuzz::AsText(data, size);
  std::optional<nlohmann::json> j = ys::fuzz::ParseJson(text);
  if (!j) return 0;
  auto doc = ys::RunDocumentFromJson(*j);
  if (doc.ok()) {
    (void)ys::history::RowsFromRunDocument(*doc);
    (void)ys::history::HostsOf(*doc);
    ys::fuzz::DiagnoseAndDraw(&*doc, *j);
  }
  static const std::string path = ys::fuzz::ScratchDir() + "/run.json";
  ys::fuzz::WriteScratch("run.json", text);
  ys::fleet::MergeOptions options;
  options.keep_going = true;
  (void)ys::fleet::MergeFleet({path}, options);
  return 0;
}
