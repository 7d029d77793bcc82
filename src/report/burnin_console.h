// Console text for a burn-in (`yardstick burnin`): the headline (profile, load time done and
// asked, cycles, telemetry source), the planted-faults warning of a test run, the interruptions,
// the faults in time order (load time, node, entity, kind, severity, message, cleared or still
// present), the per-entity table, the per-node line, MTBF and availability, and the verdict line
// (burnin_text.h). Writes nothing when the document carries no burn-in.
#ifndef YARDSTICK_REPORT_BURNIN_CONSOLE_H_
#define YARDSTICK_REPORT_BURNIN_CONSOLE_H_

#include <ostream>

#include "core/run_document.h"

namespace ys::report {

void PrintBurnin(const RunDocument& doc, std::ostream& out);

}  // namespace ys::report

#endif  // YARDSTICK_REPORT_BURNIN_CONSOLE_H_
