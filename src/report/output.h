// Writes a run document where the operator asked: the console table or JSON on stdout, a JUnit
// file, a run directory. Shared by every subcommand that produces a run.
#ifndef YARDSTICK_REPORT_OUTPUT_H_
#define YARDSTICK_REPORT_OUTPUT_H_

#include <string>

#include "core/run_document.h"
#include "core/status.h"

namespace ys::report {

struct OutputOptions {
  bool json = false;           // JSON on stdout instead of the table
  std::string junit_path;      // also write JUnit XML here
  bool color = false;          // the table in colour (stdout is a terminal)
  bool failures_only = false;  // the console lists only warn, fail and error units
  bool quiet = false;          // the console prints only the verdict line
};

Status EmitRun(const RunDocument& doc, const OutputOptions& options);

// Exit code of a finished run, from its one verdict (core/verdict.h): 0 PASS or WARN, 1 FAIL,
// 2 INCONCLUSIVE (a unit could not evaluate, the run is incomplete).
int ExitCodeFor(const RunDocument& doc);

}  // namespace ys::report

#endif  // YARDSTICK_REPORT_OUTPUT_H_
