// Console reporter: an aligned table of check outcomes, each warn or fail followed by its
// findings (code, entity, message, evidence, fix), and a one-line summary. Findings of a unit
// that say the same about several entities are printed once with their count and entities,
// "YS-GPU-045 ×8 (gpu0-gpu7): ..." (core/repeated_findings.h; the JSON keeps each). Colour only
// when asked (the CLI asks when stdout is a terminal).
#ifndef YARDSTICK_REPORT_CONSOLE_REPORTER_H_
#define YARDSTICK_REPORT_CONSOLE_REPORTER_H_

#include <ostream>

#include "core/run_document.h"

namespace ys::report {

struct ConsoleOptions {
  bool color = false;
  bool show_evidence = true;   // evidence lines under each finding
  bool failures_only = false;  // only units that warned, failed or could not evaluate
};

void WriteConsole(const RunDocument& doc, const ConsoleOptions& options, std::ostream& out);
// A benchmark's table as nccl-tests prints its sweep: "#"-prefixed title and header, columns
// right-aligned to the widest cell, footer lines as given.
void WriteTable(const ResultTable& table, std::ostream& out);
// "preflight: 9 pass, 2 warn, 1 fail, 1 skip, 0 error in 0.31 s: FAIL: 1 unit failed: ..." (the
// one verdict and its reason, core/verdict.h)
std::string SummaryLine(const RunDocument& doc);

}  // namespace ys::report

#endif  // YARDSTICK_REPORT_CONSOLE_REPORTER_H_
