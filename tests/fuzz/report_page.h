// What `yardstick report` and `yardstick diagnose` do with a document read from outside: the
// report's document reader (report/html/report_input.cc AddDocument), the diagnosis input
// (diagnose/engine.cc DiagnosisInputFor) with the rules run over it, and the HTML page drawn
// from it. Shared by the run-document and validation-document targets.
#ifndef YARDSTICK_TESTS_FUZZ_REPORT_PAGE_H_
#define YARDSTICK_TESTS_FUZZ_REPORT_PAGE_H_

#include <nlohmann/json_fwd.hpp>

#include "core/run_document.h"
#include "diagnose/engine.h"
#include "report/html/html_report.h"
#include "report/html/html_section.h"
#include "report/html/report_input.h"

namespace ys::fuzz {

inline void DiagnoseAndDraw(const RunDocument* run, const nlohmann::json& document) {
  const nlohmann::json* validation = run ? nullptr : &document;
  auto input = diagnose::DiagnosisInputFor(run, validation, "");
  if (input.ok()) (void)diagnose::Diagnose(*input);
  report::html::ReportInput page;
  if (report::html::AddDocument(document, "fuzz.json", page).ok()) {
    report::html::RankDiagnosis(page);
    (void)report::html::BuildHtmlReport(page, "");
  }
}

}  // namespace ys::fuzz

#endif  // YARDSTICK_TESTS_FUZZ_REPORT_PAGE_H_
