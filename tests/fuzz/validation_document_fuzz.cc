// Fuzz target: the validation document (validation.json, validate/scorecard_json.cc) from
// outside, through its reader (core/validation_document.cc) and every user of it: the history
// rows (history/run_rows.cc RowsFromValidationDocument), the report's view
// (report/html/validation_view.cc), the ingested runs in it (validate/workload_run_json.cc), the
// diagnosis input and rules (diagnose/engine.cc) and the HTML page (report_page.h).
#include <nlohmann/json.hpp>

#include "core/validation_document.h"
#include "fuzz_target.h"
#include "fuzz_util.h"
#include "history/run_rows.h"
#include "report/html/validation_view.h"
#include "report_page.h"
#include "validate/workload_run.h"

YS_FUZZ_TARGET(validation_document) {
  std::optional<nlohmann::json> j = ys::fuzz::ParseJson(ys::fuzz::AsText(data, size));
  if (!j) return 0;
  (void)ys::ValidationDocumentFromJson(*j, "fuzz.json");
  (void)ys::history::RowsFromValidationDocument(*j, "node1");
  (void)ys::report::html::ValidationViewFromJson(*j, "fuzz.json");
  if (j->is_object() || j->is_array()) {
    for (const auto& item : *j) {
      (void)ys::validate::WorkloadRunFromJson(item);
      if (item.is_array()) {
        for (const auto& run : item) (void)ys::validate::WorkloadRunFromJson(run);
      }
    }
  }
  ys::fuzz::DiagnoseAndDraw(nullptr, *j);
  return 0;
}
