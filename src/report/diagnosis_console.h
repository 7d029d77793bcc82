// Console text for a diagnosis (`yardstick diagnose`, and the end of `run` and `validate`): the
// ranked causes, each with its expected recovery range, confidence, layer, rule, entity, cause,
// fix, the basis of the recovery, key evidence and the finding codes it rests on; then the rules
// that could not be evaluated. "no cause found" when the list is empty.
#ifndef YARDSTICK_REPORT_DIAGNOSIS_CONSOLE_H_
#define YARDSTICK_REPORT_DIAGNOSIS_CONSOLE_H_

#include <ostream>
#include <string>
#include <vector>

#include "core/run_document.h"
#include "core/verdict.h"

namespace ys::report {

// At most this many evidence entries per diagnosis on the console (the JSON keeps them all).
inline constexpr size_t kConsoleEvidenceLines = 4;

// "+12.0%", "+15.0% to +112.8%", or "not quantified" (a 0..0 range): core/verdict.h's, which the
// verdict's reason quotes too.
using ys::FormatRecovery;

void WriteDiagnosis(const std::vector<Diagnosis>& ranked,
                    const std::vector<std::string>& not_evaluated, bool color, std::ostream& out);

}  // namespace ys::report

#endif  // YARDSTICK_REPORT_DIAGNOSIS_CONSOLE_H_
