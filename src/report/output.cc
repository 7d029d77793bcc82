#include "report/output.h"

#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/atomic_file.h"
#include "core/exit_codes.h"
#include "core/run_document_json.h"
#include "core/verdict.h"
#include "report/burnin_console.h"
#include "report/console_reporter.h"
#include "report/diagnosis_console.h"
#include "report/junit_reporter.h"

namespace ys::report {

Status EmitRun(const RunDocument& doc, const OutputOptions& o) {
  if (!o.junit_path.empty()) {
    std::ostringstream xml;
    WriteJunit(doc, xml);
    YS_RETURN_IF_ERROR(WriteFileAtomic(o.junit_path, xml.str()));
  }
  if (o.json) {
    std::cout << DumpJson(ToJson(doc)) << "\n";
  } else if (o.quiet) {
    std::cout << SummaryLine(doc) << "\n";
  } else {
    WriteConsole(doc, ConsoleOptions{.color = o.color, .failures_only = o.failures_only},
                 std::cout);
    if (doc.burnin) {
      std::cout << "\n";
      PrintBurnin(doc, std::cout);
    }
    if (doc.diagnosis_ran) {
      std::cout << "\n";
      WriteDiagnosis(doc.diagnosis, {}, o.color, std::cout);
    }
  }
  std::cout.flush();
  return Status::Ok();
}

int ExitCodeFor(const RunDocument& doc) { return ExitCodeOf(JudgeRun(doc).state); }

}  // namespace ys::report
