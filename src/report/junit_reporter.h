// JUnit XML reporter: one <testcase> per check, for CI systems. skip -> <skipped>, error ->
// <error>, fail -> <failure>; a warn passes and lists its findings in <system-out>.
#ifndef YARDSTICK_REPORT_JUNIT_REPORTER_H_
#define YARDSTICK_REPORT_JUNIT_REPORTER_H_

#include <ostream>
#include <string>

#include "core/run_document.h"

namespace ys::report {

void WriteJunit(const RunDocument& doc, std::ostream& out);
std::string XmlEscape(std::string_view s);

}  // namespace ys::report

#endif  // YARDSTICK_REPORT_JUNIT_REPORTER_H_
