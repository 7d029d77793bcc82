// Reads what `yardstick report RUN` names into a ReportInput:
//   a run document (run.json);
//   a validation document (validation.json, "kind": "yardstick-validation");
//   a run directory holding run.json and/or validation.json, and diagnosis.json when present;
//   an archive (.tar.zst, validate/archive.h), extracted into a temporary directory that is
//   removed again, then read as a run directory. An archive whose manifest does not verify is
//   still drawn, with each integrity problem as a note on the page.
// Errors name the file and the field, and what was expected.
#ifndef YARDSTICK_REPORT_HTML_REPORT_INPUT_H_
#define YARDSTICK_REPORT_HTML_REPORT_INPUT_H_

#include <string>

#include "core/status.h"
#include "report/html/html_section.h"

namespace ys::report::html {

Result<ReportInput> LoadReportInput(const std::string& path);

// The same from documents already in memory (tests, and the loader above). `where` names them.
Status AddDocument(const nlohmann::json& j, const std::string& where, ReportInput& in);
// Ranks `in.diagnosis` by expected recovery (midpoint, then high), largest first, keeping one of
// each (rule, entity) pair: the run's own and a diagnosis.json beside it may repeat each other.
void RankDiagnosis(ReportInput& in);

}  // namespace ys::report::html

#endif  // YARDSTICK_REPORT_HTML_REPORT_INPUT_H_
